#pragma once

#include "models/diagnostic.h"
#include "models/scenario.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace choreo::ui {

inline constexpr const char* kModelPresetsFormat = "choreo-model-presets/1";

// Mixture-of-experts figures of a preset, as published; the preset's shape carries them as its `moe`.
struct ExpertShape {
    std::int64_t routed = 0;
    std::int64_t active = 0;
    std::int64_t shared = 0;
    std::int64_t expert_ffn_hidden = 0;
    std::int64_t dense_layers = 0; // first layers with the dense feed-forward
};

// A published model's shape with where it comes from.
struct ModelPreset {
    std::string id;
    models::ModelShape shape; // shape.name is the preset's display name
    std::optional<ExpertShape> experts;
    std::string note; // what the preset simplifies; empty when nothing
    std::string source;
    std::string url;
    std::string as_of;
};

// Parses a presets file (assets/presets/models.json); nullopt with one diagnostic per problem, each
// naming the JSON path ("presets[2].shape.hidden").
std::optional<std::vector<ModelPreset>> parseModelPresets(const std::string& text,
                                                          models::Diagnostics& errors);
std::optional<std::vector<ModelPreset>> loadModelPresets(const std::filesystem::path& file,
                                                         models::Diagnostics& errors);

// The preset whose shape equals `shape` in every field but the name, or nullptr (a custom model).
const ModelPreset* findPreset(const std::vector<ModelPreset>& presets, const models::ModelShape& shape);

} // namespace choreo::ui
