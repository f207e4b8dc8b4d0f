#include "models/profilefit.h"

#include "models/resolved.h"
#include "models/stepcost.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace choreo::models {

namespace {

std::string shapeKey(const GemmPoint& p) {
    return "m" + formatNumber(p.m) + ".n" + formatNumber(p.n) + ".k" + formatNumber(p.k);
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Reads the sections of choreo-calibrate-gpu's document into a profile's identity, figures and fit.
struct GpuDocument {
    JsonReader r;
    Profile& p;

    void figure(std::string key, std::string label, double value, std::string unit) {
        p.figures.push_back({"gpu." + std::move(key), std::move(label), value, std::move(unit)});
    }
    // The measured GPU: identity strings, and the catalog device it refines.
    void device(const Json& doc, const Catalog& catalog, const std::string& mapped) {
        const std::string dp = "gpu.device";
        if (auto it = doc.find("device"); it == doc.end()) {
            r.error(dp, "missing required field");
        } else if (r.expectObject(*it, dp)) {
            for (const auto& [key, value] : it->items()) {
                if (value.is_string())
                    p.identity[key] = value.get<std::string>();
                else if (value.is_number())
                    p.identity[key] = formatNumber(value.get<double>());
                else
                    r.error(JsonReader::join(dp, key.c_str()), "expected a string or a number");
            }
            if (auto name = r.text(*it, dp, "name"))
                p.device = mapped.empty() ? matchCatalogDevice(*name, catalog) : mapped;
        }
    }
    // Matrix multiplies per precision, and the rate curve fitted to them.
    void gemm(const Json& doc) {
        std::map<Precision, std::vector<GemmPoint>> points;
        if (auto it = doc.find("gemm"); it != doc.end()) {
            if (!it->is_array()) {
                r.error("gpu.gemm", "expected an array, got " + JsonReader::typeName(*it));
            } else {
                for (std::size_t i = 0; i < it->size(); ++i) {
                    const std::string ip = JsonReader::index("gpu.gemm", i);
                    const Json& g = (*it)[i];
                    if (!r.expectObject(g, ip))
                        continue;
                    r.rejectUnknownKeys(g, ip,
                                        {"precision", "m", "n", "k", "shape", "time_s", "tflops",
                                         "heuristic_tflops", "max_rel_error", "library", "sm_clock_MHz"});
                    const auto name = r.text(g, ip, "precision").value_or("");
                    const auto precision = precisionFromString(name);
                    if (!precision && !name.empty())
                        r.error(JsonReader::join(ip, "precision"), "unknown precision \"" + name + "\"");
                    GemmPoint pt{r.number(g, ip, "m").value_or(0), r.number(g, ip, "n").value_or(0),
                                 r.number(g, ip, "k").value_or(0), r.number(g, ip, "tflops").value_or(0)};
                    r.number(g, ip, "time_s");
                    r.number(g, ip, "heuristic_tflops", true, false);
                    r.number(g, ip, "sm_clock_MHz", true, false);
                    if (!precision || pt.tflops <= 0)
                        continue;
                    points[*precision].push_back(pt);
                    figure("gemm." + name + "." + shapeKey(pt), "GEMM " + name + " " + shapeKey(pt),
                           pt.tflops, "TFLOP/s");
                }
            }
        }
        for (auto& [precision, list] : points)
            p.fit.gemm[precision] = fitGemmCurve(list);
    }
    // Memory bandwidth of the copy and triad kernels.
    void memory(const Json& doc) {
        if (auto it = doc.find("memory"); it != doc.end() && r.expectObject(*it, "gpu.memory")) {
            r.rejectUnknownKeys(
                *it, "gpu.memory",
                {"bytes", "copy_kernel_TBps", "copy_kernel_variant", "triad_kernel_TBps", "memcpy_d2d_TBps"});
            const auto copy = r.number(*it, "gpu.memory", "copy_kernel_TBps", true, false);
            const auto triad = r.number(*it, "gpu.memory", "triad_kernel_TBps", true, false);
            const auto memcpy = r.number(*it, "gpu.memory", "memcpy_d2d_TBps", true, false);
            r.number(*it, "gpu.memory", "bytes", true, false);
            r.text(*it, "gpu.memory", "copy_kernel_variant", false);
            if (copy)
                figure("memory.copy_kernel", "Memory bandwidth, Choreo's copy kernel (16-byte vectors)",
                       *copy, "TB/s");
            if (triad)
                figure("memory.triad_kernel", "Memory bandwidth, Choreo's triad kernel", *triad, "TB/s");
            if (memcpy)
                figure("memory.memcpy_d2d", "Memory bandwidth, device-to-device cudaMemcpy", *memcpy, "TB/s");
            if (copy || triad)
                p.fit.memory_TBps = std::max(copy.value_or(0.0), triad.value_or(0.0));
        }
    }
    // Fused attention rates; the fit takes their median.
    void attention(const Json& doc) {
        if (auto it = doc.find("attention"); it != doc.end()) {
            std::vector<double> rates;
            if (!it->is_array()) {
                r.error("gpu.attention", "expected an array, got " + JsonReader::typeName(*it));
            } else {
                for (std::size_t i = 0; i < it->size(); ++i) {
                    const std::string ip = JsonReader::index("gpu.attention", i);
                    const Json& a = (*it)[i];
                    if (!r.expectObject(a, ip))
                        continue;
                    r.rejectUnknownKeys(a, ip, {"batch", "heads", "seq_len", "head_dim", "time_s", "tflops"});
                    const auto b = r.integer(a, ip, "batch"), h = r.integer(a, ip, "heads"),
                               s = r.integer(a, ip, "seq_len"), d = r.integer(a, ip, "head_dim");
                    const auto rate = r.number(a, ip, "tflops");
                    r.number(a, ip, "time_s");
                    if (!b || !h || !s || !d || !rate)
                        continue;
                    rates.push_back(*rate);
                    figure("attention.b" + std::to_string(*b) + ".h" + std::to_string(*h) + ".s" +
                               std::to_string(*s) + ".d" + std::to_string(*d),
                           "Attention (causal-equivalent) seq " + std::to_string(*s) + ", head dim " +
                               std::to_string(*d),
                           *rate, "TFLOP/s");
                }
            }
            if (!rates.empty())
                p.fit.attention_TFLOPs = median(rates);
        }
    }
    // Kernel launch intervals.
    void launch(const Json& doc) {
        if (auto it = doc.find("launch"); it != doc.end() && r.expectObject(*it, "gpu.launch")) {
            r.rejectUnknownKeys(*it, "gpu.launch", {"plain_us", "graph_us"});
            if (auto v = r.number(*it, "gpu.launch", "plain_us", true, false)) {
                figure("launch.plain", "Kernel launch interval, back to back", *v, "us");
                p.fit.kernel_overhead_us = *v;
            }
            if (auto v = r.number(*it, "gpu.launch", "graph_us", true, false))
                figure("launch.graph", "Kernel launch interval, inside a CUDA graph", *v, "us");
        }
    }
    // Pinned copies over the host link.
    void hostCopy(const Json& doc) {
        if (auto it = doc.find("host_copy"); it != doc.end() && r.expectObject(*it, "gpu.host_copy")) {
            r.rejectUnknownKeys(*it, "gpu.host_copy", {"bytes", "h2d_GBps", "d2h_GBps"});
            r.number(*it, "gpu.host_copy", "bytes", true, false);
            const auto h2d = r.number(*it, "gpu.host_copy", "h2d_GBps", true, false);
            const auto d2h = r.number(*it, "gpu.host_copy", "d2h_GBps", true, false);
            if (h2d)
                figure("host_copy.h2d", "Pinned host-to-device copy", *h2d, "GB/s");
            if (d2h)
                figure("host_copy.d2h", "Pinned device-to-host copy", *d2h, "GB/s");
            // The host link activation offloading copies over, both ways: the slower direction.
            if (h2d && d2h)
                p.fit.host_link_GBps = std::min(*h2d, *d2h);
        }
    }
    // Board power at idle and under compute- and memory-bound load.
    void power(const Json& doc) {
        if (auto it = doc.find("power"); it != doc.end() && r.expectObject(*it, "gpu.power")) {
            r.rejectUnknownKeys(*it, "gpu.power",
                                {"method", "idle_W", "compute_W", "memory_W", "samples", "idle_smi_W",
                                 "compute_smi_W", "memory_smi_W"});
            const auto method = r.text(*it, "gpu.power", "method").value_or("");
            if (!method.empty())
                p.identity["power_method"] = method;
            r.integer(*it, "gpu.power", "samples", 0, false);
            p.fit.idle_W = r.number(*it, "gpu.power", "idle_W", true, false);
            p.fit.compute_W = r.number(*it, "gpu.power", "compute_W", true, false);
            p.fit.memory_W = r.number(*it, "gpu.power", "memory_W", true, false);
            if (p.fit.idle_W)
                figure("power.idle", "Board power at idle", *p.fit.idle_W, "W");
            if (p.fit.compute_W)
                figure("power.compute", "Board power, compute-bound (GEMM)", *p.fit.compute_W, "W");
            if (p.fit.memory_W)
                figure("power.memory", "Board power, memory-bound (copy kernel)", *p.fit.memory_W, "W");
            // nvidia-smi read over the same intervals, as a check of the NVML figures.
            for (const auto& [phase, label] :
                 {std::pair{"idle", "Board power at idle, nvidia-smi (check)"},
                  std::pair{"compute", "Board power, compute-bound, nvidia-smi (check)"},
                  std::pair{"memory", "Board power, memory-bound, nvidia-smi (check)"}})
                if (const auto w =
                        r.number(*it, "gpu.power", (std::string(phase) + "_smi_W").c_str(), true, false))
                    figure(std::string("power.") + phase + "_smi", label, *w, "W");
            if (!p.fit.idle_W && !p.fit.compute_W)
                p.notes.push_back("GPU power was not measured (" + (method.empty() ? "no method" : method) +
                                  ")");
        }
    }
    // One transformer layer, forward and backward, as a check of the step model.
    void layer(const Json& doc) {
        if (auto it = doc.find("layer"); it != doc.end() && r.expectObject(*it, "gpu.layer")) {
            const std::string lp = "gpu.layer";
            r.rejectUnknownKeys(*it, lp,
                                {"hidden", "heads", "kv_heads", "ffn_hidden", "ffn_gated", "seq_len",
                                 "micro_batch", "tp", "precision", "forward_s", "backward_s"});
            LayerCheck l;
            l.hidden = r.integer(*it, lp, "hidden").value_or(0);
            l.heads = r.integer(*it, lp, "heads").value_or(0);
            l.kv_heads = r.integer(*it, lp, "kv_heads").value_or(0);
            l.ffn_hidden = r.integer(*it, lp, "ffn_hidden").value_or(0);
            l.ffn_gated = r.boolean(*it, lp, "ffn_gated").value_or(true);
            l.seq_len = r.integer(*it, lp, "seq_len").value_or(0);
            l.micro_batch = r.integer(*it, lp, "micro_batch").value_or(0);
            l.tp = r.integer(*it, lp, "tp").value_or(1);
            const auto precision = precisionFromString(r.text(*it, lp, "precision").value_or("bf16"));
            if (!precision)
                r.error(JsonReader::join(lp, "precision"), "unknown precision");
            l.precision = precision.value_or(Precision::Bf16);
            const double fwd = r.number(*it, lp, "forward_s").value_or(0.0);
            const double bwd = r.number(*it, lp, "backward_s").value_or(0.0);
            l.measured_s = fwd + bwd;
            if (fwd > 0 && bwd > 0) {
                figure("layer.forward", "One layer, forward", fwd, "s");
                figure("layer.backward", "One layer, backward", bwd, "s");
                p.layer = l;
            }
        }
    }
    // What the tool could not measure.
    void failures(const Json& doc) {
        if (auto it = doc.find("failures"); it != doc.end()) {
            if (!it->is_array())
                r.error("gpu.failures", "expected an array of strings");
            else
                for (const auto& f : *it)
                    if (f.is_string())
                        p.notes.push_back("GPU: " + f.get<std::string>());
        }
    }
};

// Reads choreo-calibrate-gpu's document into the profile's identity, figures and fit.
void readGpu(const Json& doc, Profile& p, Diagnostics& errors, const Catalog& catalog,
             const std::string& mapped) {
    GpuDocument gpu{JsonReader(errors), p};
    auto& r = gpu.r;
    const std::string root = "gpu";
    if (!r.expectObject(doc, root))
        return;
    r.rejectUnknownKeys(doc, root,
                        {"format", "tool", "mode", "date", "device", "gemm", "memory", "attention", "launch",
                         "host_copy", "power", "layer", "failures"});
    if (auto f = r.text(doc, root, "format"); f && *f != kGpuMeasurementsFormat)
        r.error("gpu.format", "expected \"" + std::string(kGpuMeasurementsFormat) + "\", got \"" + *f + "\"");
    if (auto tool = r.text(doc, root, "tool", false))
        p.identity["gpu_tool"] = *tool;
    gpu.device(doc, catalog, mapped);
    gpu.gemm(doc);
    gpu.memory(doc);
    gpu.attention(doc);
    gpu.launch(doc);
    gpu.hostCopy(doc);
    gpu.power(doc);
    gpu.layer(doc);
    gpu.failures(doc);
}

void readCpu(const CpuMeasurements& cpu, Profile& p, bool describesDevice) {
    p.identity["cpu_model"] = cpu.model;
    p.identity["cpu_cores"] = std::to_string(cpu.cores);
    p.identity["blas"] = cpu.blas.empty() ? "none (built without OpenBLAS)" : cpu.blas;
    auto figure = [&](std::string key, std::string label, double value, std::string unit) {
        p.figures.push_back({"cpu." + std::move(key), std::move(label), value, std::move(unit)});
    };
    for (const auto& [list, name] : {std::pair{&cpu.sgemm, "fp32"}, std::pair{&cpu.dgemm, "fp64"}}) {
        for (const auto& pt : *list)
            figure(std::string("gemm.") + name + "." + shapeKey(pt),
                   std::string("CPU GEMM ") + name + " " + shapeKey(pt) + " (BLAS, all cores)", pt.tflops,
                   "TFLOP/s");
    }
    if (cpu.triad_GBps)
        figure("triad", "CPU memory bandwidth, triad on all cores", *cpu.triad_GBps, "GB/s");
    if (cpu.tokens_per_s_per_core)
        figure("tokenize", "CPU data preparation, tokens per second per core", *cpu.tokens_per_s_per_core,
               "tokens/s");
    if (cpu.bytes_per_token)
        figure("tokenize.bytes_per_token", "CPU data preparation, bytes per token", *cpu.bytes_per_token,
               "B");
    if (cpu.blas.empty())
        p.notes.emplace_back("CPU GEMM not measured: this build has no OpenBLAS");
    for (const auto& f : cpu.failures)
        p.notes.push_back("CPU: " + f);
    if (!describesDevice)
        return;
    if (!cpu.sgemm.empty())
        p.fit.gemm[Precision::Fp32] = fitGemmCurve(cpu.sgemm);
    if (!cpu.dgemm.empty())
        p.fit.gemm[Precision::Fp64] = fitGemmCurve(cpu.dgemm);
    if (cpu.triad_GBps)
        p.fit.memory_TBps = *cpu.triad_GBps / 1000.0;
}

} // namespace

std::string matchCatalogCpu(const std::string& modelName, const Catalog& catalog) {
    auto normal = [](std::string s) {
        for (const char* mark : {"(R)", "(TM)", "(r)", "(tm)"})
            for (auto pos = s.find(mark); pos != std::string::npos; pos = s.find(mark))
                s.erase(pos, std::string(mark).size());
        std::string out;
        for (char c : s) {
            if (!std::isspace(static_cast<unsigned char>(c)))
                out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            else if (!out.empty() && out.back() != ' ')
                out += ' ';
        }
        return out;
    };
    const std::string model = normal(modelName) + " ";
    for (const auto& d : catalog.devices()) {
        if (d.kind != DeviceKind::Cpu)
            continue;
        // The catalog name without its vendor ("AMD EPYC 9654" -> "epyc 9654"), as a whole word.
        std::string name = normal(d.name);
        if (const std::string vendor = normal(d.vendor) + " "; name.rfind(vendor, 0) == 0)
            name = name.substr(vendor.size());
        if (model.find(name + " ") != std::string::npos)
            return d.id;
    }
    return {};
}

double predictLayerSeconds(const Device& device, const LayerCheck& layer) {
    // stageCost of one chunk holding 2 layers minus one holding 1: the embedding and logits cancel.
    auto chunkSeconds = [&](std::int64_t layers) {
        ResolvedScenario rs;
        Workload& w = rs.scenario.workload;
        w.model = ModelShape{"layer",          layers,          layer.hidden, layer.heads,   layer.kv_heads,
                             layer.ffn_hidden, layer.ffn_gated, 32000,        layer.seq_len, std::nullopt};
        w.micro_batch = layer.micro_batch;
        w.global_batch = layer.micro_batch;
        w.precision = layer.precision;
        w.parallel.tp = layer.tp;
        w.recompute = Recompute::None;
        w.attention = AttentionKernel::Unfused;
        Pool pool{"layer", device.id, layer.tp, layer.tp};
        rs.scenario.cluster.pools = {pool};
        rs.pools = {ResolvedPool{pool, &device}};
        const StageCost c = stageCost(rs, 0);
        return c.forward_s + c.backward_s;
    };
    return chunkSeconds(2) - chunkSeconds(1);
}

std::optional<Profile> buildProfile(const CalibrationInputs& in, const Catalog& catalog,
                                    Diagnostics& errors) {
    const std::size_t before = errors.size();
    Profile p;
    p.name = in.name;
    p.date = in.date;
    p.tool = in.tool;
    p.mode = in.mode;
    if (in.gpu) {
        p.kind = "gpu";
        readGpu(*in.gpu, p, errors, catalog, in.device);
        if (p.device.empty())
            p.notes.emplace_back(
                "the GPU matches no catalog device; map it with --device ID or the scenario's "
                "calibration.device");
    } else {
        p.kind = "cpu";
        p.notes.push_back("no GPU measured: " +
                          (in.gpu_absent_reason.empty() ? std::string("none found") : in.gpu_absent_reason));
        if (in.cpu)
            p.identity["name"] = in.cpu->model;
        p.device = !in.device.empty() ? in.device : in.cpu ? matchCatalogCpu(in.cpu->model, catalog) : "";
    }
    if (in.cpu)
        readCpu(*in.cpu, p, !in.gpu);
    if (!p.device.empty() && !catalog.find(p.device))
        errors.push_back(
            {"device", "unknown catalog device \"" + p.device + "\" (known: " + catalog.idList() + ")"});
    if (errors.size() != before)
        return std::nullopt;
    if (p.layer && !p.device.empty()) {
        Device calibrated = *catalog.find(p.device);
        Diagnostics problems;
        if (applyProfile(p, calibrated, problems))
            p.layer->predicted_s = predictLayerSeconds(calibrated, *p.layer);
        else
            for (const auto& d : problems)
                p.notes.push_back("not applicable to " + p.device + ": " + d.text());
    }
    if (p.figures.empty()) {
        errors.push_back({"(calibration)", "nothing was measured"});
        return std::nullopt;
    }
    return p;
}

} // namespace choreo::models
