#include "models/jsonreader.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace choreo::models {

std::string joinDiagnostics(const Diagnostics& diagnostics) {
    std::string out;
    for (const auto& d : diagnostics) {
        if (!out.empty())
            out += '\n';
        out += d.text();
    }
    return out;
}

std::optional<Json> parseDocument(const std::string& text, Diagnostics& errors) {
    try {
        return Json::parse(text);
    } catch (const Json::exception& e) { // parse_error, and out_of_range for a number too large
        errors.push_back({"(document)", "malformed JSON: " + jsonErrorText(e)});
        return std::nullopt;
    }
}

std::string jsonErrorText(const Json::exception& e) {
    std::string what = e.what();
    if (auto pos = what.find("] "); pos != std::string::npos)
        what = what.substr(pos + 2);
    return what;
}

std::size_t firstInvalidUtf8(const std::string& text) {
    std::size_t i = 0;
    while (i < text.size()) {
        const auto lead = static_cast<unsigned char>(text[i]);
        const std::size_t length = lead < 0x80           ? 1
                                   : (lead >> 5) == 0x6  ? 2
                                   : (lead >> 4) == 0xE  ? 3
                                   : (lead >> 3) == 0x1E ? 4
                                                         : 0;
        if (length == 0 || i + length > text.size())
            return i;
        for (std::size_t k = 1; k < length; ++k)
            if ((static_cast<unsigned char>(text[i + k]) >> 6) != 0x2)
                return i;
        i += length;
    }
    return std::string::npos;
}

std::string formatNumber(double value) {
    char buffer[64];
    // Whole numbers of ordinary size print in full ("80", "-400"), everything else to 4 digits.
    const bool whole = value == std::floor(value) && std::fabs(value) < 1e15;
    std::snprintf(buffer, sizeof buffer, whole ? "%.0f" : "%.4g", value);
    return buffer;
}

std::string JsonReader::typeName(const Json& value) {
    switch (value.type()) {
    case Json::value_t::null:
        return "null";
    case Json::value_t::object:
        return "an object";
    case Json::value_t::array:
        return "an array";
    case Json::value_t::string:
        return "a string";
    case Json::value_t::boolean:
        return "a boolean";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
        return "an integer";
    case Json::value_t::number_float:
        return "a number";
    default:
        return "an unsupported value";
    }
}

bool JsonReader::expectObject(const Json& value, const std::string& path) {
    if (value.is_object())
        return true;
    error(path.empty() ? std::string("(document)") : path, "expected an object, got " + typeName(value));
    return false;
}

void JsonReader::rejectUnknownKeys(const Json& object, const std::string& path,
                                   std::initializer_list<std::string_view> allowed) {
    rejectUnknownKeys(object, path, std::vector<std::string>(allowed.begin(), allowed.end()));
}

void JsonReader::rejectUnknownKeys(const Json& object, const std::string& path,
                                   const std::vector<std::string>& allowed) {
    if (!object.is_object())
        return;
    for (const auto& [key, value] : object.items()) {
        if (std::find(allowed.begin(), allowed.end(), key) != allowed.end())
            continue;
        std::string list;
        for (const auto& name : allowed)
            list += (list.empty() ? "" : ", ") + name;
        error(join(path, key.c_str()), "unknown field (allowed here: " + list + ")");
    }
}

const Json* JsonReader::field(const Json& object, const std::string& path, const char* key, bool required) {
    if (!object.is_object())
        return nullptr;
    auto it = object.find(key);
    if (it == object.end()) {
        if (required)
            error(join(path, key), "missing required field");
        return nullptr;
    }
    return &*it;
}

std::optional<std::string> JsonReader::text(const Json& object, const std::string& path, const char* key,
                                            bool required) {
    const Json* value = field(object, path, key, required);
    if (!value)
        return std::nullopt;
    if (!value->is_string()) {
        error(join(path, key), "expected a string, got " + typeName(*value));
        return std::nullopt;
    }
    return value->get<std::string>();
}

std::optional<std::int64_t> JsonReader::integer(const Json& object, const std::string& path, const char* key,
                                                std::int64_t minimum, bool required) {
    const Json* value = field(object, path, key, required);
    if (!value)
        return std::nullopt;
    std::int64_t result = 0;
    if (value->is_number_integer()) {
        result = value->get<std::int64_t>();
    } else if (value->is_number_unsigned()) {
        if (value->get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)) {
            error(join(path, key), "value is too large");
            return std::nullopt;
        }
        result = static_cast<std::int64_t>(value->get<std::uint64_t>());
    } else if (value->is_number_float()) {
        const double d = value->get<double>();
        if (!std::isfinite(d) || d != std::floor(d) || std::fabs(d) > 9e15) {
            error(join(path, key), "expected an integer, got " + formatNumber(d));
            return std::nullopt;
        }
        result = static_cast<std::int64_t>(d);
    } else {
        error(join(path, key), "expected an integer, got " + typeName(*value));
        return std::nullopt;
    }
    if (result < minimum) {
        error(join(path, key),
              "must be at least " + std::to_string(minimum) + ", got " + std::to_string(result));
        return std::nullopt;
    }
    return result;
}

std::optional<double> JsonReader::signedNumber(const Json& object, const std::string& path, const char* key,
                                               bool required) {
    const Json* value = field(object, path, key, required);
    if (!value)
        return std::nullopt;
    if (!value->is_number()) {
        error(join(path, key), "expected a number, got " + typeName(*value));
        return std::nullopt;
    }
    const double d = value->get<double>();
    if (!std::isfinite(d)) {
        error(join(path, key), "must be a finite number");
        return std::nullopt;
    }
    return d;
}

std::optional<double> JsonReader::number(const Json& object, const std::string& path, const char* key,
                                         bool strictlyPositive, bool required) {
    const auto value = signedNumber(object, path, key, required);
    if (!value)
        return std::nullopt;
    const double d = *value;
    if (strictlyPositive && d <= 0.0) {
        error(join(path, key), "must be greater than 0, got " + formatNumber(d));
        return std::nullopt;
    }
    if (!strictlyPositive && d < 0.0) {
        error(join(path, key), "must not be negative, got " + formatNumber(d));
        return std::nullopt;
    }
    return d;
}

std::optional<bool> JsonReader::boolean(const Json& object, const std::string& path, const char* key,
                                        bool required) {
    const Json* value = field(object, path, key, required);
    if (!value)
        return std::nullopt;
    if (!value->is_boolean()) {
        error(join(path, key), "expected true or false, got " + typeName(*value));
        return std::nullopt;
    }
    return value->get<bool>();
}

} // namespace choreo::models
