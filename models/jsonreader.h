#pragma once

#include "models/diagnostic.h"

#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace choreo::models {

using Json = nlohmann::ordered_json;

// Reads typed fields out of parsed JSON and records one Diagnostic per problem (missing field,
// wrong type, out-of-range value, unknown field), so that a file is checked in one pass.
class JsonReader {
public:
    explicit JsonReader(Diagnostics& out)
        : out_(out) {}

    // Records an error and returns false unless `value` is an object.
    bool expectObject(const Json& value, const std::string& path);
    // Records an error for every key of `object` not in `allowed`.
    void rejectUnknownKeys(const Json& object, const std::string& path,
                           std::initializer_list<std::string_view> allowed);
    void rejectUnknownKeys(const Json& object, const std::string& path,
                           const std::vector<std::string>& allowed);

    std::optional<std::string> text(const Json& object, const std::string& path, const char* key,
                                    bool required = true);
    // An integer >= minimum. Floats with a fractional part, strings and booleans are type errors.
    std::optional<std::int64_t> integer(const Json& object, const std::string& path, const char* key,
                                        std::int64_t minimum = 1, bool required = true);
    // A finite number; `strictlyPositive` rejects zero and negatives, otherwise negatives only.
    std::optional<double> number(const Json& object, const std::string& path, const char* key,
                                 bool strictlyPositive = true, bool required = true);
    // Any finite number, negative ones included.
    std::optional<double> signedNumber(const Json& object, const std::string& path, const char* key,
                                       bool required = true);
    std::optional<bool> boolean(const Json& object, const std::string& path, const char* key,
                                bool required = true);

    void error(const std::string& path, const std::string& message) { out_.push_back({path, message}); }
    [[nodiscard]] bool failed() const { return !out_.empty(); }

    static std::string join(const std::string& path, const char* key) {
        return path.empty() ? std::string(key) : path + "." + key;
    }
    static std::string index(const std::string& path, std::size_t i) {
        return path + "[" + std::to_string(i) + "]";
    }
    // The JSON type of a value in words ("a string", "an array", ...), for messages.
    static std::string typeName(const Json& value);

private:
    const Json* field(const Json& object, const std::string& path, const char* key, bool required);

    Diagnostics& out_;
};

// Reads `key`, one of `values` by the name toString gives it, into `target`; any other name is an error that
// lists the known ones.
template <typename Enum>
void readChoice(JsonReader& r, const Json& j, const std::string& path, const char* key, bool required,
                std::initializer_list<Enum> values, const char* what, Enum& target) {
    const auto name = r.text(j, path, key, required);
    if (!name)
        return;
    std::string known;
    for (const Enum value : values) {
        if (toString(value) == *name) {
            target = value;
            return;
        }
        known += (known.empty() ? "" : ", ") + toString(value);
    }
    r.error(JsonReader::join(path, key),
            "unknown " + std::string(what) + " \"" + *name + "\" (known: " + known + ")");
}

// Parses a whole document; on a syntax error or a number out of range ({"a": 1e400}) records one
// "(document)" diagnostic (nlohmann's message with line and column, without its exception id) and returns
// nullopt.
std::optional<Json> parseDocument(const std::string& text, Diagnostics& errors);

// nlohmann's message without its exception id ("[json.exception.parse_error.101] ").
std::string jsonErrorText(const Json::exception& e);

// The byte offset of the first byte that is not valid UTF-8, or npos when the whole text is.
std::size_t firstInvalidUtf8(const std::string& text);

// Formats a double the way messages show it: up to 4 significant digits, no trailing zeros.
std::string formatNumber(double value);

} // namespace choreo::models
