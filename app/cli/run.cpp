#include "app/cli/common.h"
#include "models/calibration.h"
#include "models/exitcodes.h"
#include "models/resolved.h"
#include "models/result.h"
#include "models/scenarioio.h"

#include <cstdio>
#include <iostream>

namespace choreo::cli {

namespace {

namespace fs = std::filesystem;

std::string fmt(const char* format, double value) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, format, value);
    return buffer;
}

// The whole run with failures: spread, goodput, checkpoints, interruptions.
void printWholeRun(const models::WholeRun& w) {
    constexpr double day = 86400.0;
    std::cout << "  with failures     " << fmt("p10 %.1f, ", w.p10_s / day)
              << fmt("p50 %.1f, ", w.p50_s / day) << fmt("p90 %.1f days", w.p90_s / day)
              << fmt(" (ideal %.1f; ", w.ideal_s / day) << fmt("expected %.1f); ", w.expected_s / day)
              << fmt("goodput %.1f %%", 100.0 * w.goodput()) << "\n"
              << "  interruptions     " << fmt("%.0f expected", w.interruptions_expected)
              << fmt(", one every %.1f h", w.mtbf_s / 3600.0) << fmt("; %.0f s to recover", w.recovery_s)
              << "\n"
              << "  failure profile   " << w.profile << "; " << w.note << "\n"
              << "  checkpoints       " << fmt("%.0f GB", w.checkpoint_GB)
              << fmt(" every %.0f s", w.checkpoint_interval_s)
              << (w.interval_from_rule ? " (Young/Daly)" : " (as set)")
              << fmt(", %.1f s to write", w.checkpoint_write_s) << fmt(", %.1f s stall", w.checkpoint_stall_s)
              << "\n"
              << "  failures cost     " << fmt("$%.0f", w.lost_cost_usd)
              << fmt(" and %.1f MWh", w.lost_energy_kWh / 1e3)
              << fmt(" (%.1f days of redone work, ", w.lost_work_s / day)
              << fmt("%.1f of recoveries, ", w.recovery_total_s / day)
              << fmt("%.1f of checkpoint stalls)", w.checkpoint_total_s / day) << "\n";
}

// Each pool's work, busy fraction and cost, the data stage's pace, and the stage that limits the step.
void printPools(const models::RunResult& r) {
    for (const auto& pool : r.pools) {
        std::string stages;
        for (const auto& stage : pool.stages)
            stages += (stages.empty() ? "" : " + ") + stage;
        std::cout << "pool " << pool.name
                  << std::string(pool.name.size() < 15 ? 15 - pool.name.size() : 1, ' ') << pool.count
                  << " x " << pool.device << ": " << (stages.empty() ? "idle" : stages)
                  << fmt(", busy %.0f %%", 100.0 * pool.utilisation) << fmt(", %.4g kWh", pool.energy_kWh)
                  << fmt(", $%.0f", pool.cost_usd);
        if (pool.power_limit_W)
            std::cout << fmt(", limited to %.0f W", *pool.power_limit_W)
                      << fmt(" (compute clock %.0f %%)", 100.0 * pool.clock_fraction);
        std::cout << "\n";
    }
    if (r.data_stage)
        std::cout << "data stage          " << fmt("%.3f s a batch", r.data_stage->stage_s())
                  << "  (storage reads " << fmt("%.3f", r.data_stage->read_s) << ", preprocessing "
                  << fmt("%.3f", r.data_stage->preprocess_s)
                  << (r.data_stage->loader_bound ? " at the loaders' ceiling" : "") << ", delivery "
                  << fmt("%.3f", r.data_stage->deliver_s) << "; "
                  << (r.data_stage->simulated ? "flows beside the step" : "closed form") << ")\n";
    for (const auto& o : r.offload)
        std::cout << "offload " << o.target
                  << std::string(o.target.size() < 12 ? 12 - o.target.size() : 1, ' ') << "on " << o.pool
                  << " over the " << o.link << fmt(" (%.3g GB/s per device)", o.link_GBps)
                  << fmt(": %.4g GB a step", o.bytes_per_step / 1e9) << fmt(", busy %.3f s; ", o.busy_s)
                  << (o.simulated ? "flows beside the step's traffic\n" : "closed form\n");
    if (r.eval)
        std::cout << "eval stage          " << fmt("%.3f s a forward pass", r.eval->forward_s)
                  << (r.eval->weights_s > 0.0 ? fmt(" after a %.3f s weight copy", r.eval->weights_s)
                                              : std::string())
                  << (r.eval->per_step_s > 0.0 ? fmt("; %.4f s a training step", r.eval->per_step_s)
                                               : std::string("; its own pool, beside the training"))
                  << (r.eval->busy_per_step_s > r.step_time_s
                          ? std::string(": it falls behind, each evaluation outlasting the steps between two")
                          : std::string())
                  << "; closed form\n";
    const auto& b = r.bottleneck;
    if (b.stage.empty())
        return;
    std::cout << "bottleneck          " << b.stage << " on " << b.pool
              << (b.detail.empty() ? "" : " (" + b.detail + ")")
              << (b.step_time_without_s > 0.0
                      ? fmt(": without it a step would take %.3f s", b.step_time_without_s)
                      : std::string(": no other stage sets a pace"))
              << "\n";
}

