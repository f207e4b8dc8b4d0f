#include "models/servingcase.h"

#include "models/csvrecord.h"
#include "models/jsonreader.h"
#include "models/precision.h"
#include "models/scenarioio.h"
#include "models/servestageio.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <tuple>
#include <utility>

namespace choreo::models {

namespace {

// Offline rows: enough requests that the batch stays full for most of the run (8 x the max batch), within
// bounds that keep a row's simulation to seconds. CHOREO-DEFAULT (U).
constexpr std::int64_t kOfflineBatchesQueued = 8;
constexpr std::int64_t kMinOfflineRequests = 1000;
constexpr std::int64_t kMaxOfflineRequests = 20000;
// Fixed-rate rows send this many requests unless the scenario column says. CHOREO-DEFAULT (U).
constexpr std::int64_t kRateRequests = 1000;

// The MLPerf Inference datacenter datasets' lengths, for rows that leave them to the dataset.
// - Percentiles of prompts and reference outputs: validation/dataset-percentiles.py over the per-sample token
//   counts that openshift-psap/performance-dashboard@67033bae (mlperf-data/summaries/<dataset>.csv) extracted
//   from MLCommons' dataset files.
// - Mean generated outputs: MLCommons' reference figures, mlcommons/inference@b66003e1
//   language/<model>/README.md ("Tokens per sample: 294.45"; Mixtral "tokens_per_sample: 144.84"; 405B
//   "684.68"; DeepSeek-R1 "mean-output-tok-len: 3886.2274"). Llama-3.1-8B states none: 128 is its cap.
// - Output caps: max_output_len in mlcommons/inference_results_v5.1@965182b0
//   closed/NVIDIA/code/<model>/tensorrt/generation_config.json, as in the reference implementations.
// clang-format off
const DatasetLengths kDatasets[] = {
    {"Llama-2-70B", "OpenOrca, 24,576 samples",
     {{0, 48}, {1, 56}, {5, 73}, {10, 85}, {20, 102}, {30, 117}, {40, 132}, {50, 152}, {60, 186}, {70, 232}, {80, 312}, {90, 519}, {95, 614}, {97.5, 666}, {99, 791}, {99.5, 877}, {99.9, 990}, {100, 1021}},
     {{0, 3}, {1, 4}, {5, 15}, {10, 31}, {20, 67}, {30, 102}, {40, 146}, {50, 190}, {60, 231}, {70, 276}, {80, 336}, {90, 449}, {95, 563}, {97.5, 669}, {99, 779}, {99.5, 843}, {99.9, 950}, {100, 1016}},
     294.45, 1024.0, "performance-dashboard@67033bae llama2-70b-99.csv"},
    {"Mixtral-8x7B", "OpenOrca + GSM8K + MBXP, 15,000 samples",
     {{0, 35}, {1, 54}, {5, 85}, {10, 112}, {20, 143}, {30, 168}, {40, 206}, {50, 283}, {60, 634}, {70, 652}, {80, 668}, {90, 701}, {95, 1006}, {97.5, 1280}, {99, 1561}, {99.5, 1754}, {99.9, 1862}, {100, 1948}},
     {{0, 2}, {1, 24}, {5, 35}, {10, 47}, {20, 66}, {30, 82}, {40, 97}, {50, 113}, {60, 132}, {70, 160}, {80, 201}, {90, 279}, {95, 363}, {97.5, 450}, {99, 582}, {99.5, 673}, {99.9, 1024}, {100, 1024}},
     144.84, 1024.0, "performance-dashboard@67033bae mixtral-8x7b.csv"},
    {"Llama-3.1-405B", "MLPerf 405B long-context set, 8,313 samples",
     {{0, 476}, {1, 1598}, {5, 2783}, {10, 3678}, {20, 5122}, {30, 6999}, {40, 8803}, {50, 10112}, {60, 11038}, {70, 11731}, {80, 12757}, {90, 14156}, {95, 15831}, {97.5, 17515}, {99, 18956}, {99.5, 19484}, {99.9, 19846}, {100, 19988}},
     {{0, 3}, {1, 192}, {5, 210}, {10, 217}, {20, 423}, {30, 599}, {40, 691}, {50, 753}, {60, 800}, {70, 841}, {80, 881}, {90, 974}, {95, 1048}, {97.5, 1105}, {99, 1174}, {99.5, 1219}, {99.9, 1360}, {100, 1830}},
     684.68, 2000.0, "performance-dashboard@67033bae llama3-1-405b.csv"},
    {"Llama-3.1-8B", "CNN/DailyMail, 13,368 samples",
     {{0, 79}, {1, 237}, {5, 327}, {10, 391}, {20, 497}, {30, 594}, {40, 688}, {50, 784}, {60, 898}, {70, 1025}, {80, 1206}, {90, 1479}, {95, 1750}, {97.5, 1932}, {99, 2118}, {99.5, 2217}, {99.9, 2324}, {100, 2540}},
     {{0, 13}, {1, 31}, {5, 43}, {10, 50}, {20, 54}, {30, 64}, {40, 71}, {50, 74}, {60, 84}, {70, 91}, {80, 105}, {90, 123}, {95, 140}, {97.5, 157}, {99, 180}, {99.5, 197}, {99.9, 245}, {100, 2135}},
     128.0, 128.0, "performance-dashboard@67033bae llama3-1-8b-datacenter.csv"},
    {"DeepSeek-R1", "MLPerf DeepSeek-R1 set, 4,388 samples",
     {{0, 52}, {1, 73}, {5, 100}, {10, 124}, {20, 231}, {30, 759}, {40, 865}, {50, 902}, {60, 952}, {70, 1037}, {80, 1141}, {90, 1281}, {95, 1312}, {97.5, 1345}, {99, 1432}, {99.5, 1479}, {99.9, 1682}, {100, 3140}},
     {{0, 209}, {1, 356}, {5, 502}, {10, 627}, {20, 867}, {30, 1157}, {40, 1598}, {50, 2194}, {60, 3038}, {70, 4217}, {80, 5950}, {90, 9477}, {95, 13854}, {97.5, 18216}, {99, 32768}, {99.5, 32768}, {99.9, 32768}, {100, 32768}},
     3886.2274, 20000.0, "performance-dashboard@67033bae deepseek-r1.csv"},
};
// clang-format on

std::string lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}

bool startsWith(const std::string& text, const std::string& prefix) {
    return lower(text).rfind(lower(prefix), 0) == 0;
}

// The number after the first `key` in `text` ("TTFT <= 2000 ms" with key "ttft <="), if any.
std::optional<double> numberAfter(const std::string& text, const std::string& key) {
    const std::string t = lower(text);
    const auto at = t.find(lower(key));
    if (at == std::string::npos)
        return std::nullopt;
    std::size_t i = at + key.size();
    while (i < t.size() && (t[i] == ' ' || t[i] == '='))
        ++i;
    std::size_t used = 0;
    try {
        const double v = std::stod(t.substr(i), &used);
        if (used > 0 && std::isfinite(v))
            return v;
    } catch (const std::exception&) {
    }
    return std::nullopt;
}

// The catalog engine a harness marker names anywhere in the framework column, else the one whose id or an
// alias starts it; the longest match first.
const ServingEngine* engineForFramework(const Catalog& catalog, const std::string& framework) {
    const ServingEngine* best = nullptr;
    std::size_t bestLength = 0;
    const std::string column = lower(framework);
    for (const auto& engine : catalog.engines())
        for (const auto& marker : engine.harness_markers)
            if (marker.size() > bestLength && column.find(lower(marker)) != std::string::npos) {
                best = &engine;
                bestLength = marker.size();
            }
    if (best)
        return best;
    for (const auto& engine : catalog.engines()) {
        std::vector<std::string> names = engine.aliases;
        names.push_back(engine.id);
        for (const auto& name : names)
            if (name.size() > bestLength && startsWith(framework, name)) {
                best = &engine;
                bestLength = name.size();
            }
    }
    return best;
}

// Validation measures time, not money: the costs are the shipped scenarios' (CHOREO-DEFAULT).
const Json kCosts{
    {"mode", "buy"}, {"amortisation_years", 4.0}, {"electricity_usd_per_kWh", 0.08}, {"pue", 1.3}};

// A percentile table's lengths times `scale`, at least one token and at most `cap` each.
std::vector<LengthPercentile> scaledTable(const std::vector<LengthPercentile>& table, double scale,
                                          std::int64_t cap) {
    std::vector<LengthPercentile> scaled = table;
    for (auto& point : scaled)
        point.tokens =
            std::clamp<std::int64_t>(std::llround(static_cast<double>(point.tokens) * scale), 1, cap);
    return scaled;
}

struct RowWorkload {
    ServingBenchmark benchmark = ServingBenchmark::Offline;
    std::optional<double> ttft_s, tpot_s, rate_per_s;
    std::optional<std::int64_t> requests, max_batch;
    std::string skip;
};

// A count the scenario column states after `key` ("all 20000"), refused past `limit` (a serving stage's
// own bound) before it becomes an integer.
std::optional<std::int64_t> countAfter(CsvRow& row, const std::string& scenario, const std::string& key,
                                       std::int64_t limit) {
    const auto value = numberAfter(scenario, key);
    if (!value || *value < 1)
        return std::nullopt;
    if (*value > static_cast<double>(limit)) {
        char what[160];
        std::snprintf(what, sizeof what, "the count after \"%s\" must be at most %lld, got %.6g", key.c_str(),
                      static_cast<long long>(limit), *value);
        row.error("scenario", what);
        return std::nullopt;
    }
    return static_cast<std::int64_t>(*value);
}

// The benchmark the scenario column names, with its bounds, rate, request count and fixed batch.
RowWorkload readBenchmark(CsvRow& row) {
    const std::string scenario = row.text("scenario");
    RowWorkload w;
    if (startsWith(scenario, "server") || startsWith(scenario, "interactive")) {
        w.benchmark = ServingBenchmark::Slo;
        if (auto ttft = numberAfter(scenario, "ttft <="))
            w.ttft_s = *ttft / 1000.0;
        if (auto tpot = numberAfter(scenario, "tpot <="))
            w.tpot_s = *tpot / 1000.0;
        if (!w.ttft_s && !w.tpot_s)
            w.skip = "a bound on the whole request's latency is not searched yet (only p99 TTFT and TPOT)";
    } else if (startsWith(scenario, "online, request rate")) {
        w.benchmark = ServingBenchmark::Rate;
        w.rate_per_s = numberAfter(scenario, "request rate");
        if (!w.rate_per_s || *w.rate_per_s <= 0)
            w.skip = "the scenario column gives no request rate";
    } else if (startsWith(scenario, "offline") || startsWith(scenario, "online, max-load")) {
        w.benchmark = ServingBenchmark::Offline;
    } else {
        w.skip = "unknown benchmark scenario \"" + scenario + "\"";
    }
    w.requests = countAfter(row, scenario, "all", kMaxServeRequests);
    w.max_batch = countAfter(row, scenario, "fixed batch", kMaxServeBatch);
    // Otherwise the replica's configured batch, where the source gives it (MLPerf's gpu_batch_size or
    // max_num_seqs), in place of the engine's default.
    if (!w.max_batch && !row.text("batch_or_concurrency").empty()) {
        const std::int64_t batch = row.integer("batch_or_concurrency", 1);
        if (batch < 1 || batch > kMaxServeBatch)
            row.error("batch_or_concurrency", "must be between 1 and " + std::to_string(kMaxServeBatch) +
                                                  ", got " + std::to_string(batch));
        else
            w.max_batch = batch;
    }
    return w;
}

// What a serving file's columns leave out of a model's architecture, by the model column's start (the
// releases of one architecture share it): multi-head latent attention's cached latent, and the dense
// layers and shared expert before and beside the routed ones. The file's ffn_hidden is the routed expert's.
struct ArchitectureFacts {
    std::int64_t kv_latent;
    std::int64_t dense_layers;
    std::int64_t dense_ffn_hidden;
    std::int64_t shared_experts;
};
// DeepSeek-AI 2024, DeepSeek-V3 Technical Report, arXiv:2412.19437: section 2.1.1 (d_c = 512, d_h^R = 64) and
// section 4.2 (the first three layers dense with an FFN of 18,432; one shared expert). R1 is V3's
// architecture (arXiv:2501.12948, section 2). The desktop's DeepSeek-V3 preset (assets/presets/models.json)
// gives the same shape.
constexpr ArchitectureFacts kDeepSeekV3{576, 3, 18432, 1};
const std::pair<const char*, const ArchitectureFacts*> kArchitectures[] = {
    {"DeepSeek-V3", &kDeepSeekV3},
    {"DeepSeek-R1", &kDeepSeekV3},
};

const ArchitectureFacts* architectureFor(const std::string& model) {
    for (const auto& [prefix, facts] : kArchitectures)
        if (model.rfind(prefix, 0) == 0)
            return facts;
    return nullptr;
}

Json modelJson(CsvRow& row) {
    Json model{{"name", row.text("model")},
               {"layers", row.integer("layers", 1)},
               {"hidden", row.integer("hidden", 1)},
               {"heads", row.integer("heads", 1)},
               {"kv_heads", row.integer("kv_heads", 1)},
               {"ffn_hidden", row.integer("ffn_hidden", 1)},
               {"ffn_gated", true},
               {"vocab", row.integer("vocab", 1)}};
    const auto experts = row.integer("moe_experts", 0, false);
    if (experts > 0)
        model["moe"] = {{"experts", experts},
                        {"top_k", row.integer("moe_topk", 1)},
                        {"expert_ffn_hidden", row.integer("ffn_hidden", 1)}}; // per expert (README)
    const ArchitectureFacts* facts = architectureFor(row.text("model"));
    if (const auto latent = row.integer("kv_latent", 0, false); latent > 0)
        model["kv_latent"] = latent;
    else if (facts)
        model["kv_latent"] = facts->kv_latent;
    if (facts && model.contains("moe")) {
        model["moe"]["dense_layers"] = facts->dense_layers;
        model["moe"]["shared_experts"] = facts->shared_experts;
        model["ffn_hidden"] = facts->dense_ffn_hidden;
    }
    return model;
}

// A row's request lengths (a fixed number, or a dataset's percentile table), and the longest prompt they
// can send.
struct Lengths {
    TokenLengths input, output;
    double longest_input = 0;
    const DatasetLengths* dataset = nullptr; // set when the row leaves a length to its dataset
    std::string skip;
};

// A request length the row gives, in tokens: refused outside a serve stage's bounds before it becomes an
// integer.
double tokenLength(CsvRow& row, const std::string& column) {
    const double tokens = row.number(column);
    if (tokens < 1.0 || tokens > static_cast<double>(kMaxRequestTokens)) {
        char what[120];
        std::snprintf(what, sizeof what, "must be between 1 and %lld tokens, got %.6g",
                      static_cast<long long>(kMaxRequestTokens), tokens);
        row.error(column, what);
        return 1.0;
    }
    return tokens;
}

TokenLengths fixedLength(double tokens) {
    TokenLengths l;
    l.mean = static_cast<double>(std::llround(tokens));
    return l;
}

TokenLengths tableLength(std::vector<LengthPercentile> table) {
    TokenLengths l;
    l.shape = LengthShape::Percentiles;
    l.percentiles = std::move(table);
    return l;
}

// The outputs of a row that leaves its lengths to the dataset: the reference outputs' shape, scaled until its
// mean under the harness's cap is the row's mean (else the reference run's); a mean at the cap is the cap for
// every request.
TokenLengths datasetOutputs(const DatasetLengths& d, double mean) {
    const auto cap = static_cast<std::int64_t>(d.max_output_tokens);
    if (mean >= static_cast<double>(cap))
        return fixedLength(mean);
    const auto& table = d.output_percentiles;
    double scale = mean / percentileTableMean(table);
    // The capped mean rises with the scale and stays below the cap: a few steps settle it.
    for (int step = 0; step < 20; ++step)
        scale *= mean / percentileTableMean(scaledTable(table, scale, cap));
    return tableLength(scaledTable(table, scale, cap));
}

Lengths readLengths(CsvRow& row) {
    Lengths l;
    const bool inputGiven = !row.text("input_len").empty();
    const bool outputGiven = !row.text("output_len").empty();
    if (inputGiven && outputGiven) {
        l.longest_input = tokenLength(row, "input_len");
        l.input = fixedLength(l.longest_input);
        l.output = fixedLength(tokenLength(row, "output_len"));
        return l;
    }
    l.dataset = datasetLengthsFor(row.text("model"));
    if (!l.dataset) {
        l.skip = "the row leaves its lengths to a dataset whose lengths Choreo has not sourced";
        return l;
    }
    const DatasetLengths& d = *l.dataset;
    if (inputGiven) {
        l.longest_input = tokenLength(row, "input_len");
        l.input = fixedLength(l.longest_input);
    } else {
        l.longest_input = static_cast<double>(d.input_percentiles.back().tokens);
        l.input = tableLength(d.input_percentiles);
    }
    l.output = datasetOutputs(d, outputGiven ? tokenLength(row, "output_len") : d.mean_output_tokens);
    return l;
}

// The stage's request stream: one replica's share of the offline queue or the search's seed stream, or
// the whole system's fixed-rate stream.
Json requestsJson(const RowWorkload& w, const Lengths& l, std::int64_t maxBatch, std::int64_t replicas) {
    Json requests{
        {"seed", 1}, {"input_tokens", lengthsToJson(l.input)}, {"output_tokens", lengthsToJson(l.output)}};
    if (w.benchmark == ServingBenchmark::Rate) {
        requests["arrival"] = "poisson";
        requests["rate_per_s"] = *w.rate_per_s;
        requests["count"] = w.requests.value_or(kRateRequests);
    } else if (w.benchmark == ServingBenchmark::Offline) {
        requests["arrival"] = "offline";
        requests["count"] = w.requests ? std::max<std::int64_t>(1, *w.requests / replicas)
                                       : std::clamp(kOfflineBatchesQueued * maxBatch, kMinOfflineRequests,
                                                    kMaxOfflineRequests);
    } else {
        requests["arrival"] = "offline";
        requests["count"] = kMinOfflineRequests / 5;
    }
    return requests;
}

struct RowLayout {
    std::int64_t n = 0, tp = 1, pp = 1, ep = 1;
};

void addAssumption(ServingCase& c, const std::string& what) {
    c.assumption += (c.assumption.empty() ? "" : "; ") + what;
}

Json scenarioJson(CsvRow& row, const RowLayout& at, const RowWorkload& w, const Lengths& l,
                  const ServingEngine& engine, const Catalog& catalog, ServingCase& c) {
    const std::int64_t devices = w.benchmark == ServingBenchmark::Rate ? at.n : at.tp * at.pp;
    const std::int64_t maxBatch = w.max_batch.value_or(static_cast<std::int64_t>(engine.max_batch.value));
    Json stage{{"kind", "serve"},
               {"parallel", {{"tp", at.tp}, {"pp", at.pp}, {"ep", at.ep}}},
               {"weights", row.text("precision")},
               {"engine", engine.id},
               {"requests", requestsJson(w, l, maxBatch, c.replicas)}};
    if (w.max_batch)
        stage["max_batch"] = *w.max_batch;
    // A prompt of an iteration's tokens or more is served in chunks: engines that default to whole prompts
    // (TensorRT-LLM) run such benchmarks with chunked context on. Whole, a longer one could not run at all,
    // and one of exactly the budget only in an iteration without decodes, one request at a time.
    if (!engine.chunked_prefill.value && l.longest_input >= engine.max_tokens_per_iteration.value) {
        stage["chunked_prefill"] = true;
        addAssumption(c, "chunked prefill (prompts of the engine's " +
                             std::to_string(static_cast<long long>(engine.max_tokens_per_iteration.value)) +
                             " tokens an iteration or more)");
    }
    if (w.ttft_s || w.tpot_s) {
        Json slo = Json::object();
        if (w.ttft_s)
            slo["ttft_p99_s"] = *w.ttft_s;
        if (w.tpot_s)
            slo["tpot_p99_s"] = *w.tpot_s;
        stage["slo"] = slo;
    }
    Json pool{{"name", "serving"},
              {"device", c.accelerator},
              {"count", devices},
              {"devices_per_node", std::min<std::int64_t>(devices, 8)}};
    // Validation reports no cost; a device without a catalog price still needs one to resolve.
    if (const Device* d = catalog.find(c.accelerator); d && d->buy_usd.value <= 0)
        pool["buy_usd_per_device"] = 1.0;
    return {{"format", "choreo-scenario/1"},
            {"name", c.id},
            {"cluster",
             {{"pools", Json::array({pool})},
              {"network", {{"nic_Gbps", 400.0}, {"topology", {{"kind", "fat-tree"}}}}}}},
            {"workload", {{"kind", "serve"}, {"model", modelJson(row)}, {"stages", Json::array({stage})}}},
            {"costs", kCosts}};
}

// The most accelerators a serving row may name: far above any published system, far below an overflow.
constexpr std::int64_t kMaxServingRowDevices = 1'000'000;

bool knownMetric(const std::string& metric) {
    std::istringstream known(kServingMetrics);
    std::string name;
    while (std::getline(known, name, ','))
        if (name.erase(0, name.find_first_not_of(' ')) == metric)
            return true;
    return false;
}

// The row's case: its scenario, or why it is skipped; false when the row is malformed (diagnostics).
bool describeRow(CsvRow& row, const Catalog& catalog, ServingCase& c, Diagnostics& errors) {
    const std::size_t before = errors.size();
    RowLayout at{row.integer("n_accel", 1), row.integer("tp", 1), row.integer("pp", 1), row.integer("ep", 1)};
    // Bounded before they multiply (a fuzzed row's 2.8e17 x 9216 overflowed here).
    const std::tuple<const char*, std::int64_t, std::int64_t> bounds[] = {
        {"n_accel", at.n, kMaxServingRowDevices},
        {"tp", at.tp, kMaxServeParallel},
        {"pp", at.pp, kMaxServeParallel},
        {"ep", at.ep, kMaxServeParallel}};
    for (const auto& [column, value, limit] : bounds)
        if (value > limit)
            row.error(column, "must be at most " + std::to_string(limit) + ", got " + std::to_string(value));
    if (errors.size() != before)
        return false;
    if (at.n < 1 || at.tp < 1 || at.pp < 1 || at.ep < 1 || at.n % (at.tp * at.pp) != 0)
        row.error("n_accel", "must be a positive multiple of tp x pp (" + std::to_string(at.tp * at.pp) +
                                 "), got " + std::to_string(at.n));
    c.replicas = std::max<std::int64_t>(1, at.n / std::max<std::int64_t>(1, at.tp * at.pp));
    const RowWorkload w = readBenchmark(row);
    const Lengths l = readLengths(row);
    if (errors.size() != before)
        return false;
    const ServingEngine* engine = engineForFramework(catalog, row.text("framework"));
    if (!knownMetric(c.metric))
        c.skip = "metric \"" + c.metric + "\" is not one Choreo predicts (" + kServingMetrics + ")";
    else if (!w.skip.empty())
        c.skip = w.skip;
    else if (!l.skip.empty())
        c.skip = l.skip;
    else if (!engine)
        c.skip = "no catalog serving engine answers to the framework \"" + row.text("framework") + "\"";
    if (c.skip)
        return true;
    c.benchmark = w.benchmark;
    if (l.dataset)
        addAssumption(c, std::string("lengths from the dataset's percentiles: ") + l.dataset->dataset);
    Diagnostics scenarioErrors;
    auto scenario = readScenarioDocument(scenarioJson(row, at, w, l, *engine, catalog, c), scenarioErrors);
    if (!scenario) {
        c.skip = "not a valid scenario: " + joinDiagnostics(scenarioErrors);
        return true;
    }
    c.scenario = std::move(*scenario);
    return true;
}

} // namespace

