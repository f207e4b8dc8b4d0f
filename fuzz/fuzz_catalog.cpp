// The catalog reader, on any bytes as one catalog file beside the shipped sources: a catalog extended by
// hand must load or be refused with diagnostics, never crash.
#include "models/catalog.h"
#include "models/jsonreader.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

namespace {

std::string readAll(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// The shipped sources that the seeds cite, as a sources file: reading all 143 of them beside every input
// held the harness near 100 executions a second; an entry citing any other source is still refused
// through the same path ("unknown source").
std::string citedSources() {
    std::string seeds;
    for (const auto& entry : std::filesystem::directory_iterator(CHOREO_FUZZ_SEEDS))
        seeds += readAll(entry.path());
    const auto shipped =
        choreo::models::Json::parse(readAll(std::string(CHOREO_FUZZ_ASSETS) + "/catalog/sources.json"));
    choreo::models::Json kept = shipped;
    kept["sources"] = choreo::models::Json::object();
    for (const auto& [id, source] : shipped.at("sources").items())
        if (seeds.find('"' + id + '"') != std::string::npos)
            kept["sources"][id] = source;
    return kept.dump();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace choreo;
    // One folder per process: the cited sources and the input as a device file.
    static const std::filesystem::path folder = [] {
        const auto dir =
            std::filesystem::temp_directory_path() / ("choreo-fuzz-catalog-" + std::to_string(getpid()));
        std::filesystem::create_directories(dir);
        std::ofstream(dir / "sources.json", std::ios::binary | std::ios::trunc) << citedSources();
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
