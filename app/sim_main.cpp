// choreo-sim: the headless front end and the desktop program's simulation worker. Its commands live in
// app/cli/, one file each; this file only lists them. It links no Qt: reports and charts are drawn by
// choreo-report, the program beside it.

#include "app/cli/command.h"
#include "app/cli/common.h"

int main(int argc, char** argv) {
    using namespace choreo::cli;
    const Program program{
        "choreo-sim",
        CHOREO_VERSION,
        "Runs a scenario, validates against published runs, measures this machine, writes a report, or "
        "serves one simulation as the desktop program's worker (docs/protocol.md).",
        {&kRunCommand, &kPlanCommand, &kMergeCommand, &kValidateCommand, &kAccuracyCommand, &kReportCommand,
         &kBenchCommand, &kCalibrateCommand, &kFieldsCommand, &kCatalogCommand, &kWorkerCommand},
        {&kAssetsOption}};
    return dispatch(program, argc, argv);
}
