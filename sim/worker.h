#pragma once

#include "models/catalog.h"

#include <iosfwd>

namespace choreo::sim {

// Speaks docs/protocol.md: writes hello, reads one request from `in` until end of input, simulates
// and writes progress lines and one result or error line to `out`. Returns the exit code.
int runWorker(std::istream& in, std::ostream& out, const models::Catalog* catalog,
              const std::string& catalogError);

} // namespace choreo::sim
