#pragma once
// Shared by the libFuzzer harnesses: the shipped catalog, loaded once, and a way to stop on a broken
// invariant that a sanitizer would not see.

#include "models/catalog.h"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace choreo::fuzz {

// The catalog of CHOREO_FUZZ_ASSETS (the checkout's assets), loaded on first use; aborts when it cannot be.
inline const models::Catalog& catalog() {
    static const models::Catalog loaded = [] {
        models::Diagnostics errors;
        auto c = models::Catalog::load(std::string(CHOREO_FUZZ_ASSETS) + "/catalog", errors);
        if (!c) {
            std::fprintf(stderr, "fuzz: the catalog could not be loaded: %s\n",
                         models::joinDiagnostics(errors).c_str());
            std::abort();
        }
        return std::move(*c);
    }();
    return loaded;
}

// A finding: prints what broke and aborts, so that libFuzzer saves the input.
[[noreturn]] inline void broken(const std::string& what) {
    std::fprintf(stderr, "fuzz: invariant broken: %s\n", what.c_str());
    std::abort();
}

} // namespace choreo::fuzz