// "announced           rubin's ... were only announced; ..." when the run used such figures, else nothing.
std::string announcedLine(const models::RunResult& r) {
    return r.announced.empty() ? std::string() : "announced           " + r.announced + "\n";
}

void printText(const models::RunResult& r) {
    std::cout << "scenario            " << r.scenario << "\n"
              << "devices             " << r.devices << " x " << r.device << "\n"
              << "fidelity            " << r.fidelity << "\n"
              << "calibration         " << r.calibration << "\n"
              << "accuracy            " << r.accuracy << "\n"
              << announcedLine(r)
              << (r.framework.empty() ? std::string() : "framework           " + r.framework + "\n")
              << "step time           " << fmt("%.3f s", r.step_time_s) << "  (compute "
              << fmt("%.3f", r.breakdown.compute_s) << ", exposed communication "
              << fmt("%.3f", r.breakdown.exposed_communication_s) << ", pipeline bubble "
              << fmt("%.3f", r.breakdown.pipeline_bubble_s)
              << (r.breakdown.data_wait_s > 0.0 ? fmt(", waiting for data %.3f", r.breakdown.data_wait_s)
                                                : std::string())
              << (r.breakdown.eval_s > 0.0 ? fmt(", evaluation %.3f", r.breakdown.eval_s) : std::string())
              << ")\n";
    if (const auto& cs = r.compute_split; cs.total() > 0) {
        std::cout << "compute by kind     " << fmt("GEMM %.3f s", cs.gemm_s)
                  << fmt(", attention %.3f", cs.attention_s) << fmt(", memory-bound %.3f", cs.memory_bound_s)
                  << fmt(", optimizer %.3f", cs.optimizer_s)
                  << (cs.offload_wait_s > 0.0 ? fmt(", offload wait %.3f", cs.offload_wait_s) : std::string())
                  << "  (pipeline stage " << cs.stage << ", the busiest; from the step model)\n";
        // What that stage's device waits for besides its own computation, as simulated: the exposed part
        // of each kind of communication and the pipeline's idle time (its timeline's totals, which the
        // size bound does not fold). The step line's split is the critical path's, which may run on
        // another stage.
        for (const auto& st : r.timeline.stages) {
            if (st.stage != cs.stage)
                continue;
            using models::ActivityKind;
            std::cout << "waiting by kind     "
                      << fmt("tensor, context and expert collectives %.3f s",
                             st.total_s(ActivityKind::TensorComm))
                      << fmt(", data-parallel %.3f", st.total_s(ActivityKind::DataComm))
                      << fmt(", pipeline transfers %.3f", st.total_s(ActivityKind::PipelineComm))
                      << fmt(", bubble %.3f", st.total_s(ActivityKind::Bubble)) << "  (pipeline stage "
                      << st.stage << ", from its timeline)\n";
        }
    }
    std::cout << "throughput          " << fmt("%.0f tokens/s", r.tokens_per_s) << "\n"
              << "MFU                 " << fmt("%.1f %%", 100.0 * r.mfu) << "  ("
              << fmt("%.0f TFLOP/s per device", r.achieved_tflops_per_device) << ")\n"
              << "time to train       " << fmt("%.1f days", r.time_to_train_s / 86400.0) << "  ("
              << fmt("%.0f steps", r.steps) << (r.whole_run ? "; the median run with failures)\n" : ")\n");
    if (r.whole_run)
        printWholeRun(*r.whole_run);
    if (const auto& site = r.site_power)
        std::cout << "site power          " << fmt("%.2f MW", site->peak_MW) << " at rated power, cap "
                  << fmt("%.2f MW", site->cap_MW)
                  << (site->fits ? ": fits\n"
                                 : ": does not fit; " + std::to_string(site->devices_that_fit) + " of the " +
                                       std::to_string(r.devices) + " " + r.device + " do\n");
    std::cout << "energy              "
              << (r.energy_kWh < 10'000.0 ? fmt("%.2f MWh", r.energy_kWh / 1000.0)
                                          : fmt("%.0f MWh", r.energy_kWh / 1000.0))
              << " at the facility\n"
              << "average power       " << fmt("%.0f kW", r.average_power_kW) << " (IT "
              << fmt("%.0f kW", r.it_power_kW) << ")\n"
              << "cost                " << fmt("$%.0f", r.cost_usd) << " (" << r.cost_mode
              << (r.provider.empty() ? std::string() : ", " + r.provider) << ")\n"
              << "memory per device   " << fmt("%.1f GB", r.memory_per_device_GB) << "  ("
              << r.memory.describe() << ")\n";
    printPools(r);
    const auto& t = r.topology;
    std::cout << "network             " << t.kind
              << (t.tiers > 0 ? ", " + std::to_string(t.tiers) + " tiers" : "") << ", scale-up " << t.scale_up
              << ": bisection " << fmt("%.0f GB/s", t.bisection_GBps) << ", diameter " << t.diameter_hops
              << " hops, " << t.switches << " switches + " << t.scale_up_switches << " scale-up, " << t.nics
              << " NICs, " << t.cables << " cables + " << t.scale_up_links << " scale-up links\n";
}

