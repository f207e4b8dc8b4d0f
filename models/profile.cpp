#include "models/profile.h"

#include "models/scenarioio.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <tuple>

namespace choreo::models {

double GemmCurve::tflopsAt(double gflop) const {
    if (half_gflop <= 0.0 || gflop <= 0.0)
        return rate_TFLOPs;
    return rate_TFLOPs * gflop / (gflop + half_gflop);
}

namespace {

// For a fixed half-rate size the best asymptote in relative least squares has a closed form:
// minimise sum (a*u_i - 1)^2 with u_i = g_i / y_i, g_i = F_i / (F_i + half), so a = sum u / sum u^2.
struct FitAt {
    double rate = 0;
    double cost = 0;
};

FitAt fitAt(const std::vector<GemmPoint>& points, double half) {
    double su = 0, suu = 0;
    for (const auto& p : points) {
        const double f = p.gflop();
        const double u = (half > 0 ? f / (f + half) : 1.0) / p.tflops;
        su += u;
        suu += u * u;
    }
    FitAt r;
    r.rate = suu > 0 ? su / suu : 0.0;
    for (const auto& p : points) {
        const double f = p.gflop();
        const double model = r.rate * (half > 0 ? f / (f + half) : 1.0);
        r.cost += (model - p.tflops) * (model - p.tflops) / (p.tflops * p.tflops);
    }
    return r;
}

} // namespace

GemmCurve fitGemmCurve(std::vector<GemmPoint> points) {
    GemmCurve c;
    std::erase_if(points, [](const GemmPoint& p) { return !(p.tflops > 0.0) || !(p.gflop() > 0.0); });
    std::sort(points.begin(), points.end(), [](const GemmPoint& a, const GemmPoint& b) {
        return std::tie(a.m, a.n, a.k, a.tflops) < std::tie(b.m, b.n, b.k, b.tflops);
    });
    c.points = points;
    if (points.empty())
        return c;
    double smallest = points.front().gflop(), largest = smallest;
    for (const auto& p : points) {
        smallest = std::min(smallest, p.gflop());
        largest = std::max(largest, p.gflop());
    }
    FitAt best = fitAt(points, 0.0);
    double bestHalf = 0.0;
    if (largest > smallest * 1.01) {
        // Half-rate sizes from far below the smallest to far above the largest measured size, on a log
        // grid, then a golden-section refinement around the best grid point.
        const double lo = std::log10(smallest) - 4.0, hi = std::log10(largest) + 2.0;
        constexpr int kSteps = 600;
        double bestLog = lo;
        for (int i = 0; i <= kSteps; ++i) {
            const double l = lo + (hi - lo) * i / kSteps;
            const FitAt f = fitAt(points, std::pow(10.0, l));
            if (f.cost < best.cost) {
                best = f;
                bestHalf = std::pow(10.0, l);
                bestLog = l;
            }
        }
        if (bestHalf > 0.0) {
            const double step = (hi - lo) / kSteps;
            double a = bestLog - step, b = bestLog + step;
            const double g = (std::sqrt(5.0) - 1.0) / 2.0;
            for (int i = 0; i < 60; ++i) {
                const double x1 = b - g * (b - a), x2 = a + g * (b - a);
                if (fitAt(points, std::pow(10.0, x1)).cost < fitAt(points, std::pow(10.0, x2)).cost)
                    b = x2;
                else
                    a = x1;
            }
            const double half = std::pow(10.0, (a + b) / 2.0);
            if (const FitAt f = fitAt(points, half); f.cost <= best.cost) {
                best = f;
                bestHalf = half;
            }
        }
        // A half-rate size far below every measured size is no size dependence at all.
        if (bestHalf < smallest * 1e-3) {
            bestHalf = 0.0;
            best = fitAt(points, 0.0);
        }
    }
    c.rate_TFLOPs = best.rate;
    c.half_gflop = bestHalf;
    c.rms_relative_error = std::sqrt(best.cost / static_cast<double>(points.size()));
    return c;
}

namespace {

Json figureJson(const ProfileFigure& f) {
    return Json{{"key", f.key}, {"label", f.label}, {"value", f.value}, {"unit", f.unit}};
}

template <typename T>
void putOptional(Json& j, const char* key, const std::optional<T>& value) {
    if (value)
        j[key] = *value;
}

} // namespace

std::string serializeProfile(const Profile& p) {
    Json doc;
    doc["format"] = kProfileFormat;
    doc["name"] = p.name;
    doc["date"] = p.date;
    doc["tool"] = p.tool;
    doc["mode"] = p.mode;
    doc["kind"] = p.kind;
    doc["device"] = p.device;
    Json identity = Json::object();
    for (const auto& [k, v] : p.identity)
        identity[k] = v;
    doc["identity"] = identity;
    Json figures = Json::array();
    for (const auto& f : p.figures)
        figures.push_back(figureJson(f));
    doc["figures"] = figures;
    Json fit = Json::object();
    Json gemm = Json::object();
    for (const auto& [precision, c] : p.fit.gemm) {
        Json points = Json::array();
        for (const auto& pt : c.points)
            points.push_back(Json{{"m", pt.m}, {"n", pt.n}, {"k", pt.k}, {"tflops", pt.tflops}});
        gemm[toString(precision)] = Json{{"rate_TFLOPs", c.rate_TFLOPs},
                                         {"half_gflop", c.half_gflop},
                                         {"rms_relative_error", c.rms_relative_error},
                                         {"points", points}};
    }
    fit["gemm"] = gemm;
    putOptional(fit, "memory_TBps", p.fit.memory_TBps);
    putOptional(fit, "attention_TFLOPs", p.fit.attention_TFLOPs);
    putOptional(fit, "kernel_overhead_us", p.fit.kernel_overhead_us);
    putOptional(fit, "host_link_GBps", p.fit.host_link_GBps);
    Json power = Json::object();
    putOptional(power, "idle", p.fit.idle_W);
    putOptional(power, "compute", p.fit.compute_W);
    putOptional(power, "memory", p.fit.memory_W);
    if (!power.empty())
        fit["power_W"] = power;
    doc["fit"] = fit;
    if (p.layer) {
        const auto& l = *p.layer;
        doc["layer"] = Json{{"hidden", l.hidden},
                            {"heads", l.heads},
                            {"kv_heads", l.kv_heads},
                            {"ffn_hidden", l.ffn_hidden},
                            {"ffn_gated", l.ffn_gated},
                            {"seq_len", l.seq_len},
                            {"micro_batch", l.micro_batch},
                            {"tp", l.tp},
                            {"precision", toString(l.precision)},
                            {"measured_s", l.measured_s},
                            {"predicted_s", l.predicted_s}};
    }
    doc["notes"] = p.notes;
    return doc.dump(2) + "\n";
}

namespace {

std::optional<double> optionalNumber(JsonReader& r, const Json& o, const std::string& path, const char* key) {
    return r.number(o, path, key, true, false);
}

void readFit(JsonReader& r, const Json& j, const std::string& path, ProfileFit& fit) {
    if (!r.expectObject(j, path))
        return;
    r.rejectUnknownKeys(
        j, path,
        {"gemm", "memory_TBps", "attention_TFLOPs", "kernel_overhead_us", "host_link_GBps", "power_W"});
    if (auto g = j.find("gemm"); g != j.end()) {
        const std::string gp = JsonReader::join(path, "gemm");
        if (r.expectObject(*g, gp)) {
            for (const auto& [name, value] : g->items()) {
                const std::string cp = JsonReader::join(gp, name.c_str());
                auto precision = precisionFromString(name);
                if (!precision) {
                    r.error(cp, "unknown precision (known: fp64, fp32, tf32, bf16, fp16, fp8, fp4)");
                    continue;
                }
                if (!r.expectObject(value, cp))
                    continue;
                r.rejectUnknownKeys(value, cp, {"rate_TFLOPs", "half_gflop", "rms_relative_error", "points"});
                GemmCurve c;
                c.rate_TFLOPs = r.number(value, cp, "rate_TFLOPs").value_or(0.0);
                c.half_gflop = r.number(value, cp, "half_gflop", false).value_or(0.0);
                c.rms_relative_error = r.number(value, cp, "rms_relative_error", false).value_or(0.0);
                const std::string pp = JsonReader::join(cp, "points");
                if (auto pts = value.find("points"); pts == value.end()) {
                    r.error(pp, "missing required field");
                } else if (!pts->is_array()) {
                    r.error(pp, "expected an array, got " + JsonReader::typeName(*pts));
                } else {
                    for (std::size_t i = 0; i < pts->size(); ++i) {
                        const std::string ip = JsonReader::index(pp, i);
                        const Json& pt = (*pts)[i];
                        if (!r.expectObject(pt, ip))
                            continue;
                        r.rejectUnknownKeys(pt, ip, {"m", "n", "k", "tflops"});
                        GemmPoint point;
                        point.m = r.number(pt, ip, "m").value_or(0.0);
                        point.n = r.number(pt, ip, "n").value_or(0.0);
                        point.k = r.number(pt, ip, "k").value_or(0.0);
                        point.tflops = r.number(pt, ip, "tflops").value_or(0.0);
                        c.points.push_back(point);
                    }
                }
                fit.gemm[*precision] = c;
            }
        }
    }
    fit.memory_TBps = optionalNumber(r, j, path, "memory_TBps");
    fit.attention_TFLOPs = optionalNumber(r, j, path, "attention_TFLOPs");
    fit.kernel_overhead_us = optionalNumber(r, j, path, "kernel_overhead_us");
    fit.host_link_GBps = optionalNumber(r, j, path, "host_link_GBps");
    if (auto pw = j.find("power_W"); pw != j.end()) {
        const std::string pp = JsonReader::join(path, "power_W");
        if (r.expectObject(*pw, pp)) {
            r.rejectUnknownKeys(*pw, pp, {"idle", "compute", "memory"});
            fit.idle_W = optionalNumber(r, *pw, pp, "idle");
            fit.compute_W = optionalNumber(r, *pw, pp, "compute");
            fit.memory_W = optionalNumber(r, *pw, pp, "memory");
        }
    }
}

std::optional<LayerCheck> readLayer(JsonReader& r, const Json& j, const std::string& path) {
    if (!r.expectObject(j, path))
        return std::nullopt;
    r.rejectUnknownKeys(j, path,
                        {"hidden", "heads", "kv_heads", "ffn_hidden", "ffn_gated", "seq_len", "micro_batch",
                         "tp", "precision", "measured_s", "predicted_s"});
    LayerCheck l;
    l.hidden = r.integer(j, path, "hidden").value_or(0);
    l.heads = r.integer(j, path, "heads").value_or(0);
    l.kv_heads = r.integer(j, path, "kv_heads").value_or(0);
    l.ffn_hidden = r.integer(j, path, "ffn_hidden").value_or(0);
    l.ffn_gated = r.boolean(j, path, "ffn_gated").value_or(true);
    l.seq_len = r.integer(j, path, "seq_len").value_or(0);
    l.micro_batch = r.integer(j, path, "micro_batch").value_or(0);
    l.tp = r.integer(j, path, "tp").value_or(1);
    if (auto p = r.text(j, path, "precision")) {
        if (auto precision = precisionFromString(*p))
            l.precision = *precision;
        else
            r.error(JsonReader::join(path, "precision"), "unknown precision \"" + *p + "\"");
    }
    l.measured_s = r.number(j, path, "measured_s").value_or(0.0);
    l.predicted_s = r.number(j, path, "predicted_s", false).value_or(0.0);
    return l;
}

} // namespace

std::optional<Profile> parseProfile(const std::string& text, Diagnostics& errors) {
    const auto parsed = parseDocument(text, errors);
    if (!parsed)
        return std::nullopt;
    const Json& doc = *parsed;
    const std::size_t before = errors.size();
    JsonReader r(errors);
    if (!r.expectObject(doc, ""))
        return std::nullopt;
    r.rejectUnknownKeys(doc, "",
                        {"format", "name", "date", "tool", "mode", "kind", "device", "identity", "figures",
                         "fit", "layer", "notes"});
    Profile p;
    if (auto format = r.text(doc, "", "format"); format && *format != kProfileFormat)
        r.error("format",
                "unsupported format \"" + *format + "\" (this version reads \"" + kProfileFormat + "\")");
    p.name = r.text(doc, "", "name").value_or("");
    if (p.name.empty() && doc.contains("name") && doc["name"].is_string())
        r.error("name", "must not be empty");
    p.date = r.text(doc, "", "date").value_or("");
    p.tool = r.text(doc, "", "tool").value_or("");
    p.mode = r.text(doc, "", "mode").value_or("");
    if (!p.mode.empty() && p.mode != "quick" && p.mode != "full")
        r.error("mode", "expected \"quick\" or \"full\", got \"" + p.mode + "\"");
    p.kind = r.text(doc, "", "kind").value_or("");
    if (!p.kind.empty() && p.kind != "gpu" && p.kind != "cpu")
        r.error("kind", "expected \"gpu\" or \"cpu\", got \"" + p.kind + "\"");
    p.device = r.text(doc, "", "device").value_or("");
    if (auto it = doc.find("identity"); it == doc.end()) {
        r.error("identity", "missing required field");
    } else if (r.expectObject(*it, "identity")) {
        for (const auto& [key, value] : it->items()) {
            if (value.is_string())
                p.identity[key] = value.get<std::string>();
            else
                r.error(JsonReader::join("identity", key.c_str()),
                        "expected a string, got " + JsonReader::typeName(value));
        }
    }
    if (auto it = doc.find("figures"); it == doc.end()) {
        r.error("figures", "missing required field");
    } else if (!it->is_array()) {
        r.error("figures", "expected an array, got " + JsonReader::typeName(*it));
    } else {
        for (std::size_t i = 0; i < it->size(); ++i) {
            const std::string fp = JsonReader::index("figures", i);
            const Json& f = (*it)[i];
            if (!r.expectObject(f, fp))
                continue;
            r.rejectUnknownKeys(f, fp, {"key", "label", "value", "unit"});
            ProfileFigure figure;
            figure.key = r.text(f, fp, "key").value_or("");
            figure.label = r.text(f, fp, "label").value_or("");
            figure.value = r.number(f, fp, "value", false).value_or(0.0);
            figure.unit = r.text(f, fp, "unit").value_or("");
            p.figures.push_back(figure);
        }
    }
    if (auto it = doc.find("fit"); it == doc.end())
        r.error("fit", "missing required field");
    else
        readFit(r, *it, "fit", p.fit);
    if (auto it = doc.find("layer"); it != doc.end())
        p.layer = readLayer(r, *it, "layer");
    if (auto it = doc.find("notes"); it != doc.end()) {
        if (!it->is_array()) {
            r.error("notes", "expected an array of strings");
        } else {
            for (std::size_t i = 0; i < it->size(); ++i) {
                if ((*it)[i].is_string())
                    p.notes.push_back((*it)[i].get<std::string>());
                else
                    r.error(JsonReader::index("notes", i), "expected a string");
            }
        }
    }
    if (errors.size() != before)
        return std::nullopt;
    return p;
}

std::optional<Profile> loadProfileFile(const std::filesystem::path& path, Diagnostics& errors) {
    std::string text, error;
    if (!readTextFile(path, text, error)) {
        errors.push_back({"(file)", error});
        return std::nullopt;
    }
    return parseProfile(text, errors);
}

Source profileSource(const Profile& profile) {
    const auto name = profile.identity.find("name");
    Source s;
    s.key = "PROFILE:" + profile.name;
    s.title = "Calibration profile " + profile.name + " (measured on " +
              (name != profile.identity.end() ? name->second : std::string("an unnamed device")) + ")";
    s.url = "docs/calibration.md";
    s.as_of = profile.date.substr(0, std::min<std::size_t>(profile.date.size(), 10));
    return s;
}

namespace {

// The precision attention runs at on a device: bf16 where it has it, else fp32.
Precision attentionPrecision(const Device& d) {
    return d.peakFlops(Precision::Bf16) ? Precision::Bf16 : Precision::Fp32;
}

} // namespace

bool applyProfile(const Profile& profile, Device& device, Diagnostics& errors,
                  std::vector<std::string>* skipped) {
    const std::size_t before = errors.size();
    const std::string expectedKind = device.kind == DeviceKind::Cpu ? "cpu" : "gpu";
    if (profile.kind != expectedKind) {
        errors.push_back({"kind", "profile " + profile.name + " measured a " + profile.kind + ", but " +
                                      device.id + " is a " + toString(device.kind)});
        return false;
    }
    Device d = device;
    const std::string key = profileSource(profile).key;
    auto sourced = [&](double value, const std::string& note) { return Sourced{value, key, note}; };
    // A measured rate above the device's peak means the profile belongs to another device.
    auto fraction = [&](const std::string& path, double measured, double peak, const std::string& what) {
        const double f = measured / peak;
        if (f > 1.0)
            errors.push_back({path, "measured " + formatNumber(measured) + " exceeds " + device.id + "'s " +
                                        what + " of " + formatNumber(peak) +
                                        "; does the profile belong to another device?"});
        return f;
    };
    for (const auto& [precision, curve] : profile.fit.gemm) {
        const auto peak = d.peakFlops(precision);
        if (!peak) {
            if (skipped)
                skipped->push_back("GEMM " + toString(precision) + ": " + device.id + " has no " +
                                   toString(precision) + " peak in the catalog");
            continue;
        }
        const std::string path = "fit.gemm." + toString(precision) + ".rate_TFLOPs";
        const double f =
            fraction(path, curve.rate_TFLOPs, *peak / 1e12, toString(precision) + " peak (TFLOP/s)");
        d.efficiency.gemm_by_precision[precision] =
            sourced(f, "measured " + formatNumber(curve.rate_TFLOPs) + " TFLOP/s on large GEMMs");
        d.efficiency.gemm_half_gflop_by_precision[precision] =
            sourced(curve.half_gflop, "fitted half-rate GEMM size, GFLOP");
        if (precision == attentionPrecision(d)) {
            d.efficiency.gemm = d.efficiency.gemm_by_precision[precision];
            d.efficiency.gemm_half_gflop = d.efficiency.gemm_half_gflop_by_precision[precision];
        }
    }
    if (profile.fit.memory_TBps) {
        const double f = fraction("fit.memory_TBps", *profile.fit.memory_TBps, d.memory_bandwidth_TBps.value,
                                  "peak memory bandwidth (TB/s)");
        d.efficiency.memory = sourced(f, "measured " + formatNumber(*profile.fit.memory_TBps) + " TB/s");
    }
    // choreo-calibrate-gpu times attention unfused (batched GEMMs and a softmax kernel), which the step model
    // costs from the GEMM curve and the memory bandwidth; it says nothing of a fused kernel's rate, so the
    // device's fused-attention efficiency stays as the catalog has it.
    if (profile.fit.attention_TFLOPs && skipped)
        skipped->push_back("fused attention: not measured (the profile's attention is unfused, batched GEMMs "
                           "and softmax); " +
                           device.id + "'s catalog efficiency is kept");
    if (profile.fit.kernel_overhead_us)
        d.efficiency.kernel_overhead_us =
            sourced(*profile.fit.kernel_overhead_us, "measured back-to-back launch interval");
    if (profile.fit.host_link_GBps)
        d.host_link_GBps = sourced(*profile.fit.host_link_GBps,
                                   "measured pinned host copies, the slower direction, one device copying");
    if (profile.fit.idle_W)
        d.idle_W = sourced(*profile.fit.idle_W, "measured at idle");
    if (profile.fit.compute_W)
        d.tdp_W = sourced(*profile.fit.compute_W, "measured under compute-bound load (the simulator's busy "
                                                  "power); spec-sheet TDP " +
                                                      formatNumber(device.tdp_W.value) + " W");
    if (errors.size() != before)
        return false;
    device = std::move(d);
    return true;
}

std::vector<ComparisonRow> compareWithSpec(const Profile& profile, const Device* spec) {
    std::vector<ComparisonRow> rows;
    auto add = [&](std::string figure, const Sourced* s, std::optional<double> measured, std::string unit) {
        ComparisonRow row{std::move(figure), std::nullopt, measured, std::move(unit), {}};
        if (s && s->present()) {
            row.spec = s->value;
            row.spec_source = s->source;
        }
        rows.push_back(std::move(row));
    };
    for (const auto& [precision, curve] : profile.fit.gemm) {
        const std::string name = toString(precision);
        const Sourced* peak = nullptr;
        const Sourced* eff = nullptr;
        const Sourced* half = nullptr;
        if (spec) {
            if (auto it = spec->peak_tflops.find(precision); it != spec->peak_tflops.end())
                peak = &it->second;
            eff = &spec->efficiency.gemmAt(precision);
            half = &spec->efficiency.gemmHalfAt(precision);
        }
        add("GEMM " + name + ", large: rate", peak, curve.rate_TFLOPs, "TFLOP/s");
        add("GEMM " + name + ", large: fraction of peak", eff,
            peak && peak->value > 0 ? std::optional<double>(curve.rate_TFLOPs / peak->value) : std::nullopt,
            "fraction");
        add("GEMM " + name + ": half-rate size", half, curve.half_gflop, "GFLOP");
    }
    if (profile.fit.memory_TBps) {
        add("Memory bandwidth", spec ? &spec->memory_bandwidth_TBps : nullptr, profile.fit.memory_TBps,
            "TB/s");
        add("Memory bandwidth: fraction of peak", spec ? &spec->efficiency.memory : nullptr,
            spec && spec->memory_bandwidth_TBps.value > 0
                ? std::optional<double>(*profile.fit.memory_TBps / spec->memory_bandwidth_TBps.value)
                : std::nullopt,
            "fraction");
    }
    // Unfused attention: no spec-sheet figure to set it against (the catalog's is a fused kernel's).
    if (profile.fit.attention_TFLOPs)
        add("Attention, unfused (batched GEMMs, softmax): rate", nullptr, profile.fit.attention_TFLOPs,
            "TFLOP/s");
    if (profile.fit.kernel_overhead_us)
        add("Kernel launch overhead", spec ? &spec->efficiency.kernel_overhead_us : nullptr,
            profile.fit.kernel_overhead_us, "us");
    if (profile.fit.host_link_GBps)
        add("Host link (pinned copies, slower direction)", spec ? &spec->host_link_GBps : nullptr,
            profile.fit.host_link_GBps, "GB/s");
    if (profile.fit.idle_W)
        add("Power at idle", spec ? &spec->idle_W : nullptr, profile.fit.idle_W, "W");
    if (profile.fit.compute_W)
        add("Power, compute-bound (spec: TDP)", spec ? &spec->tdp_W : nullptr, profile.fit.compute_W, "W");
    if (profile.fit.memory_W)
        add("Power, memory-bound (spec: TDP)", spec ? &spec->tdp_W : nullptr, profile.fit.memory_W, "W");
    if (profile.layer && profile.layer->predicted_s > 0) {
        ComparisonRow row{"One layer forward+backward (spec: Choreo's prediction)",
                          profile.layer->predicted_s, profile.layer->measured_s, "s", "model"};
        rows.push_back(std::move(row));
    }
    return rows;
}

std::optional<std::filesystem::path> findProfile(const std::string& reference,
                                                 const std::vector<std::filesystem::path>& folders) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path ref(reference);
    if (reference.empty())
        return std::nullopt;
    if (ref.is_absolute())
        return fs::is_regular_file(ref, ec) ? std::optional<fs::path>(ref) : std::nullopt;
    for (const auto& folder : folders)
        for (const fs::path& candidate : {folder / ref, folder / fs::path(reference + ".json")})
            if (fs::is_regular_file(candidate, ec))
                return candidate;
    return std::nullopt;
}

