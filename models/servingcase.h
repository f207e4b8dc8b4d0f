#pragma once
// One published serving measurement (a row of ../shared/validation/published-inference.csv, format in its
// README) as a Choreo serving scenario and the quantity to predict. The file is told from the training
// one by its columns.

#include "models/catalog.h"
#include "models/diagnostic.h"
#include "models/scenario.h"

#include <optional>
#include <string>
#include <vector>

namespace choreo::models {

// What the row's benchmark does with the requests, from its scenario column.
enum class ServingBenchmark {
    Offline, // every request queued at once: throughput
    Slo,     // MLPerf Server/Interactive: the highest Poisson rate within the p99 bounds, measured there
    Rate,    // Poisson at a fixed request rate
};

struct ServingCase {
    std::string id;
    std::string reliability;
    std::string model;
    std::string accelerator;
    std::string metric; // the CSV's metric column (output_tokens_per_s_total, ttft_ms_p99, ...)
    double measured = 0;
    ServingBenchmark benchmark = ServingBenchmark::Offline;
    std::int64_t replicas = 1; // n_accel / (tp * pp): the scenario holds one replica unless the rate is fixed
    Scenario scenario;
    std::optional<std::string> skip; // why the row cannot be simulated yet
    std::string assumption;          // what the scenario assumes beyond the row's columns
};

// The metrics a serving row may measure.
inline constexpr const char* kServingMetrics =
    "output_tokens_per_s_total, requests_per_s, ttft_ms_mean, ttft_ms_p99, tpot_ms_p99, itl_ms_mean, "
    "request_latency_ms_p99";

// Whether a validation file's header row is the serving file's (it has metric, value and output_len).
bool isServingValidationHeader(const std::string& headerLine);

// Parses the serving CSV; malformed rows become diagnostics naming the line and column. Rows whose
// framework no catalog engine answers to, whose metric is unknown, or whose lengths their dataset must
// supply and Choreo has not sourced are returned with `skip` set.
std::vector<ServingCase> parseServingCsv(const std::string& text, const Catalog& catalog,
                                         Diagnostics& errors);

// The prompt and output lengths of a benchmark's dataset, for rows that leave them to it (MLPerf's): the
// prompts' percentiles, the reference outputs' percentiles (their shape; a row's mean output scales them),
// the mean output a reference run generates, and the harness's output cap.
struct DatasetLengths {
    const char* model;   // the row's model column
    const char* dataset; // what the benchmark uses
    std::vector<LengthPercentile> input_percentiles;
    std::vector<LengthPercentile> output_percentiles;
    double mean_output_tokens;
    double max_output_tokens;
    const char* source;
};
const DatasetLengths* datasetLengthsFor(const std::string& model);

} // namespace choreo::models