std::string percentiles(const models::Percentiles& p, double scale, const char* unit) {
    char b[160];
    std::snprintf(b, sizeof b, "p50 %.4g, p90 %.4g, p99 %.4g %s (mean %.4g)", p.p50 * scale, p.p90 * scale,
                  p.p99 * scale, unit, p.mean * scale);
    return b;
}

// The replicas, their memory, the stream's latencies and load, the SLO search, and cost and energy a token.
void printServingDetail(const models::ServingResult& s) {
    const auto& m = s.stream;
    for (const auto& load : m.loads)
        std::cout << "replicas " << load.role
                  << std::string(load.role.size() < 11 ? 11 - load.role.size() : 1, ' ') << load.replicas
                  << " x " << load.devices / std::max<std::int64_t>(1, load.replicas) << " devices"
                  << fmt(", busy %.0f %%", 100.0 * load.busy_fraction)
                  << fmt(", mean batch %.1f", load.mean_batch) << ", KV cache " << load.kv_tokens_per_replica
                  << fmt(" tokens a replica (peak %.0f %% used)", 100.0 * load.kv_peak_fraction) << "\n";
    std::cout << "memory per device   " << fmt("weights %.1f GB", s.weights_GB_per_device)
              << fmt(", KV cache %.1f GB", s.kv_GB_per_device) << " (" << s.weights << " weights, "
              << s.kv_cache << " cache, engine " << s.engine << ")\n"
              << "stream              " << m.requests << " requests over " << fmt("%.1f s", m.span_s) << " ("
              << m.completed << " completed, " << m.rejected << " rejected, " << m.preemptions
              << " preemptions)\n"
              << "throughput          " << fmt("%.0f output tokens/s", s.output_tokens_per_s)
              << fmt(", %.3g requests/s", s.requests_per_s) << fmt(" (%.3g within the SLOs)", s.goodput_rps)
              << "\n"
              << "time to first token " << percentiles(m.ttft_s, 1e3, "ms") << "\n"
              << "time per token      " << percentiles(m.tpot_s, 1e3, "ms") << "\n"
              << "end to end          " << percentiles(m.e2e_s, 1.0, "s") << "\n"
              << "queueing            " << percentiles(m.queue_s, 1e3, "ms") << "\n"
              << "in the system       " << fmt("%.2f requests on average", m.mean_in_system) << "\n";
    if (m.kv_transferred_GB > 0)
        std::cout << "KV transfers        " << fmt("%.3g GB", m.kv_transferred_GB) << ", "
                  << percentiles(m.kv_transfer_s, 1e3, "ms") << "\n";
    if (s.search.searched)
        std::cout << "SLO                 " << s.search.verdict << " (" << s.search.probes
                  << " simulations)\n";
    if (s.devices_for_target)
        std::cout << "target rate         " << fmt("%.4g requests/s", *s.target_rate_rps) << " needs "
                  << *s.replicas_for_target << " replicas, " << *s.devices_for_target << " devices\n";
    std::cout << "cost a token        " << fmt("$%.4g per million output tokens", s.usd_per_million_tokens)
              << (s.usd_per_million_tokens_rent ? fmt(" (rent %.4g", *s.usd_per_million_tokens_rent)
                                                : std::string(" (rent unpriced"))
              << (s.usd_per_million_tokens_buy ? fmt(", buy %.4g)", *s.usd_per_million_tokens_buy)
                                               : std::string(", buy unpriced)"))
              << fmt(", $%.0f an hour", s.usd_per_hour) << "\n"
              << "energy a token      " << fmt("%.3g J at the facility", s.joules_per_token)
              << fmt(", average power %.1f kW", s.average_power_kW) << "\n";
    if (s.horizon_months > 0)
        std::cout << "serving horizon     " << fmt("%.0f months: ", s.horizon_months)
                  << fmt("$%.0f, ", s.horizon_serving_usd) << fmt("%.1f MWh", s.horizon_serving_MWh) << "\n";
}

