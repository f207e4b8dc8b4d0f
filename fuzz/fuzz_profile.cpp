// The calibration profile reader, on any bytes: profiles are files measured elsewhere and copied in. A
// profile read must write back to text that reads to the same profile.
#include "models/profile.h"

#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/fuzzsupport.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace choreo;
    const std::string text(reinterpret_cast<const char*>(data), size);
    models::Diagnostics errors;
    const auto profile = models::parseProfile(text, errors);
    if (!profile)
        return 0;
    models::Diagnostics again;
    if (!models::parseProfile(models::serializeProfile(*profile), again))
        fuzz::broken("a profile read does not read back from its own text: " +
                     models::joinDiagnostics(again));
    return 0;
}
