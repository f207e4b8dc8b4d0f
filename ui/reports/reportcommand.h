#pragma once

#include <string>

namespace choreo::ui {

// `choreo-sim report`: validates the scenario, runs it and its scaling sweep in workers (`workerExe
// worker --assets assetsDir`), writes the PDF to `outputPdf` and the sweep CSV next to it (.csv), and
// prints the PDF's path. `sections` is a comma-separated list of section keys (reportsections.h);
// empty means every section. Needs no display: it creates an offscreen QApplication unless one exists.
// Returns 0, 1 (an unknown section, named on stderr with the known ones), 2 (invalid scenario, diagnostics on
// stderr), 3 (the base run failed), 4 (a file could not be read or written) or 5 (internal).
int runReportCommand(int argc, char** argv, const std::string& scenarioPath, const std::string& outputPdf,
                     const std::string& workerExe, const std::string& assetsDir,
                     const std::string& sections = {});

} // namespace choreo::ui
