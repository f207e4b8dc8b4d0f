#include "sim/bench.h"

#include "models/resolved.h"
#include "models/scenarioio.h"
#include "sim/analytical.h"
#include "sim/engine.h"
#include "sim/isolate.h"
#include "sim/plan.h"
#include "sim/platform.h"
#include "sim/serving.h"
#include "sim/simulator.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <stdexcept>

namespace choreo::sim {

namespace {

// Llama 3 405B (126 layers, hidden 16384, 128 heads, 8 KV heads, FFN 53248 gated, vocab 128256, seq 8192)
// on `devices` H100 at tp 8, pipeline and data parallelism as given, global batch 2048.
models::Scenario llama405b(std::int64_t devices, std::int64_t pp, std::int64_t dp) {
    models::Scenario s;
    s.name = "Llama-3 405B on " + std::to_string(devices) + " H100";
    s.cluster.pools.push_back({"gpus", "h100-sxm", devices, std::min<std::int64_t>(8, devices)});
    s.cluster.network.nic_Gbps = 400.0;
    auto& w = s.workload;
    w.model = {"Llama-3 405B", 126, 16384, 128, 8, 53248, true, 128256, 8192, std::nullopt};
    w.global_batch = 2048;
    w.micro_batch = 1;
    w.tokens_to_train = 15e12;
    w.precision = models::Precision::Bf16;
    w.parallel = {
        .tp = std::min<std::int64_t>(8, devices), .pp = pp, .dp = dp, .sequence_parallel = true, .zero = 1};
    w.recompute = models::Recompute::Full;
    return s;
}

// Llama 3 405B on 16,384 H100 in the flow cases' layouts, by name.
std::vector<std::pair<std::string, models::Scenario>> flowLayouts() {
    models::Scenario fsdp = llama405b(16384, 16, 128);
    fsdp.workload.parallel.zero = 3;
    models::Scenario context = llama405b(16384, 16, 64);
    context.workload.parallel.cp = 2;
    return {{"Llama-3 405B step, tp8 pp16 dp128", llama405b(16384, 16, 128)},
            {"405B fully sharded (ZeRO-3), tp8 pp16 dp128", fsdp},
            {"405B context parallel, tp8 cp2 pp16 dp64", context}};
}

// Llama 3 405B on `devices` GPUs, fed by a data stage on a quarter as many CPU sockets that tokenise the text
// it reads from the parallel file system (a hybrid cluster: issue 28's scale target).
models::Scenario llama405bWithDataPool(std::int64_t devices = 16384) {
    models::Scenario s = llama405b(devices, 16, devices / 128);
    s.cluster.pools.push_back(models::Pool{"prep", "epyc-9654", devices / 4, 2});
    models::DataStage data;
    data.pool = "prep";
    data.storage = "parallel-fs";
    s.workload.data = data;
    return s;
}

// Serving Llama-3.1 70B (fp8, vLLM) on 8 replicas of 8 H100 (TP 8): 10 minutes of Poisson arrivals at
// 100 requests/s, with OpenOrca-like lengths (issue 29's speed goal: within 10 s on 2 cores).
models::Scenario servingStream() {
    const char* text = R"({"format": "choreo-scenario/1", "name": "bench: serving stream",
      "cluster": {"pools": [{"name": "serving", "device": "h100-sxm", "count": 64, "devices_per_node": 8}],
                  "network": {"nic_Gbps": 400.0, "topology": {"kind": "fat-tree"}}},
      "workload": {"kind": "serve",
        "model": {"name": "Llama-3.1 70B", "layers": 80, "hidden": 8192, "heads": 64, "kv_heads": 8,
                  "ffn_hidden": 28672, "ffn_gated": true, "vocab": 128256},
        "stages": [{"kind": "serve", "parallel": {"tp": 8}, "weights": "fp8", "engine": "vllm",
          "requests": {"arrival": "poisson", "rate_per_s": 100, "duration_s": 600, "seed": 1,
            "input_tokens": {"distribution": "lognormal", "mean": 222, "sigma": 0.68, "max": 1024},
            "output_tokens": {"distribution": "lognormal", "mean": 294, "sigma": 0.7, "max": 1024}}}]},
      "costs": {"mode": "rent", "amortisation_years": 4.0, "electricity_usd_per_kWh": 0.08, "pue": 1.3}})";
    models::Diagnostics errors;
    auto s = models::parseScenario(text, errors);
    if (!s)
        throw std::runtime_error(models::joinDiagnostics(errors));
    return *s;
}

models::ResolvedScenario resolve(const models::Scenario& s, const models::Catalog& catalog) {
    models::Diagnostics errors;
    // Benchmarks measure the simulator, so layouts that would not fit in memory still run.
    auto r = models::resolveScenario(s, catalog, errors, /*checkMemory=*/false);
    if (!r)
        throw std::runtime_error(models::joinDiagnostics(errors));
    return *r;
}