// Train here, serve there: the training's cost and energy and the serving's over its horizon, together.
void printTrainAndServe(const models::RunResult& r) {
    const models::ServingResult& s = *r.serving;
    if (s.horizon_months <= 0)
        return;
    std::cout << "train and serve     " << fmt("$%.0f", r.cost_usd + s.horizon_serving_usd)
              << fmt(" (training $%.0f", r.cost_usd) << fmt(" + %.0f months of serving ", s.horizon_months)
              << fmt("$%.0f)", s.horizon_serving_usd)
              << fmt(", %.1f MWh", r.energy_kWh / 1e3 + s.horizon_serving_MWh) << "\n";
}

// "8 x h100-sxm + 8 x h200-sxm": every pool, as a serving result may use several.
std::string poolDevices(const models::RunResult& r) {
    if (r.pools.empty())
        return std::to_string(r.devices) + " x " + r.device;
    std::string out;
    for (const auto& p : r.pools)
        out += (out.empty() ? "" : " + ") + std::to_string(p.count) + " x " + p.device;
    return out;
}

void printServingText(const models::RunResult& r) {
    std::cout << "scenario            " << r.scenario << "\n"
              << "devices             " << poolDevices(r) << "\n"
              << "fidelity            " << r.fidelity << "\n"
              << "calibration         " << r.calibration << "\n"
              << "accuracy            " << r.accuracy << "\n"
              << announcedLine(r);
    printServingDetail(*r.serving);
    printPools(r);
}

// The scenario of `file` with the --set overrides and `extra`, resolved and calibrated; on failure the
// diagnostics are printed and `exit` holds the exit code.
std::optional<models::ResolvedScenario> loadResolved(const Invocation& call, const models::Catalog& catalog,
                                                     const std::vector<std::string>& extra, int& exit) {
    const std::string& file = call.positional[0];
    models::Diagnostics errors;
    std::vector<models::FieldOverride> overrides = setOverrides(call);
    for (const auto& assignment : extra) {
        std::string error;
        auto o = models::parseFieldOverride(assignment, error);
        if (!o) {
            std::cerr << "choreo-sim: --sweep " << assignment << ": " << error << "\n";
            exit = kExitUsage;
            return std::nullopt;
        }
        overrides.push_back(*o);
    }
    auto scenario = models::loadScenarioFile(file, errors, overrides);
    if (!scenario) {
        printDiagnostics(file, errors);
        exit = scenarioLoadExit(errors);
        return std::nullopt;
    }
    auto resolved = models::resolveScenario(*scenario, catalog, errors);
    // A calibration profile is looked up next to the scenario, then in the assets.
    if (resolved && !models::applyScenarioCalibration(
                        *resolved, {fs::absolute(file).parent_path(), call.assets / "calibration"}, errors))
        resolved.reset();
    // A trace stream's file is relative to the scenario.
    if (resolved && resolved->serving &&
        !models::applyServingTrace(*resolved->serving, fs::absolute(file).parent_path(), errors))
        resolved.reset();
    if (!resolved) {
        printDiagnostics(file + (extra.empty() ? "" : " (" + extra.front() + ")"), errors);
        exit = kExitInvalidInput;
    }
    return resolved;
}

// Simulates; nullopt (with the message printed, `exit` set) when the simulation fails.
std::optional<models::RunResult> simulate(const Invocation& call, const models::ResolvedScenario& resolved,
                                          int& exit) {
    sim::SimulationOptions options;
    options.fidelity = fidelityOf(call);
    try {
        auto result = sim::runScenario(resolved, options);
        if (const std::string unphysical = models::unphysicalQuantity(result); !unphysical.empty()) {
            std::cerr << "choreo-sim: simulation failed: " << unphysical << " for " << call.positional[0]
                      << " (a value of the scenario is far outside what hardware allows)\n";
            exit = kExitSimulationFailed;
            return std::nullopt;
        }
        return result;
    } catch (const std::exception& e) {
        std::cerr << "choreo-sim: simulation failed: " << e.what() << "\n";
        exit = kExitSimulationFailed;
        return std::nullopt;
    }
}

