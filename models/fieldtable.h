#pragma once

#include "models/jsonreader.h"
#include "models/scenario.h"

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace choreo::models {

// The value of one scenario field: unset (an optional number left to the catalog), a count, a number, a
// flag or a text (choices are held by name).
using FieldValue = std::variant<std::monostate, std::int64_t, double, bool, std::string>;

enum class FieldKind {
    Count,          // a whole number in [minimum, maximum]
    Number,         // a finite number in [minimum, maximum] (above the minimum when minimum_exclusive)
    OptionalNumber, // a Number that may be absent (the catalog's figure applies)
    Flag,           // true or false
    Text,           // any string
    Choice,         // one of `choices`, by name
};

// One named value of a Choice (or of a Count shown as a list, such as the ZeRO stage).
struct FieldChoice {
    std::string name;  // as the file writes it
    std::string label; // as the desktop shows it; empty: the name
};

// Everything the program knows about one scalar scenario field, in one place: the reader and writer, their
// error messages, the desktop's form binding and undo, the report's scenario section and the validation
// CSV's column all come from it. Arrays (pools, stages) are described by their own readers.
struct FieldSpec {
    std::string path; // JSON path, e.g. "workload.parallel.tp"
    FieldKind kind = FieldKind::Count;
    std::string group; // the form box and report row it belongs to ("Model", "Parallelism", ...)
    std::string label; // short name in the form and the report ("TP")
    std::string
        unit; // after the shown value, with its leading space (" years", " B tokens"); empty for counts
    std::string tooltip;
    double minimum = 0.0;
    bool minimum_exclusive = false; // a Number that must be above the minimum (a positive bandwidth)
    double maximum = 0.0;           // 0: no maximum beyond the type's
    bool required = false;
    FieldValue fallback; // the value when absent; the writer omits it when omit_default
    bool omit_default = false;
    std::string unset_text;     // the desktop's text for the minimum when it means "not set" ("= TP")
    double display_scale = 1.0; // the desktop shows value / display_scale (tokens in billions)
    int decimals = 0;           // the desktop's decimals for a Number
    std::string csv_column;     // the validation CSV's column; empty: none
    std::vector<FieldChoice> choices;
    std::function<FieldValue(const Scenario&)> get;
    std::function<void(Scenario&, const FieldValue&)> set;
    std::function<bool(const Scenario&)> applies; // empty: always; MoE fields apply to MoE models only
    std::string inapplicable; // why a file may not set it where it does not apply; empty: no message

    [[nodiscard]] std::string parentPath() const;
    [[nodiscard]] std::string key() const;
    [[nodiscard]] bool appliesTo(const Scenario& s) const { return !applies || applies(s); }
    // The value in the report's words: "8", "1.5 years", "on", "catalog".
    [[nodiscard]] std::string describe(const Scenario& s) const;
};

// Where the table describes a workload stage's fields: the stage of that kind in workload.stages (files
// hold it at some index; --set and `choreo-sim fields` name it by its kind).
inline const std::string kDataStagePath = "workload.stages[data]";
inline const std::string kEvalStagePath = "workload.stages[eval]";

// `diagnostics` and, for each one under the data or eval stage's place in `s`
// ("workload.stages[1].image_px"), the same under the stage's table path ("workload.stages[data].image_px"),
// so that the desktop's fields, bound by table path, are marked.
Diagnostics withStageAliases(const Diagnostics& diagnostics, const Scenario& s);

// Every scalar field of a scenario, in the order files write them.
const std::vector<FieldSpec>& scenarioFields();
// The fields' groups, in the order the table first uses them (form boxes and report rows).
std::vector<std::string> fieldGroups();
// The field at `path`, or nullptr.
const FieldSpec* findField(std::string_view path);
// The field's position in scenarioFields(): the base of its undo merge id.
int fieldIndex(const FieldSpec& field);

// The keys the table describes directly inside the object at `objectPath` ("workload.parallel"), and the
// nested objects that hold fields of its own, in file order.
std::vector<std::string> fieldKeysOf(std::string_view objectPath);
// The same keys in one line, comma-separated ("core_attn, layernorm, mlp"), for messages.
std::string fieldKeysListed(std::string_view objectPath);

// Reads the fields whose parent is `objectPath` out of `object` into `s`, recording a Diagnostic per problem.
// Messages name the object `shownPath` (a model preset's "presets[3].shape"); empty: `objectPath`.
void readFields(JsonReader& r, const Json& object, const std::string& objectPath, Scenario& s,
                const std::string& shownPath = {});
// Writes every field under `prefix` into `doc` (the object at `prefix`), nesting sub-objects in table order;
// a field that does not apply, or that equals its default where the table omits defaults, is not written.
void writeFields(Json& doc, std::string_view prefix, const Scenario& s);

// Checks `value` against the field's type and range; an empty string when it fits, else the problem
// ("must be at least 1, got 0").
std::string checkFieldValue(const FieldSpec& field, const FieldValue& value);
// Parses a validation-CSV cell for the field: counts as integers, flags as 0/1; nullopt with `error` set.
std::optional<FieldValue> parseFieldCell(const FieldSpec& field, const std::string& cell, std::string& error);

} // namespace choreo::models
