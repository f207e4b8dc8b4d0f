#include "app/cli/common.h"
#include "models/exitcodes.h"
#include "models/fieldtable.h"

#include <iostream>

namespace choreo::cli {

namespace {

std::string kindName(const models::FieldSpec& field) {
    switch (field.kind) {
    case models::FieldKind::Count:
        return "integer";
    case models::FieldKind::Number:
        return "number";
    case models::FieldKind::OptionalNumber:
        return "number or unset";
    case models::FieldKind::Flag:
        return "true/false";
    case models::FieldKind::Text:
        return "text";
    case models::FieldKind::Choice:
        return "choice";
    }
    return {};
}

// "1 to 4096", "above 0, at most 100", "none, selective, full".
std::string rangeText(const models::FieldSpec& field) {
    if (field.kind == models::FieldKind::Choice) {
        std::string names;
        for (const auto& c : field.choices)
            names += (names.empty() ? "" : ", ") + c.name;
        return names;
    }
    if (field.kind != models::FieldKind::Count && field.kind != models::FieldKind::Number &&
        field.kind != models::FieldKind::OptionalNumber)
        return {};
    const std::string low = (field.minimum_exclusive ? "above " : "") + models::formatNumber(field.minimum);
    return field.maximum > 0.0 ? low + " to " + models::formatNumber(field.maximum) : low + " or more";
}

std::string fallbackText(const models::FieldSpec& field) {
    if (field.required)
        return "required";
    const bool meansUnset = !field.unset_text.empty() &&
                            field.fallback == models::FieldValue{static_cast<std::int64_t>(field.minimum)};
    // Absent by default, with what then applies in words: "unset: catalog", "unset: default (64)".
    if (std::holds_alternative<std::monostate>(field.fallback))
        return "unset: " + (field.unset_text.empty() ? std::string("no value") : field.unset_text);
    return "default " +
           std::visit(
               [&](const auto& v) -> std::string {
                   using T = std::decay_t<decltype(v)>;
                   if constexpr (std::is_same_v<T, std::monostate>)
                       return field.unset_text.empty() ? "unset" : field.unset_text;
                   else if constexpr (std::is_same_v<T, bool>)
                       return v ? "true" : "false";
                   else if constexpr (std::is_same_v<T, std::string>)
                       return v;
                   else
                       return models::formatNumber(static_cast<double>(v));
               },
               field.fallback) +
           (meansUnset ? " (" + field.unset_text + ")" : "");
}

models::Json fieldsToJson() {
    models::Json out = models::Json::array();
    for (const auto& f : models::scenarioFields())
        out.push_back({{"path", f.path},
                       {"type", kindName(f)},
                       {"group", f.group},
                       {"label", f.label},
                       {"range", rangeText(f)},
                       {"default", fallbackText(f)},
                       {"unit", f.unit},
                       {"csv_column", f.csv_column},
                       {"help", f.tooltip}});
    return out;
}

int run(const Invocation& call) {
    if (!call.positional.empty())
        return usageError(call, "fields takes no arguments");
    if (call.has("--json")) {
        std::cout << fieldsToJson().dump(2) << "\n";
        return kExitOk;
    }
    const std::vector<std::string> groups = models::fieldGroups();
    for (const auto& group : groups) {
        std::cout << (group == groups.front() ? "" : "\n") << group << "\n";
        for (const auto& f : models::scenarioFields()) {
            if (f.group != group)
                continue;
            std::cout << "  " << f.path << "  (" << kindName(f);
            if (const std::string range = rangeText(f); !range.empty())
                std::cout << ": " << range;
            std::cout << "; " << fallbackText(f)
                      << (f.csv_column.empty() ? "" : "; CSV column " + f.csv_column) << ")\n";
        }
    }
    return kExitOk;
}

} // namespace

const Command kFieldsCommand{
    "fields",
    "",
    "List the scenario's scalar fields from the field table: JSON path (what --set takes), type, range, "
    "default and validation-CSV column. Pools and workload stages are arrays, described in docs/model.md.",
    {&kJsonOption},
    run};

} // namespace choreo::cli
