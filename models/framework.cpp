#include "models/framework.h"

#include "models/catalog.h"
#include "models/fieldtable.h"
#include "models/jsonreader.h"
#include "models/precision.h"
#include "models/scenario.h"

#include <algorithm>
#include <cctype>

namespace choreo::models {

namespace {

// Behaviours set fields of the training step; gradient_precision, an optional of the workload the table
// does not hold, is set by hand.
constexpr const char* kGradientPrecision = "gradient_precision";
const std::vector<std::string> kGradientPrecisions{"fp32", "bf16", "fp16", "16-bit"};

const FieldSpec* workloadField(const std::string& field) {
    return findField("workload." + field);
}

// A JSON value as the field's value, nullopt where its type is not the field's.
std::optional<FieldValue> fieldValueOf(const FieldSpec& field, const Json& value) {
    switch (field.kind) {
    case FieldKind::Flag:
        if (value.is_boolean())
            return FieldValue{value.get<bool>()};
        break;
    case FieldKind::Count:
        if (value.is_number_integer())
            return FieldValue{value.get<std::int64_t>()};
        break;
    case FieldKind::Number:
    case FieldKind::OptionalNumber:
        if (value.is_number())
            return FieldValue{value.get<double>()};
        break;
    case FieldKind::Text:
    case FieldKind::Choice:
        if (value.is_string())
            return FieldValue{value.get<std::string>()};
        break;
    }
    return std::nullopt;
}

// What is wrong with `value` for the behaviour or condition field `field`; empty when it fits.
std::string checkValue(const std::string& field, const Json& value) {
    if (field == kGradientPrecision) {
        const bool known =
            value.is_string() && std::find(kGradientPrecisions.begin(), kGradientPrecisions.end(),
                                           value.get<std::string>()) != kGradientPrecisions.end();
        return known ? std::string() : "expected one of fp32, bf16, fp16, 16-bit, got " + value.dump();
    }
    const FieldSpec* spec = workloadField(field);
    if (!spec)
        return "\"" + field + "\" is not a field of the workload (choreo-sim fields lists them)";
    const auto converted = fieldValueOf(*spec, value);
    if (!converted)
        return "expected a value of workload." + field + ", got " + value.dump();
    return checkFieldValue(*spec, *converted);
}

std::vector<std::string> textList(JsonReader& reader, const Json& object, const std::string& path,
                                  const char* key) {
    std::vector<std::string> out;
    const auto it = object.find(key);
    if (it == object.end())
        return out;
    if (!it->is_array()) {
        reader.error(JsonReader::join(path, key), "expected an array of strings");
        return out;
    }
    for (const auto& item : *it)
        if (item.is_string())
            out.push_back(item.get<std::string>());
        else
            reader.error(JsonReader::join(path, key), "expected an array of strings");
    return out;
}

// {"FIELD": [VALUE, ...], ...}: the run's field holds one of the values.
std::vector<FrameworkCondition> readConditions(JsonReader& reader, const Json& object,
                                               const std::string& path, const char* key) {
    std::vector<FrameworkCondition> out;
    const auto it = object.find(key);
    if (it == object.end())
        return out;
    const std::string here = JsonReader::join(path, key);
    if (!reader.expectObject(*it, here))
        return out;
    for (const auto& [field, values] : it->items()) {
        std::string at = here;
        at += "." + field;
        if (!values.is_array() || values.empty()) {
            reader.error(at, "expected a non-empty array of values");
            continue;
        }
        FrameworkCondition condition{field, {}};
        for (const auto& value : values) {
            if (const std::string problem = checkValue(field, value); !problem.empty())
                reader.error(at, problem);
            condition.values.push_back(value.dump());
        }
        out.push_back(std::move(condition));
    }
    return out;
}

std::optional<FrameworkBehaviour> readBehaviour(JsonReader& reader, const Json& entry,
                                                const std::string& path,
                                                std::vector<std::pair<std::string, std::string>>& citations) {
    if (!reader.expectObject(entry, path))
        return std::nullopt;
    reader.rejectUnknownKeys(
        entry, path, {"field", "value", "source", "note", "when", "unless", "devices", "except_devices"});
    FrameworkBehaviour b;
    b.field = reader.text(entry, path, "field").value_or("");
    b.source = reader.text(entry, path, "source").value_or("");
    b.note = reader.text(entry, path, "note", false).value_or("");
    if (const auto it = entry.find("value"); it == entry.end())
        reader.error(JsonReader::join(path, "value"), "missing required field");
    else if (const std::string problem = b.field.empty() ? std::string() : checkValue(b.field, *it);
             !problem.empty())
        reader.error(JsonReader::join(path, "value"), problem);
    else
        b.value = it->dump();
    b.when = readConditions(reader, entry, path, "when");
    b.unless = readConditions(reader, entry, path, "unless");
    b.devices = textList(reader, entry, path, "devices");
    b.except_devices = textList(reader, entry, path, "except_devices");
    if (!b.source.empty())
        citations.emplace_back(JsonReader::join(path, "source"), b.source);
    return b;
}

// "YYYY-MM" as YYYY * 12 + MM - 1, nullopt when it is not a month.
std::optional<int> monthIndex(const std::string& text) {
    if (text.size() != 7 || text[4] != '-')
        return std::nullopt;
    for (std::size_t i : {0U, 1U, 2U, 3U, 5U, 6U})
        if (!std::isdigit(static_cast<unsigned char>(text[i])))
            return std::nullopt;
    const int month = std::stoi(text.substr(5, 2));
    if (month < 1 || month > 12)
        return std::nullopt;
    return std::stoi(text.substr(0, 4)) * 12 + month - 1;
}

std::string lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}

const FrameworkProfile* profileWithId(const Catalog& catalog, const std::string& id) {
    for (const auto& profile : catalog.frameworkProfiles())
        if (profile.id == id)
            return &profile;
    return nullptr;
}

// The profile's behaviours with those of the profiles it extends, later ones replacing earlier ones of the
// same field.
std::vector<const FrameworkBehaviour*> effectiveBehaviours(const Catalog& catalog,
                                                           const FrameworkProfile& p) {
    std::vector<const FrameworkBehaviour*> out;
    if (const FrameworkProfile* base = p.extends.empty() ? nullptr : profileWithId(catalog, p.extends))
        out = effectiveBehaviours(catalog, *base);
    for (const auto& b : p.behaviours) {
        std::erase_if(out, [&](const FrameworkBehaviour* earlier) { return earlier->field == b.field; });
        out.push_back(&b);
    }
    return out;
}

bool holds(const Scenario& written, const FrameworkCondition& condition) {
    if (condition.field == kGradientPrecision) {
        const std::string name = toString(written.workload.gradientPrecision());
        return std::any_of(condition.values.begin(), condition.values.end(),
                           [&](const std::string& v) { return Json::parse(v) == name; });
    }
    const FieldSpec* spec = workloadField(condition.field);
    const FieldValue now = spec->get(written);
    return std::any_of(condition.values.begin(), condition.values.end(), [&](const std::string& v) {
        const auto value = fieldValueOf(*spec, Json::parse(v));
        return value && *value == now;
    });
}

bool appliesTo(const FrameworkBehaviour& b, const Scenario& written, const std::string& device) {
    const auto listed = [&](const std::vector<std::string>& ids) {
        return std::find(ids.begin(), ids.end(), device) != ids.end();
    };
    if ((!b.devices.empty() && !listed(b.devices)) || listed(b.except_devices))
        return false;
    const auto& w = written.workload;
    // Sequence parallelism splits the sequence over the tensor ranks: a run without tensor parallelism, or
    // whose sequence does not divide, is simulated without it rather than refused for a split it never asked
    // for.
    if (b.field == "parallel.sequence_parallel" && b.value == "true" &&
        (w.parallel.tp <= 1 || w.model.seq_len % w.parallel.tp != 0))
        return false;
    return std::all_of(b.when.begin(), b.when.end(), [&](const auto& c) { return holds(written, c); }) &&
           std::none_of(b.unless.begin(), b.unless.end(), [&](const auto& c) { return holds(written, c); });
}

// Sets the behaviour's field; returns it in words ("Attention: unfused (scores in memory)").
std::string setBehaviour(const FrameworkBehaviour& b, Scenario& s) {
    if (b.field == kGradientPrecision) {
        const std::string name = Json::parse(b.value).get<std::string>();
        s.workload.gradient_precision =
            name == "16-bit" ? s.workload.sixteenBitPrecision() : *precisionFromString(name);
        return "gradients in " + toString(*s.workload.gradient_precision);
    }
    const FieldSpec* spec = workloadField(b.field);
    spec->set(s, *fieldValueOf(*spec, Json::parse(b.value)));
    return spec->label + ": " + spec->describe(s);
}

// The device of the pool that trains, as its catalog id; empty when the pool or device is unknown (the
// resolver says so).
std::string trainingDeviceId(const Scenario& s, const Catalog& catalog) {
    const auto& pools = s.cluster.pools;
    auto it = pools.begin();
    if (s.workload.pool)
        it = std::find_if(pools.begin(), pools.end(),
                          [&](const Pool& p) { return p.name == *s.workload.pool; });
    if (it == pools.end())
        return {};
    const Device* device = catalog.find(it->device);
    return device ? device->id : std::string();
}

} // namespace

