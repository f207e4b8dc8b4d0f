// The validation CSV readers (training runs and serving measurements), on any bytes: rows pasted from
// spreadsheets, files in other encodings. Every input ends in cases or diagnostics naming line and column.
#include "models/servingcase.h"
#include "models/validationcase.h"

#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/fuzzsupport.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace choreo;
    const std::string text(reinterpret_cast<const char*>(data), size);
    models::Diagnostics errors;
    const auto training = models::parseValidationCsv(text, errors);
    for (const auto& c : training)
        if (!(c.measured_step_time_s > 0.0))
            fuzz::broken("a training case was read with a measured step time that is not positive");
    models::Diagnostics servingErrors;
    (void)models::parseServingCsv(text, fuzz::catalog(), servingErrors);
    return 0;
}