// One simulated step; with `wholeRun`, the whole run (data stage and per-pool results included), whose
// step has the data stage in it.
std::function<std::string()> stepJob(models::ResolvedScenario rs, Fidelity fidelity, bool wholeRun = false) {
    return [rs = std::move(rs), fidelity, wholeRun] {
        SimulationOptions options;
        options.fidelity = fidelity;
        const auto m = simulateStep(rs, options);
        const double step = wholeRun ? models::finishResult(rs, m).step_time_s : m.step_time_s;
        return models::Json{{"step_time_s", step}, {"activities", m.simulated_activities}}.dump();
    };
}

BenchCase fromOutcome(BenchCase c, const IsolatedOutcome& o) {
    c.ok = o.ok;
    c.wall_s = o.wall_s;
    c.peak_MiB = static_cast<double>(o.max_rss_kB) / 1024.0;
    if (!o.ok) {
        c.error = o.output;
        return c;
    }
    const auto j = models::Json::parse(o.output);
    c.step_time_s = j.value("step_time_s", 0.0);
    c.activities = j.value("activities", std::int64_t{0});
    c.platform_s = j.value("platform_s", 0.0);
    c.per_call_s = j.value("per_call_s", 0.0);
    c.candidates = j.value("candidates", std::int64_t{0});
    return c;
}

BenchCase named(std::string name, std::int64_t devices, std::string fidelity) {
    BenchCase c;
    c.name = std::move(name);
    c.devices = devices;
    c.fidelity = std::move(fidelity);
    return c;
}

} // namespace

std::vector<BenchCase> runBenchmarks(const models::Catalog& catalog, const BenchOptions& options) {
    std::vector<BenchCase> out;
    const auto big = resolve(llama405b(16384, 16, 128), catalog);

    // Platform construction alone.
    {
        auto job = [rs = big] {
            auto engine = makeEngine();
            const auto start = std::chrono::steady_clock::now();
            Platform platform(*engine, PlatformSpec::fromScenario(rs));
            const double built =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            return models::Json{{"platform_s", built}}.dump();
        };
        out.push_back(fromOutcome(named("platform construction", 16384, "-"), runIsolated({job}, 1).front()));
    }
    // The closed form on the same scenario: many calls, time per call; alone (as searches use it), then
    // with the per-stage timeline that a run reports.
    for (const StepLayout layout : {StepLayout::StepTimeOnly, StepLayout::Timeline}) {
        auto job = [rs = big, layout] {
            constexpr int calls = 1000;
            double sink = 0.0;
            const auto start = std::chrono::steady_clock::now();
            for (int i = 0; i < calls; ++i)
                sink += estimateStep(rs, layout).step_time_s;
            const double each =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / calls;
            return models::Json{{"step_time_s", sink / calls}, {"per_call_s", each}}.dump();
        };
        const char* name = layout == StepLayout::Timeline ? "Llama-3 405B + timeline, 1000 closed forms"
                                                          : "Llama-3 405B step, 1000 closed forms";
        out.push_back(fromOutcome(named(name, 16384, "analytical"), runIsolated({job}, 1).front()));
    }
    // The plan's screening: every candidate for Llama 3 405B on every device that trains, up to 65,536.
    {
        auto job = [&catalog] {
            PlanRequest request;
            request.base = llama405b(16384, 16, 128);
            request.start = *parseDate("2027-01-04");
            std::map<std::string, std::int64_t> rejected;
            const auto candidates = planCandidates(request, catalog, rejected);
            std::int64_t resolved = 0;
            const auto start = std::chrono::steady_clock::now();
            for (const auto& candidate : candidates) {
                std::string reason;
                resolved += screenCandidate(request, candidate, catalog, reason) ? 1 : 0;
            }
            const double wall =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            const auto n = static_cast<double>(std::max<std::size_t>(1, candidates.size()));
            return models::Json{
                {"per_call_s", wall / n}, {"candidates", candidates.size()}, {"resolved", resolved}}
                .dump();
        };
        out.push_back(fromOutcome(named("plan screening, Llama-3 405B, every device", 65536, "analytical"),
                                  runIsolated({job}, 1).front()));
    }
    // One step of Llama 3 405B on 16,384 GPUs at flow fidelity, in the layouts that scale differently:
    // ZeRO-1, fully sharded (ZeRO-3: per-layer gathers and reduce-scatters in every micro-batch) and
    // context parallel.
    for (const auto& [name, scenario] : flowLayouts()) {
        const auto rs = resolve(scenario, catalog);
        out.push_back(
            fromOutcome(named(name, 16384, "flow"), runIsolated({stepJob(rs, Fidelity::Flow)}, 1).front()));
    }

    // The same beside 4,096 CPUs that prepare its data.
    out.push_back(fromOutcome(
        named("405B + data stage on 4,096 CPUs", 16384 + 4096, "flow"),
        runIsolated({stepJob(resolve(llama405bWithDataPool(), catalog), Fidelity::Flow, true)}, 1).front()));

    // Behind 2:1 oversubscribed leaves every device's batch is a flow (DataPathSpec::every_device), up to
    // 1,024 devices.
    {
        models::Scenario leaves = llama405bWithDataPool(1024);
        leaves.cluster.network.topology.oversubscription = 2.0;
        out.push_back(
            fromOutcome(named("405B + data stage, 2:1 leaves, 256 CPUs", 1024 + 256, "flow"),
                        runIsolated({stepJob(resolve(leaves, catalog), Fidelity::Flow, true)}, 1).front()));
    }

    // A 12-point scaling sweep, 8 to 16,384 devices, all cores.
    {
        std::vector<std::function<std::string()>> jobs;
        std::vector<std::int64_t> sizes;
        for (std::int64_t n = 8; n <= 16384; n *= 2) {
            const std::int64_t pp = std::clamp<std::int64_t>(n / 8, 1, 16);
            jobs.push_back(stepJob(resolve(llama405b(n, pp, n / (8 * pp)), catalog), Fidelity::Flow));
            sizes.push_back(n);
        }
        const auto start = std::chrono::steady_clock::now();
        const auto outcomes = runIsolated(jobs, options.jobs > 0 ? options.jobs : defaultJobs());
        BenchCase c = named("12-point sweep 8 to 16,384 devices", 16384, "flow");
        c.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        c.points = static_cast<int>(outcomes.size());
        c.ok = true;
        for (std::size_t i = 0; i < outcomes.size(); ++i) {
            const auto& o = outcomes[i];
            c.point_cases.push_back(fromOutcome(named("  sweep point", sizes[i], "flow"), o));
            c.peak_MiB = std::max(c.peak_MiB, static_cast<double>(o.max_rss_kB) / 1024.0);
            c.ok = c.ok && o.ok;
            if (!o.ok)
                c.error = o.output;
        }
        out.push_back(c);
    }
    // A serving stream, every request and iteration an event.
    {
        auto job = [rs = resolve(servingStream(), catalog)] {
            const auto m = simulateServing(rs, Fidelity::Flow);
            return models::Json{{"step_time_s", m.span_s}, {"activities", m.simulated_activities}}.dump();
        };
        out.push_back(fromOutcome(named("serving 60,000 requests, 8 replicas x 8 GPUs", 64, "flow"),
                                  runIsolated({job}, 1).front()));
    }
    if (options.packet)
        out.push_back(fromOutcome(
            named("Llama-3 405B step, tp8 pp16 dp8", 1024, "packet"),
            runIsolated({stepJob(resolve(llama405b(1024, 16, 8), catalog), Fidelity::Packet)}, 1).front()));
    return out;
}

