#pragma once

// What several of choreo-sim's commands share: their common options and the catalog.

#include "app/cli/command.h"
#include "models/catalog.h"
#include "models/diagnostic.h"
#include "models/fieldoverride.h"
#include "models/validationcase.h"
#include "sim/simulator.h"

#include <optional>
#include <string>

namespace choreo::cli {

extern const Option kAssetsOption;   // --assets DIR: every command
extern const Option kJsonOption;     // --json
extern const Option kFidelityOption; // --fidelity analytical|flow|packet
extern const Option kJobsOption;     // --jobs N
extern const Option kJoinOption;     // --join CSV: columns a validation file lacks, by row id
extern const Option kOutOption;      // --out FILE (-o, --output)
extern const Option kSetOption;      // --set PATH=VALUE: run

sim::Fidelity fidelityOf(const Invocation& call); // flow unless --fidelity says otherwise
int jobsOf(const Invocation& call);               // --jobs, or the number of CPUs

// The catalog under the assets folder, or nullopt with what went wrong in `error`.
std::optional<models::Catalog> loadCatalog(const std::filesystem::path& assets, std::string& error);
// The catalog, or nullopt after saying why on standard error.
std::optional<models::Catalog> loadCatalogOrSay(const std::filesystem::path& assets);

void printDiagnostics(const std::string& file, const models::Diagnostics& errors);

// The --set overrides of `call` (each checked as it was read).
std::vector<models::FieldOverride> setOverrides(const Invocation& call);
// The exit code of a scenario file that did not load with `errors`: a file error, else invalid input.
int scenarioLoadExit(const models::Diagnostics& errors);

// Adds the columns of the --join file, when given, to the validation CSV `text` read from `file`; kExitOk,
// or the exit code after saying what is wrong.
int joinColumns(const Invocation& call, const std::string& file, std::string& text);
// Reads a validation CSV, with the --join file's columns, into `text` and `cases`; kExitOk, or the exit code
// after saying what is wrong.
int readValidationFile(const Invocation& call, const std::string& file, std::string& text,
                       std::vector<models::ValidationCase>& cases);
// Parses a training validation CSV's `text` (read from `file`) into `cases`; kExitOk, or kExitInvalidInput
// after saying what is wrong.
int parseValidationText(const std::string& file, const std::string& text,
                        std::vector<models::ValidationCase>& cases);

// The program's commands (one file each under app/cli/).
extern const Command kRunCommand;
extern const Command kValidateCommand;
extern const Command kAccuracyCommand;
extern const Command kReportCommand;
extern const Command kBenchCommand;
extern const Command kCatalogCommand;
extern const Command kCalibrateCommand;
extern const Command kWorkerCommand;
extern const Command kFieldsCommand;
extern const Command kPlanCommand;
extern const Command kMergeCommand;

} // namespace choreo::cli
