#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace choreo::models {

// Int8 and Int4: integer matrix engines (TPU int8 training with AQT; weight-only int4 in serving).
enum class Precision { Fp64, Fp32, Tf32, Bf16, Fp16, Fp8, Fp4, Int8, Int4 };

std::string toString(Precision precision);
std::optional<Precision> precisionFromString(std::string_view text);
// Bytes per element of weights and activations for training in this precision (fp8 keeps bf16 copies).
double activationBytes(Precision precision);
// fp8, fp4 and int8 training: the GEMMs take quantised inputs; attention, element-wise work, the logits and
// activations between layers stay in bf16.
bool quantisedGemms(Precision precision);
// Bytes per element of a GEMM input cast for training in this precision: fp8 and int8 1, fp4 (NVFP4: 4-bit
// values and an 8-bit scale per 16) 0.5625; otherwise the 16-bit or wider activation itself.
double quantisedInputBytes(Precision precision);
// Bytes of one stored element (a weight or a KV-cache entry) in this precision: fp8 and int8 1, fp4 and int4
// 0.5 (scales not counted), 16-bit types 2, fp32 and tf32 4, fp64 8.
double storageBytes(Precision precision);

} // namespace choreo::models
