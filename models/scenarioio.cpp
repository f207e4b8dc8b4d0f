#include "models/scenarioio.h"

#include "models/fieldoverride.h"
#include "models/fieldtable.h"
#include "models/jsonreader.h"
#include "models/servestageio.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <system_error>
#include <utility>

namespace choreo::models {

std::string toString(TopologyKind kind) {
    switch (kind) {
    case TopologyKind::FatTree:
        return "fat-tree";
    case TopologyKind::SingleSwitch:
        return "single-switch";
    case TopologyKind::RailFatTree:
        return "rail-fat-tree";
    case TopologyKind::Dragonfly:
        return "dragonfly";
    case TopologyKind::Torus3d:
        return "torus-3d";
    }
    return "fat-tree";
}

std::string toString(AttentionKernel kernel) {
    switch (kernel) {
    case AttentionKernel::Unfused:
        return "unfused";
    case AttentionKernel::Flash2:
        return "flash2";
    case AttentionKernel::Fused:
        break;
    }
    return "fused";
}

std::string toString(GradientAccumulation accumulation) {
    return accumulation == GradientAccumulation::Separate ? "separate" : "fused";
}

std::string toString(Zero3Engine engine) {
    return engine == Zero3Engine::DeepSpeed2021 ? "deepspeed-2021" : "layered";
}

std::string toString(EpDispatcher dispatcher) {
    return dispatcher == EpDispatcher::DeepEp ? "deepep" : "alltoall";
}

std::string toString(Fp8Recipe recipe) {
    return recipe == Fp8Recipe::Current ? "current" : "delayed";
}

std::string toString(MasterWeights master) {
    return master == MasterWeights::Remainders ? "remainders" : "fp32";
}

std::string toString(Recompute recompute) {
    switch (recompute) {
    case Recompute::None:
        return "none";
    case Recompute::Selective:
        return "selective";
    case Recompute::Full:
        return "full";
    case Recompute::SelectiveOps:
        return "selective-ops";
    }
    return "none";
}

std::string toString(Modality modality) {
    switch (modality) {
    case Modality::Image:
        return "image";
    case Modality::Video:
        return "video";
    case Modality::Audio:
        return "audio";
    case Modality::Text:
        break;
    }
    return "text";
}

std::string toString(OffloadTarget target) {
    switch (target) {
    case OffloadTarget::Optimizer:
        return "optimizer";
    case OffloadTarget::Embeddings:
        return "embeddings";
    case OffloadTarget::Experts:
        break;
    }
    return "experts";
}

std::string toString(CostMode mode) {
    return mode == CostMode::Rent ? "rent" : "buy";
}

const Pool* Scenario::trainingPool() const {
    if (cluster.pools.empty())
        return nullptr;
    if (!workload.pool)
        return &cluster.pools.front();
    for (const auto& p : cluster.pools)
        if (p.name == *workload.pool)
            return &p;
    return nullptr;
}

Pool* Scenario::trainingPool() {
    return const_cast<Pool*>(static_cast<const Scenario*>(this)->trainingPool());
}

namespace {

Pool readPool(JsonReader& r, const Json& j, const std::string& path) {
    Pool p;
    if (!r.expectObject(j, path))
        return p;
    r.rejectUnknownKeys(j, path,
                        {"name", "device", "count", "devices_per_node", "rent_usd_per_device_hour",
                         "buy_usd_per_device", "power_limit_W"});
    p.name = r.text(j, path, "name").value_or("");
    p.device = r.text(j, path, "device").value_or("");
    p.count = r.integer(j, path, "count").value_or(0);
    p.devices_per_node = r.integer(j, path, "devices_per_node").value_or(0);
    p.rent_usd_per_device_hour = r.number(j, path, "rent_usd_per_device_hour", true, false);
    p.buy_usd_per_device = r.number(j, path, "buy_usd_per_device", true, false);
    p.power_limit_W = r.number(j, path, "power_limit_W", true, false);
    if (p.name.empty() && j.contains("name") && j["name"].is_string())
        r.error(JsonReader::join(path, "name"), "must not be empty");
    return p;
}

// The keys the field table describes in `objectPath`, and `extra` ones read by hand.
std::vector<std::string> allowedKeys(std::string_view objectPath, std::initializer_list<const char*> extra) {
    std::vector<std::string> keys = fieldKeysOf(objectPath);
    keys.insert(keys.end(), extra.begin(), extra.end());
    return keys;
}

// Reads the object at `path` (a key of `parent`) with the field table; a missing one is an error when
// `required`.
void readTableObject(JsonReader& r, const Json& parent, const std::string& parentPath, const char* key,
                     bool required, Scenario& s) {
    const std::string path = JsonReader::join(parentPath, key);
    auto it = parent.find(key);
    if (it == parent.end()) {
        if (required)
            r.error(path, "missing required field");
        return;
    }
    if (!r.expectObject(*it, path))
        return;
    r.rejectUnknownKeys(*it, path, allowedKeys(path, {}));
    readFields(r, *it, path, s);
}

// The 3D torus's dims: three positive integers (x, y, z).
void readTorusDims(JsonReader& r, const Json& topology, const std::string& topoPath, Topology& t) {
    auto it = topology.find("dims");
    if (it == topology.end())
        return;
    const std::string dimsPath = JsonReader::join(topoPath, "dims");
    if (!it->is_array() || it->size() != 3) {
        r.error(dimsPath, "expected an array of 3 positive integers (x, y, z)");
        return;
    }
    std::vector<std::int64_t> dims;
    for (std::size_t i = 0; i < 3; ++i) {
        const auto& d = (*it)[i];
        if (d.is_number_integer() && d.get<std::int64_t>() >= 1)
            dims.push_back(d.get<std::int64_t>());
        else
            r.error(JsonReader::index(dimsPath, i), "expected a positive integer, got " + d.dump());
    }
    if (dims.size() == 3)
        t.dims = dims;
}

// The network's fields come from the field table (cluster.network...); the torus's dims are read by hand.
void readNetwork(JsonReader& r, const Json& cluster, const std::string& path, Scenario& s) {
    const std::string netPath = JsonReader::join(path, "network");
    auto net = cluster.find("network");
    if (net == cluster.end()) {
        r.error(netPath, "missing required field");
        return;
    }
    if (!r.expectObject(*net, netPath))
        return;
    r.rejectUnknownKeys(*net, netPath, allowedKeys(netPath, {}));
    readFields(r, *net, netPath, s);
    readTableObject(r, *net, netPath, "scale_up", false, s);
    const std::string topoPath = JsonReader::join(netPath, "topology");
    auto topo = net->find("topology");
    if (topo == net->end()) {
        r.error(topoPath, "missing required field");
        return;
    }
    if (!r.expectObject(*topo, topoPath))
        return;
    r.rejectUnknownKeys(*topo, topoPath, allowedKeys(topoPath, {"dims"}));
    readFields(r, *topo, topoPath, s);
    readTorusDims(r, *topo, topoPath, s.cluster.network.topology);
}

void readCluster(JsonReader& r, const Json& j, const std::string& path, Scenario& s) {
    if (!r.expectObject(j, path))
        return;
    r.rejectUnknownKeys(j, path, {"pools", "network"});
    const std::string poolsPath = JsonReader::join(path, "pools");
    if (auto it = j.find("pools"); it == j.end()) {
        r.error(poolsPath, "missing required field");
    } else if (!it->is_array()) {
        r.error(poolsPath, "expected an array, got " + JsonReader::typeName(*it));
    } else if (it->empty()) {
        r.error(poolsPath, "at least one pool is needed");
    } else {
        for (std::size_t i = 0; i < it->size(); ++i)
            s.cluster.pools.push_back(readPool(r, (*it)[i], JsonReader::index(poolsPath, i)));
    }
    readNetwork(r, j, path, s);
}

void readModel(JsonReader& r, const Json& j, const std::string& path, Scenario& s) {
    if (!r.expectObject(j, path))
        return;
    r.rejectUnknownKeys(j, path, allowedKeys(path, {}));
    if (j.contains("moe")) {
        s.workload.model.moe.emplace();
        readTableObject(r, j, path, "moe", false, s);
    }
    readFields(r, j, path, s);
}

// The data stage at `path` into s.workload.data: its pool by hand, the rest with the field table
// (workload.stages[data]); messages name the stage's place in the file.
void readDataStage(JsonReader& r, const Json& j, const std::string& path, Scenario& s) {
    s.workload.data.emplace();
    r.rejectUnknownKeys(j, path, allowedKeys(kDataStagePath, {"kind", "pool"}));
    s.workload.data->pool = r.text(j, path, "pool", false);
    readFields(r, j, kDataStagePath, s, path);
}

OffloadStage readOffloadStage(JsonReader& r, const Json& j, const std::string& path) {
    OffloadStage o;
    r.rejectUnknownKeys(j, path, {"kind", "target", "pool"});
    o.pool = r.text(j, path, "pool", false);
    readChoice(r, j, path, "target", true,
               {OffloadTarget::Experts, OffloadTarget::Optimizer, OffloadTarget::Embeddings},
               "offload target", o.target);
    return o;
}

// The eval stage at `path` into s.workload.eval, as readDataStage does.
void readEvalStage(JsonReader& r, const Json& j, const std::string& path, Scenario& s) {
    s.workload.eval.emplace();
    r.rejectUnknownKeys(j, path, allowedKeys(kEvalStagePath, {"kind", "pool"}));
    s.workload.eval->pool = r.text(j, path, "pool", false);
    readFields(r, j, kEvalStagePath, s, path);
}

// workload.stages: the pipeline around the training step. "train" may name the training pool (as
// workload.pool does); "data" is the input pipeline, at most one.
void readStages(JsonReader& r, const Json& j, const std::string& path, Scenario& s) {
    Workload& w = s.workload;
    if (!j.is_array()) {
        r.error(path, "expected an array, got " + JsonReader::typeName(j));
        return;
    }
    for (std::size_t i = 0; i < j.size(); ++i) {
        const std::string here = JsonReader::index(path, i);
        if (!r.expectObject(j[i], here))
            continue;
        const auto kind = r.text(j[i], here, "kind");
        if (!kind)
            continue;
        if (*kind == "data") {
            if (w.data)
                r.error(JsonReader::join(here, "kind"),
                        "a second data stage (one input pipeline per workload)");
            else {
                readDataStage(r, j[i], here, s);
                w.data->stage_index = i;
            }
        } else if (*kind == "train") {
            w.train_stage_index = i;
            r.rejectUnknownKeys(j[i], here, {"kind", "pool"});
            if (auto pool = r.text(j[i], here, "pool", false)) {
                if (w.pool && *w.pool != *pool)
                    r.error(JsonReader::join(here, "pool"),
                            "\"" + *pool + "\" differs from workload.pool \"" + *w.pool + "\"");
                w.pool = pool;
            }
        } else if (*kind == "offload") {
            OffloadStage stage = readOffloadStage(r, j[i], here);
            stage.stage_index = i;
            if (w.offloaded(stage.target))
                r.error(JsonReader::join(here, "target"),
                        "a second \"" + toString(stage.target) + "\" offload stage");
            else
                w.offload.push_back(stage);
        } else if (*kind == "eval") {
            if (w.eval)
                r.error(JsonReader::join(here, "kind"), "a second eval stage (one evaluation per workload)");
            else {
                readEvalStage(r, j[i], here, s);
                w.eval->stage_index = i;
            }
        } else if (*kind == "serve") {
            if (w.serve)
                r.error(JsonReader::join(here, "kind"), "a second serve stage (one serving per workload)");
            else {
                w.serve = readServeStage(r, j[i], here);
                w.serve->stage_index = i;
            }
        } else {
            r.error(JsonReader::join(here, "kind"),
                    "unknown stage kind \"" + *kind + "\" (known: data, train, offload, eval, serve)");
        }
    }
}

void readWorkload(JsonReader& r, const Json& j, const std::string& path, Scenario& s) {
    if (!r.expectObject(j, path))
        return;
    r.rejectUnknownKeys(j, path, allowedKeys(path, {"gradient_precision", "pool", "stages"}));
    Workload& w = s.workload;
    // The kind decides which fields apply (the table reads and checks it again below).
    if (auto kind = j.find("kind"); kind != j.end() && kind->is_string() && *kind == "serve")
        w.kind = WorkloadKind::Serve;
    if (auto it = j.find("model"); it != j.end())
        readModel(r, *it, JsonReader::join(path, "model"), s);
    else
        r.error(JsonReader::join(path, "model"), "missing required field");
    readFields(r, j, path, s);
    if (w.trains()) {
        readTableObject(r, j, path, "parallel", true, s);
        readTableObject(r, j, path, "overlap", false, s);
        readTableObject(r, j, path, "reliability", false, s);
        readTableObject(r, j, path, "recompute_modules", false, s);
    } else {
        for (const char* key :
             {"parallel", "overlap", "reliability", "recompute_modules", "gradient_precision"})
            if (j.contains(key))
                r.error(
                    JsonReader::join(path, key),
                    "only for training workloads (workload.kind is \"serve\"; the serve stage has its own "
                    "parallel layout)");
    }
    if (auto g = r.text(j, path, "gradient_precision", false)) {
        if (auto gp = precisionFromString(*g);
            gp && (*gp == Precision::Fp32 || *gp == Precision::Bf16 || *gp == Precision::Fp16))
            w.gradient_precision = *gp;
        else
            r.error(JsonReader::join(path, "gradient_precision"),
                    "unsupported gradient precision \"" + *g + "\" (known: fp32, bf16, fp16)");
    }
    w.pool = r.text(j, path, "pool", false);
    if (auto it = j.find("stages"); it != j.end())
        readStages(r, *it, JsonReader::join(path, "stages"), s);
    if (!w.trains()) {
        if (!w.serve)
            r.error(JsonReader::join(path, "stages"),
                    "a serving workload (workload.kind \"serve\") needs a stage of kind \"serve\"");
        if (w.data || !w.offload.empty() || w.eval || w.train_stage_index)
            r.error(
                JsonReader::join(path, "stages"),
                "a serving workload has only its serve stage (data, train, offload and eval stages belong "
                "to training)");
    }
}

void readCosts(JsonReader& r, const Json& j, const std::string& path, Scenario& s) {
    if (!r.expectObject(j, path))
        return;
    r.rejectUnknownKeys(j, path, allowedKeys(path, {}));
    readFields(r, j, path, s);
}

CalibrationRef readCalibration(JsonReader& r, const Json& j, const std::string& path) {
    CalibrationRef c;
    if (!r.expectObject(j, path))
        return c;
    r.rejectUnknownKeys(j, path, {"profile", "device"});
    c.profile = r.text(j, path, "profile").value_or("");
    if (c.profile.empty() && j.contains("profile") && j["profile"].is_string())
        r.error(JsonReader::join(path, "profile"), "must not be empty");
    c.device = r.text(j, path, "device", false);
    return c;
}

template <typename T>
void putOptional(Json& j, const char* key, const std::optional<T>& value) {
    if (value)
        j[key] = *value;
}

// workload.stages in the order the file gave them (empty when the workload has none).
Json stagesToJson(const Scenario& s) {
    const Workload& w = s.workload;
    std::vector<std::pair<std::size_t, Json>> stages;
    if (w.data) {
        Json stage{{"kind", "data"}};
        putOptional(stage, "pool", w.data->pool);
        writeFields(stage, kDataStagePath, s);
        stages.emplace_back(w.data->stage_index, stage);
    }
    if (w.train_stage_index) {
        Json stage{{"kind", "train"}};
        putOptional(stage, "pool", w.pool);
        stages.emplace_back(*w.train_stage_index, stage);
    }
    if (w.eval) {
        Json stage{{"kind", "eval"}};
        putOptional(stage, "pool", w.eval->pool);
        writeFields(stage, kEvalStagePath, s);
        stages.emplace_back(w.eval->stage_index, stage);
    }
    for (const OffloadStage& o : w.offload) {
        Json stage{{"kind", "offload"}, {"target", toString(o.target)}};
        putOptional(stage, "pool", o.pool);
        stages.emplace_back(o.stage_index, stage);
    }
    if (w.serve)
        stages.emplace_back(w.serve->stage_index, serveStageToJson(*w.serve));
    std::stable_sort(stages.begin(), stages.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    Json list = Json::array();
    for (auto& [index, stage] : stages)
        list.push_back(std::move(stage));
    return list;
}

} // namespace

std::optional<Scenario> parseScenario(const std::string& text, Diagnostics& errors) {
    const auto parsed = parseDocument(text, errors);
    if (!parsed)
        return std::nullopt;
    return readScenarioDocument(*parsed, errors);
}

std::optional<Scenario> readScenarioDocument(const Json& doc, Diagnostics& errors) {
    const std::size_t before = errors.size();
    JsonReader r(errors);
    if (!r.expectObject(doc, ""))
        return std::nullopt;
    r.rejectUnknownKeys(doc, "",
                        {"format", "name", "description", "cluster", "workload", "costs", "calibration"});
    Scenario s;
    if (auto format = r.text(doc, "", "format"); format && *format != kScenarioFormat)
        r.error("format",
                "unsupported format \"" + *format + "\" (this version reads \"" + kScenarioFormat + "\")");
    s.name = r.text(doc, "", "name").value_or("");
    s.description = r.text(doc, "", "description", false);
    if (auto it = doc.find("cluster"); it != doc.end())
        readCluster(r, *it, "cluster", s);
    else
        r.error("cluster", "missing required field");
    if (auto it = doc.find("workload"); it != doc.end())
        readWorkload(r, *it, "workload", s);
    else
        r.error("workload", "missing required field");
    if (auto it = doc.find("costs"); it != doc.end())
        readCosts(r, *it, "costs", s);
    else
        r.error("costs", "missing required field");
    if (auto it = doc.find("calibration"); it != doc.end())
        s.calibration = readCalibration(r, *it, "calibration");
    if (errors.size() != before)
        return std::nullopt;
    return s;
}

std::string serializeScenario(const Scenario& s) {
    Json doc;
    doc["format"] = kScenarioFormat;
    doc["name"] = s.name;
    putOptional(doc, "description", s.description);

    Json pools = Json::array();
    for (const auto& p : s.cluster.pools) {
        Json pool{{"name", p.name},
                  {"device", p.device},
                  {"count", p.count},
                  {"devices_per_node", p.devices_per_node}};
        putOptional(pool, "rent_usd_per_device_hour", p.rent_usd_per_device_hour);
        putOptional(pool, "buy_usd_per_device", p.buy_usd_per_device);
        putOptional(pool, "power_limit_W", p.power_limit_W);
        pools.push_back(pool);
    }
    Json network = Json::object();
    writeFields(network, "cluster.network", s);
    putOptional(network["topology"], "dims", s.cluster.network.topology.dims);
    doc["cluster"] = Json{{"pools", pools}, {"network", network}};

    const auto& w = s.workload;
    Json workload = Json::object();
    writeFields(workload, "workload", s);
    if (w.gradient_precision) // omitted: the default
        workload["gradient_precision"] = toString(*w.gradient_precision);
    putOptional(workload, "pool", w.pool);
    if (auto stages = stagesToJson(s); !stages.empty())
        workload["stages"] = stages;
    doc["workload"] = workload;
    Json costs = Json::object();
    writeFields(costs, "costs", s);
    doc["costs"] = costs;
    if (s.calibration) {
        Json calibration{{"profile", s.calibration->profile}};
        putOptional(calibration, "device", s.calibration->device);
        doc["calibration"] = calibration;
    }
    return doc.dump(2) + "\n";
}

bool readTextFile(const std::filesystem::path& path, std::string& out, std::string& error) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        error = "cannot open " + path.string() + ": " + std::generic_category().message(errno);
        return false;
    }
    // Read in pieces up to the limit, so that /dev/zero or a huge file is refused rather than exhausting
    // memory.
    std::string text;
    char piece[1 << 16];
    while (in.read(piece, sizeof piece) || in.gcount() > 0) {
        text.append(piece, static_cast<std::size_t>(in.gcount()));
        if (text.size() > kMaxInputFileBytes) {
            error = "cannot read " + path.string() + ": larger than " +
                    std::to_string(kMaxInputFileBytes >> 20) + " MiB, the limit for Choreo's input files";
            return false;
        }
    }
    if (in.bad()) {
        error = "cannot read " + path.string();
        return false;
    }
    out = std::move(text);
    return true;
}

