#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace choreo::models {

enum class Precision { Fp64, Fp32, Tf32, Bf16, Fp16, Fp8, Fp4 };

std::string toString(Precision precision);
std::optional<Precision> precisionFromString(std::string_view text);
// Bytes per element of weights and activations for training in this precision (fp8 keeps bf16 copies).
double activationBytes(Precision precision);
// fp8 and fp4 training: the GEMMs take quantised inputs; attention, element-wise work, the logits and
// activations between layers stay in bf16.
bool quantisedGemms(Precision precision);
// Bytes per element of a GEMM input cast for training in this precision: fp8 1, fp4 (NVFP4: 4-bit values
// and an 8-bit scale per 16) 0.5625; otherwise the 16-bit or wider activation itself.
double quantisedInputBytes(Precision precision);

} // namespace choreo::models
