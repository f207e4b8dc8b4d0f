// What the desktop reads from a worker: a result line's JSON (models::resultFromJson), on any bytes. A
// worker that writes garbage must give the desktop diagnostics, never a crash; a result read must write
// back to JSON that reads again.
#include "models/jsonreader.h"
#include "models/result.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace choreo;
    const std::string text(reinterpret_cast<const char*>(data), size);
    models::Diagnostics errors;
    const auto json = models::parseDocument(text, errors);
    if (!json)
        return 0;
    const auto result = models::resultFromJson(*json, errors);
    if (!result)
        return 0;
    models::Diagnostics again;
    if (!models::resultFromJson(models::resultToJson(*result), again)) {
        std::fprintf(stderr, "fuzz: a result read does not read back: %s\n",
                     models::joinDiagnostics(again).c_str());
        std::abort();
    }
    return 0;
}
