#include "models/precision.h"

namespace choreo::models {

std::string toString(Precision precision) {
    switch (precision) {
    case Precision::Fp64:
        return "fp64";
    case Precision::Fp32:
        return "fp32";
    case Precision::Tf32:
        return "tf32";
    case Precision::Bf16:
        return "bf16";
    case Precision::Fp16:
        return "fp16";
    case Precision::Fp8:
        return "fp8";
    case Precision::Fp4:
        return "fp4";
    case Precision::Int8:
        return "int8";
    case Precision::Int4:
        return "int4";
    }
    return "unknown";
}

std::optional<Precision> precisionFromString(std::string_view text) {
    for (auto p : {Precision::Fp64, Precision::Fp32, Precision::Tf32, Precision::Bf16, Precision::Fp16,
                   Precision::Fp8, Precision::Fp4, Precision::Int8, Precision::Int4})
        if (toString(p) == text)
            return p;
    return std::nullopt;
}

double activationBytes(Precision precision) {
    switch (precision) {
    case Precision::Fp64:
        return 8.0;
    case Precision::Fp32:
    case Precision::Tf32:
        return 4.0;
    default:
        return 2.0; // bf16/fp16, and fp8/fp4 training keeps 16-bit activations between layers
    }
}

double quantisedInputBytes(Precision precision) {
    switch (precision) {
    case Precision::Fp8:
    case Precision::Int8:
        return 1.0;
    case Precision::Fp4:
        return 0.5 + 1.0 / 16.0;
    default:
        return activationBytes(precision);
    }
}

bool quantisedGemms(Precision precision) {
    return precision == Precision::Fp8 || precision == Precision::Fp4 || precision == Precision::Int8;
}

double storageBytes(Precision precision) {
    switch (precision) {
    case Precision::Fp8:
    case Precision::Int8:
        return 1.0;
    case Precision::Fp4:
    case Precision::Int4:
        return 0.5;
    case Precision::Bf16:
    case Precision::Fp16:
        return 2.0;
    case Precision::Fp32:
    case Precision::Tf32:
        return 4.0;
    case Precision::Fp64:
        return 8.0;
    }
    return 2.0;
}

} // namespace choreo::models