bool writeTextFileAtomically(const std::filesystem::path& path, const std::string& text, std::string& error) {
    const std::filesystem::path tmp = path.string() + ".tmp-choreo";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) {
            error = "cannot write " + tmp.string() + ": " + std::generic_category().message(errno);
            return false;
        }
        out << text;
        out.flush();
        if (!out) {
            const int cause = errno; // ENOSPC or EDQUOT on a full disk or quota, EFBIG past a size limit
            error = "cannot save " + path.string() + ": " + std::generic_category().message(cause) +
                    " (is the disk full?); the file was not changed";
            out.close();
            std::error_code ignored;
            std::filesystem::remove(tmp, ignored);
            return false;
        }
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        error = "cannot replace " + path.string() + ": " + ec.message();
        std::filesystem::remove(tmp, ec);
        return false;
    }
    return true;
}

std::optional<Scenario> loadScenarioFile(const std::filesystem::path& path, Diagnostics& errors,
                                         const std::vector<FieldOverride>& overrides) {
    std::string text, error;
    if (!readTextFile(path, text, error)) {
        errors.push_back({"(file)", error});
        return std::nullopt;
    }
    if (overrides.empty())
        return parseScenario(text, errors);
    auto document = parseDocument(text, errors);
    if (!document || !applyFieldOverrides(*document, overrides, errors))
        return std::nullopt;
    return readScenarioDocument(*document, errors);
}

bool saveScenarioFile(const std::filesystem::path& path, const Scenario& scenario, std::string& error) {
    return writeTextFileAtomically(path, serializeScenario(scenario), error);
}

} // namespace choreo::models