std::optional<FrameworkProfile>
readFrameworkProfile(JsonReader& reader, const Json& entry, const std::string& path,
                     std::vector<std::pair<std::string, std::string>>& citations) {
    if (!reader.expectObject(entry, path))
        return std::nullopt;
    reader.rejectUnknownKeys(entry, path, {"id", "framework", "name", "from", "extends", "behaviours"});
    FrameworkProfile p;
    p.id = reader.text(entry, path, "id").value_or("");
    p.framework = lower(reader.text(entry, path, "framework").value_or(""));
    p.name = reader.text(entry, path, "name").value_or("");
    p.from = reader.text(entry, path, "from").value_or("");
    p.extends = reader.text(entry, path, "extends", false).value_or("");
    if (!p.from.empty() && !monthIndex(p.from))
        reader.error(JsonReader::join(path, "from"), "expected a month as YYYY-MM, got \"" + p.from + "\"");
    const auto behaviours = entry.find("behaviours");
    if (behaviours == entry.end() || !behaviours->is_array()) {
        reader.error(JsonReader::join(path, "behaviours"), "expected an array of behaviours");
        return std::nullopt;
    }
    for (std::size_t i = 0; i < behaviours->size(); ++i)
        if (auto b = readBehaviour(reader, (*behaviours)[i],
                                   JsonReader::index(JsonReader::join(path, "behaviours"), i), citations))
            p.behaviours.push_back(std::move(*b));
    return p;
}

