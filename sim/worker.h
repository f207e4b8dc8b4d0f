#pragma once

#include "models/catalog.h"

#include <filesystem>
#include <iosfwd>
#include <vector>

namespace choreo::sim {

// Speaks docs/protocol.md: writes hello, reads one request from `in` until end of input, simulates
// and writes progress lines and one result or error line to `out`. Returns the exit code. A scenario's
// calibration profile is looked up in the request's "scenario_dir", then in `profileFolders`.
int runWorker(std::istream& in, std::ostream& out, const models::Catalog* catalog,
              const std::string& catalogError, const std::vector<std::filesystem::path>& profileFolders = {});

} // namespace choreo::sim
