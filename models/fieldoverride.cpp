#include "models/fieldoverride.h"

#include <cctype>

namespace choreo::models {

namespace {

// One step of a path: an object's key, or an array's index, or the array's entry of a kind
// ("workload.stages[data]": the stage whose "kind" is "data").
struct PathStep {
    std::string key; // empty for an index
    std::size_t index = 0;
    std::string kind;  // set for an entry named by its kind
    std::string shown; // the path up to and including this step
};

bool isKeyCharacter(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// "cluster.pools[1].count" as its steps; nullopt with `error` for a malformed path.
std::optional<std::vector<PathStep>> pathSteps(const std::string& path, std::string& error) {
    std::vector<PathStep> steps;
    std::string shown;
    std::size_t i = 0;
    while (i < path.size()) {
        std::size_t end = i;
        while (end < path.size() && isKeyCharacter(path[end]))
            ++end;
        if (end == i) {
            error = "expected a field name at character " + std::to_string(i + 1) + " of \"" + path + "\"";
            return std::nullopt;
        }
        shown += (shown.empty() ? "" : ".") + path.substr(i, end - i);
        steps.push_back({path.substr(i, end - i), 0, "", shown});
        i = end;
        while (i < path.size() && path[i] == '[') {
            const std::size_t close = path.find(']', i);
            const std::string inside = close == std::string::npos ? "" : path.substr(i + 1, close - i - 1);
            const bool number = !inside.empty() && inside.size() <= 6 &&
                                inside.find_first_not_of("0123456789") == std::string::npos;
            const bool kind = !inside.empty() && inside.size() <= 16 &&
                              inside.find_first_not_of("abcdefghijklmnopqrstuvwxyz") == std::string::npos;
            if (!number && !kind) {
                error = "expected [INDEX] with a whole number, or [KIND] with a stage's kind, after \"" +
                        shown + "\"";
                return std::nullopt;
            }
            shown += "[" + inside + "]";
            steps.push_back(
                {"", number ? static_cast<std::size_t>(std::stoul(inside)) : 0, kind ? inside : "", shown});
            i = close + 1;
        }
        if (i < path.size() && path[i] != '.') {
            error = "unexpected \"" + path.substr(i, 1) + "\" after \"" + shown + "\"";
            return std::nullopt;
        }
        if (i < path.size() && ++i == path.size()) {
            error = "the path ends with \".\"";
            return std::nullopt;
        }
    }
    return steps;
}

} // namespace

std::optional<FieldOverride> parseFieldOverride(const std::string& assignment, std::string& error) {
    const std::size_t equals = assignment.find('=');
    if (equals == std::string::npos || equals == 0) {
        error = "expected PATH=VALUE (e.g. workload.micro_batch=2), got \"" + assignment + "\"";
        return std::nullopt;
    }
    FieldOverride field{assignment.substr(0, equals), Json()};
    if (!pathSteps(field.path, error))
        return std::nullopt;
    const std::string text = assignment.substr(equals + 1);
    field.value = Json::parse(text, nullptr, false);
    if (field.value.is_discarded())
        field.value = text; // a bare word: a string
    return field;
}

bool applyFieldOverride(Json& document, const FieldOverride& field, std::string& error) {
    const auto steps = pathSteps(field.path, error);
    if (!steps)
        return false;
    Json* at = &document;
    std::string parent = "the document";
    for (std::size_t s = 0; s < steps->size(); ++s) {
        const PathStep& step = (*steps)[s];
        const bool last = s + 1 == steps->size();
        if (!step.key.empty()) {
            if (!at->is_object()) {
                error = parent + " is " + JsonReader::typeName(*at) + ", not an object";
                return false;
            }
            Json& next = (*at)[step.key]; // created when absent
            if (!last && next.is_null())
                next = Json::object();
            at = &next;
        } else {
            if (!at->is_array()) {
                error = parent + " is " + JsonReader::typeName(*at) + ", not an array";
                return false;
            }
            if (!step.kind.empty()) {
                Json* entry = nullptr;
                int matches = 0;
                for (Json& candidate : *at)
                    if (candidate.is_object() && candidate.value("kind", Json()) == step.kind) {
                        entry = &candidate;
                        ++matches;
                    }
                if (matches != 1) {
                    error =
                        parent + (matches == 0 ? " has no entry of kind \"" + step.kind + "\""
                                               : " has " + std::to_string(matches) + " entries of kind \"" +
                                                     step.kind + "\"; name one by its index");
                    return false;
                }
                at = entry;
            } else if (step.index >= at->size()) {
                error = parent + " has " + std::to_string(at->size()) +
                        (at->size() == 1 ? " entry" : " entries") + "; there is no [" +
                        std::to_string(step.index) + "]";
                return false;
            } else {
                at = &(*at)[step.index];
            }
        }
        parent = step.shown;
    }
    *at = field.value;
    return true;
}

bool applyFieldOverrides(Json& document, const std::vector<FieldOverride>& fields, Diagnostics& errors) {
    bool applied = true;
    for (const auto& field : fields) {
        std::string error;
        if (!applyFieldOverride(document, field, error)) {
            errors.push_back({field.path, "--set: " + error});
            applied = false;
        }
    }
    return applied;
}

} // namespace choreo::models