void checkFrameworkProfiles(const Catalog& catalog, Diagnostics& errors) {
    const auto& profiles = catalog.frameworkProfiles();
    for (const auto& p : profiles) {
        const std::string where = "training_frameworks." + p.id;
        if (!p.extends.empty()) {
            const FrameworkProfile* base = profileWithId(catalog, p.extends);
            if (!base || base->framework != p.framework || base->from >= p.from)
                errors.push_back({where + ".extends",
                                  "\"" + p.extends + "\" is not an earlier " + p.framework + " profile"});
        }
        for (const auto& other : profiles)
            if (&other < &p && other.framework == p.framework && other.from == p.from)
                errors.push_back({where + ".from", p.framework + " already has a profile from " + p.from +
                                                       " (" + other.id + ")"});
        for (const auto& b : p.behaviours)
            for (const auto* list : {&b.devices, &b.except_devices})
                for (const auto& id : *list)
                    if (!catalog.find(id))
                        errors.push_back({where + "." + b.field, "unknown device \"" + id + "\""});
    }
}

const FrameworkProfile* selectFrameworkProfile(const Catalog& catalog, const std::string& framework,
                                               const std::string& version, Diagnostics& errors) {
    const std::string wanted = lower(framework);
    std::vector<const FrameworkProfile*> line;
    std::vector<std::string> known;
    for (const auto& p : catalog.frameworkProfiles()) {
        if (std::find(known.begin(), known.end(), p.framework) == known.end())
            known.push_back(p.framework);
        if (p.framework == wanted)
            line.push_back(&p);
    }
    if (line.empty()) {
        std::string list;
        for (const auto& k : known)
            list += (list.empty() ? "" : ", ") + k;
        errors.push_back(
            {"workload.framework", "unknown framework \"" + framework + "\" (known: " + list + ")"});
        return nullptr;
    }
    std::sort(line.begin(), line.end(), [](const auto* a, const auto* b) { return a->from < b->from; });
    if (version.empty())
        return line.back();
    if (!monthIndex(version)) {
        errors.push_back({"workload.framework_version",
                          "expected the release's month as YYYY-MM, got \"" + version + "\""});
        return nullptr;
    }
    const FrameworkProfile* chosen = nullptr;
    for (const auto* p : line)
        if (p->from <= version)
            chosen = p;
    if (!chosen)
        errors.push_back({"workload.framework_version", version + " is before the first " + wanted +
                                                            " profile (" + line.front()->id + ", from " +
                                                            line.front()->from + ")"});
    return chosen;
}

std::optional<std::string> applyFrameworkProfile(Scenario& s, const Catalog& catalog, Diagnostics& errors) {
    if (s.workload.framework.empty())
        return std::string();
    const FrameworkProfile* profile =
        selectFrameworkProfile(catalog, s.workload.framework, s.workload.framework_version, errors);
    if (!profile)
        return std::nullopt;
    const Scenario written = s;
    const std::string device = trainingDeviceId(written, catalog);
    std::string applied;
    for (const FrameworkBehaviour* b : effectiveBehaviours(catalog, *profile))
        if (appliesTo(*b, written, device))
            applied += (applied.empty() ? "" : ", ") + setBehaviour(*b, s);
    return profile->id + " (" + profile->name +
           "): " + (applied.empty() ? "nothing beyond the scenario" : applied);
}

} // namespace choreo::models
