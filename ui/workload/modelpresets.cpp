#include "ui/workload/modelpresets.h"

#include "models/fieldtable.h"
#include "models/jsonreader.h"

#include <fstream>
#include <set>
#include <sstream>

namespace choreo::ui {

namespace {

using models::Json;
using models::JsonReader;

// A preset's dense shape: the scenario's model fields (models/fieldtable.cpp) but its name and experts,
// under the same rules, so that a preset never makes an invalid scenario.
std::optional<models::ModelShape> readShape(JsonReader& r, const Json& object, const std::string& path,
                                            const std::string& name) {
    if (!r.expectObject(object, path))
        return std::nullopt;
    std::vector<std::string> keys = models::fieldKeysOf("workload.model");
    std::erase_if(keys, [](const std::string& key) { return key == "name" || key == "moe"; });
    r.rejectUnknownKeys(object, path, keys);
    Json named = object;
    named["name"] = name;
    models::Scenario read;
    models::Diagnostics problems;
    JsonReader shapeReader(problems);
    models::readFields(shapeReader, named, "workload.model", read, path);
    for (const auto& problem : problems)
        r.error(problem.path, problem.message);
    if (!problems.empty())
        return std::nullopt;
    const models::ModelShape& s = read.workload.model;
    if (s.head_dim == 0 && s.hidden % s.heads != 0) {
        r.error(JsonReader::join(path, "heads"), "must divide hidden (" + std::to_string(s.hidden) + ")");
        return std::nullopt;
    }
    if (s.heads % s.kv_heads != 0) {
        r.error(JsonReader::join(path, "kv_heads"), "must divide heads (" + std::to_string(s.heads) + ")");
        return std::nullopt;
    }
    return s;
}

std::optional<ExpertShape> readExperts(JsonReader& r, const Json& object, const std::string& path) {
    if (!r.expectObject(object, path))
        return std::nullopt;
    r.rejectUnknownKeys(object, path, {"routed", "active", "shared", "expert_ffn_hidden", "dense_layers"});
    const auto routed = r.integer(object, path, "routed");
    const auto active = r.integer(object, path, "active");
    // Shared experts are optional: most MoE models have none.
    const auto shared =
        object.contains("shared") ? r.integer(object, path, "shared", 0) : std::optional<std::int64_t>(0);
    const auto width = r.integer(object, path, "expert_ffn_hidden");
    const auto dense = object.contains("dense_layers") ? r.integer(object, path, "dense_layers", 0)
                                                       : std::optional<std::int64_t>(0);
    if (!routed || !active || !shared || !width || !dense)
        return std::nullopt;
    if (*active > *routed) {
        r.error(JsonReader::join(path, "active"), "more active experts than routed ones");
        return std::nullopt;
    }
    return ExpertShape{*routed, *active, *shared, *width, *dense};
}

} // namespace

std::optional<std::vector<ModelPreset>> parseModelPresets(const std::string& text,
                                                          models::Diagnostics& errors) {
    const std::size_t before = errors.size();
    JsonReader r(errors);
    Json doc;
    try {
        doc = Json::parse(text);
    } catch (const Json::parse_error& e) {
        r.error("(document)", std::string("not valid JSON: ") + e.what());
        return std::nullopt;
    }
    if (!r.expectObject(doc, ""))
        return std::nullopt;
    r.rejectUnknownKeys(doc, "", {"format", "presets"});
    const auto format = r.text(doc, "", "format");
    if (format && *format != kModelPresetsFormat)
        r.error("format", "expected \"" + std::string(kModelPresetsFormat) + "\", got \"" + *format + "\"");
    const auto it = doc.find("presets");
    if (it == doc.end() || !it->is_array()) {
        r.error("presets",
                it == doc.end() ? "missing" : "expected an array, got " + JsonReader::typeName(*it));
        return std::nullopt;
    }
    std::vector<ModelPreset> presets;
    std::set<std::string> ids;
    for (std::size_t i = 0; i < it->size(); ++i) {
        const std::string path = JsonReader::index("presets", i);
        const Json& p = (*it)[i];
        if (!r.expectObject(p, path))
            continue;
        r.rejectUnknownKeys(p, path, {"id", "name", "shape", "experts", "note", "source", "url", "as_of"});
        ModelPreset preset;
        const auto id = r.text(p, path, "id");
        const auto name = r.text(p, path, "name");
        const auto source = r.text(p, path, "source");
        const auto url = r.text(p, path, "url");
        const auto asOf = r.text(p, path, "as_of");
        const auto note = r.text(p, path, "note", false);
        std::optional<models::ModelShape> shape;
        if (const auto s = p.find("shape"); s != p.end())
            shape = readShape(r, *s, JsonReader::join(path, "shape"), name.value_or(std::string()));
        else
            r.error(JsonReader::join(path, "shape"), "missing");
        if (const auto e = p.find("experts"); e != p.end()) {
            preset.experts = readExperts(r, *e, JsonReader::join(path, "experts"));
            if (preset.experts && (!note || note->empty()))
                r.error(JsonReader::join(path, "note"),
                        "a preset with experts must say what its simulation leaves out");
        }
        if (id && !ids.insert(*id).second)
            r.error(JsonReader::join(path, "id"), "\"" + *id + "\" is used by an earlier preset");
        if (source && source->empty())
            r.error(JsonReader::join(path, "source"), "must not be empty: every shape needs its source");
        if (!id || !name || !source || !url || !asOf || !shape)
            continue;
        preset.id = *id;
        preset.shape = *shape;
        preset.shape.name = *name;
        if (preset.experts)
            preset.shape.moe = models::MoeShape{preset.experts->routed, preset.experts->active,
                                                preset.experts->expert_ffn_hidden, preset.experts->shared,
                                                preset.experts->dense_layers};
        preset.note = note.value_or(std::string());
        preset.source = *source;
        preset.url = *url;
        preset.as_of = *asOf;
        presets.push_back(std::move(preset));
    }
    if (errors.size() != before)
        return std::nullopt;
    return presets;
}

std::optional<std::vector<ModelPreset>> loadModelPresets(const std::filesystem::path& file,
                                                         models::Diagnostics& errors) {
    std::ifstream in(file);
    if (!in) {
        errors.push_back({file.string(), "cannot be read"});
        return std::nullopt;
    }
    std::stringstream text;
    text << in.rdbuf();
    return parseModelPresets(text.str(), errors);
}

const ModelPreset* findPreset(const std::vector<ModelPreset>& presets, const models::ModelShape& shape) {
    for (const auto& p : presets) {
        models::ModelShape named = shape;
        named.name = p.shape.name;
        if (named == p.shape)
            return &p;
    }
    return nullptr;
}

} // namespace choreo::ui
