// The catalog reader, on any bytes as one catalog file beside the shipped sources: a catalog extended by
// hand must load or be refused with diagnostics, never crash.
#include "models/catalog.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace choreo;
    // One folder per process: the shipped sources (which entries cite) and the input as a device file.
    static const std::filesystem::path folder = [] {
        const auto dir =
            std::filesystem::temp_directory_path() / ("choreo-fuzz-catalog-" + std::to_string(getpid()));
        std::filesystem::create_directories(dir);
        std::filesystem::copy_file(std::string(CHOREO_FUZZ_ASSETS) + "/catalog/sources.json",
                                   dir / "sources.json", std::filesystem::copy_options::overwrite_existing);
        return dir;
    }();
    {
        std::ofstream file(folder / "devices.json", std::ios::binary | std::ios::trunc);
        file.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    }
    models::Diagnostics errors;
    (void)models::Catalog::load(folder, errors);
    return 0;
}