const DatasetLengths* datasetLengthsFor(const std::string& model) {
    for (const auto& d : kDatasets)
        if (model == d.model)
            return &d;
    return nullptr;
}

bool isServingValidationHeader(const std::string& headerLine) {
    const auto columns = csvColumns(headerLine);
    return columns.count("metric") && columns.count("value") && columns.count("output_len");
}

std::vector<ServingCase> parseServingCsv(const std::string& text, const Catalog& catalog,
                                         Diagnostics& errors) {
    std::vector<ServingCase> cases;
    std::istringstream in(text);
    std::string line;
    if (!std::getline(in, line) || !isServingValidationHeader(line)) {
        errors.push_back(
            {"header", "a serving validation file needs the columns metric, value and output_len"});
        return cases;
    }
    const auto columns = csvColumns(line);
    for (const char* needed : {"id", "model", "accelerator", "n_accel", "tp", "precision", "framework",
                               "scenario", "input_len", "layers", "hidden", "heads"})
        if (!columns.count(needed))
            errors.push_back({"header", std::string("missing column \"") + needed + "\""});
    if (!errors.empty())
        return cases;
    int lineNo = 1;
    while (std::getline(in, line)) {
        ++lineNo;
        if (line.empty() || line == "\r")
            continue;
        CsvRow row(columns, splitCsvRecord(line), "line " + std::to_string(lineNo), errors);
        ServingCase c;
        c.id = row.text("id");
        c.reliability = row.text("reliability");
        c.model = row.text("model");
        c.accelerator = row.text("accelerator");
        c.metric = row.text("metric");
        c.measured = row.number("value");
        if (c.measured <= 0 && !row.text("value").empty())
            row.error("value", "must be a positive number, got \"" + row.text("value") + "\"");
        if (describeRow(row, catalog, c, errors))
            cases.push_back(std::move(c));
    }
    return cases;
}

} // namespace choreo::models