std::string matchCatalogDevice(const std::string& gpuName, const Catalog& catalog) {
    std::string name;
    for (char c : gpuName)
        name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    // Names as the CUDA driver reports them; the first pattern contained in the name wins. Variants the
    // catalog lacks (PCIe and NVL cards) map to nothing rather than to their SXM cousins.
    static const std::vector<std::pair<std::string, std::string>> kPatterns = {
        {"pcie", ""},
        {"h100 nvl", ""},
        {"gh200", ""},
        {"gb300", "gb300"},
        {"gb200", "gb200"},
        {"b300", "b300"},
        {"b200", "b200"},
        {"h200", "h200-sxm"},
        {"h800", "h800-sxm"},
        {"h100", "h100-sxm"},
        {"a100-sxm4-80gb", "a100-sxm-80gb"},
        {"a100 80gb", "a100-sxm-80gb"},
        {"a100-sxm4-40gb", "a100-sxm-40gb"},
        {"l40s", "l40s"},
        {"rtx 4090", "rtx-4090"},
        {"mi300x", "mi300x"},
        {"mi325x", "mi325x"},
        {"mi355x", "mi355x"},
    };
    for (const auto& [pattern, id] : kPatterns)
        if (name.find(pattern) != std::string::npos)
            return !id.empty() && catalog.find(id) ? id : std::string();
    return {};
}

} // namespace choreo::models