models::Json benchToJson(const std::vector<BenchCase>& cases) {
    models::Json list = models::Json::array();
    for (const auto& c : cases) {
        models::Json j{{"case", c.name}, {"devices", c.devices}, {"fidelity", c.fidelity},
                       {"ok", c.ok},     {"wall_s", c.wall_s},   {"peak_MiB", c.peak_MiB}};
        if (c.platform_s > 0)
            j["platform_s"] = c.platform_s;
        if (c.per_call_s > 0)
            j["per_call_s"] = c.per_call_s;
        if (c.candidates > 0) {
            j["candidates"] = c.candidates;
            j["candidates_per_s"] = 1.0 / c.per_call_s;
        }
        if (c.step_time_s > 0) {
            j["simulated_step_time_s"] = c.step_time_s;
            j["activities"] = c.activities;
        }
        if (c.points > 0)
            j["points"] = benchToJson(c.point_cases)["cases"];
        if (!c.ok)
            j["error"] = c.error;
        list.push_back(j);
    }
    return models::Json{{"cases", list}};
}

namespace {

std::string benchRow(const BenchCase& c) {
    char notes[160];
    if (!c.ok)
        std::snprintf(notes, sizeof notes, "FAILED: %.140s", c.error.c_str());
    else if (c.platform_s > 0)
        std::snprintf(notes, sizeof notes, "construction %.3f s", c.platform_s);
    else if (c.candidates > 0)
        std::snprintf(notes, sizeof notes, "%lld candidates, %.0f a second on one core",
                      static_cast<long long>(c.candidates), 1.0 / c.per_call_s);
    else if (c.per_call_s > 0)
        std::snprintf(notes, sizeof notes, "%.1f us per estimate, step %.3f s", c.per_call_s * 1e6,
                      c.step_time_s);
    else if (c.points > 0)
        std::snprintf(notes, sizeof notes, "%d points in parallel", c.points);
    else
        std::snprintf(notes, sizeof notes, "step %.3f s simulated, %lld activities", c.step_time_s,
                      static_cast<long long>(c.activities));
    char line[512];
    std::snprintf(line, sizeof line, "%-42s %7lld %-8s %9.2f %10.0f  %s\n", c.name.c_str(),
                  static_cast<long long>(c.devices), c.fidelity.c_str(), c.wall_s, c.peak_MiB, notes);
    return line;
}

} // namespace

std::string benchToText(const std::vector<BenchCase>& cases) {
    char header[256];
    std::snprintf(header, sizeof header, "%-42s %7s %-8s %9s %10s  %s\n", "case", "devices", "fidelity",
                  "wall (s)", "peak (MiB)", "notes");
    std::string out = header;
    for (const auto& c : cases) {
        out += benchRow(c);
        for (const auto& p : c.point_cases)
            out += benchRow(p);
    }
    return out;
}

} // namespace choreo::sim