// --sweep PATH=V1,V2,...: one run per value, one line each (or a JSON array of results).
int sweep(const Invocation& call, const models::Catalog& catalog) {
    const std::string spec = *call.value("--sweep");
    const std::size_t equals = spec.find('=');
    const std::string path = spec.substr(0, equals);
    std::vector<std::string> values;
    for (std::size_t start = equals + 1; start <= spec.size();) {
        const std::size_t comma = std::min(spec.find(',', start), spec.size());
        values.push_back(spec.substr(start, comma - start));
        start = comma + 1;
    }
    // Every value is checked before any runs: an invalid one is named (all of them are) and nothing is
    // simulated, rather than half a sweep printed before the error.
    std::vector<models::ResolvedScenario> points;
    int invalid = kExitOk;
    for (const auto& value : values) {
        int exit = kExitOk;
        if (auto resolved = loadResolved(call, catalog, {path + "=" + value}, exit))
            points.push_back(std::move(*resolved));
        else if (invalid == kExitOk)
            invalid = exit;
    }
    if (invalid != kExitOk)
        return invalid;
    models::Json results = models::Json::array();
    if (!call.has("--json"))
        std::cout << path << "  step_s  tokens/s  cost_usd  bottleneck\n";
    for (std::size_t i = 0; i < values.size(); ++i) {
        const std::string& value = values[i];
        int exit = kExitOk;
        auto result = simulate(call, points[i], exit);
        if (!result)
            return exit;
        if (call.has("--json")) {
            results.push_back(models::Json{{"value", value}, {"result", models::resultToJson(*result)}});
            continue;
        }
        std::cout << value << fmt("  %.3f", result->step_time_s) << fmt("  %.0f", result->tokens_per_s)
                  << fmt("  %.0f", result->cost_usd) << "  " << result->bottleneck.stage << " on "
                  << result->bottleneck.pool << "\n";
    }
    if (call.has("--json"))
        std::cout << results.dump(2) << "\n";
    return kExitOk;
}

int run(const Invocation& call) {
    if (call.positional.size() != 1)
        return usageError(call, "run needs exactly one SCENARIO file");
    auto catalog = loadCatalogOrSay(call.assets);
    if (!catalog)
        return kExitIo;
    if (call.has("--sweep"))
        return sweep(call, *catalog);
    int exit = kExitOk;
    auto resolved = loadResolved(call, *catalog, {}, exit);
    if (!resolved)
        return exit;
    auto result = simulate(call, *resolved, exit);
    if (!result)
        return exit;
    if (call.has("--json"))
        std::cout << models::resultToJson(*result).dump(2) << "\n";
    else if (result->serving && result->kind == "serve")
        printServingText(*result);
    else {
        printText(*result);
        if (result->serving) {
            std::cout << "-- serving beside the training --\n";
            printServingDetail(*result->serving);
            printTrainAndServe(*result);
        }
    }
    return kExitOk;
}

} // namespace

const Option kSetOption{
    "--set",
    "PATH=VALUE",
    "Overrides one field of the scenario by its JSON path before it is read, e.g. cluster.pools[0].count=256 "
    "or workload.recompute=full; VALUE is JSON, and a bare word is a string. Repeatable. The scenario's own "
    "checks apply, with the same messages",
    "PATH=VALUE (e.g. workload.micro_batch=2)",
    {},
    [](const std::string& value) {
        std::string error;
        return models::parseFieldOverride(value, error) ? std::string() : error;
    },
    true};

const Option kSweepOption{
    "--sweep",
    "PATH=V1,V2,...",
    "Runs the scenario once per value of one field, e.g. cluster.pools[1].count=2,4,8,16 to see whether more "
    "CPUs for the data stage pay off; prints step time, tokens/s, cost and the bottleneck per value (with "
    "--json, an array of results). Every value is checked first: one the scenario refuses is named and "
    "nothing runs",
    "PATH=V1,V2,... (e.g. cluster.pools[1].count=2,4,8)",
    {},
    [](const std::string& value) {
        const std::size_t equals = value.find('=');
        if (equals == std::string::npos || equals == 0 || equals + 1 == value.size())
            return std::string("expected PATH=V1,V2,...");
        std::string error;
        return models::parseFieldOverride(value.substr(0, value.find(',')), error) ? std::string() : error;
    },
    false};

const Command kRunCommand{
    "run",
    "SCENARIO",
    "Simulate one training step of SCENARIO (a choreo-scenario/1 JSON file) and print step time, "
    "throughput, MFU, time to train, energy, power, cost and memory.",
    {&kJsonOption, &kFidelityOption, &kSetOption, &kSweepOption},
    run};

} // namespace choreo::cli
