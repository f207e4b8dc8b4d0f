#pragma once
// The input pipeline of a training run (workload.stages, kind "data"): how long the CPUs, the storage
// tier and the network take to prepare one global batch, in closed form.

#include "models/catalog.h"
#include "models/diagnostic.h"
#include "models/scenario.h"

#include <cstddef>
#include <optional>
#include <string>

namespace choreo::models {

// Bytes a prepared sample occupies when handed to the accelerators: text as 4-byte token ids (int32,
// as Megatron-LM's indexed datasets hold them for vocabularies under 2^31); an image or a video frame as
// 8-bit RGB pixels (3 x side x side); a second of audio as an 80-bin log-mel spectrogram at a 10 ms hop in
// fp32 (Whisper's input: 100 frames x 80 x 4 bytes).
inline constexpr double kTokenIdBytes = 4.0;
inline constexpr double kAudioFeatureBytesPerSecond = 100.0 * 80.0 * 4.0;
// Stored bytes when the scenario does not say: text, 4 bytes of UTF-8 per BPE token (OpenAI's rule of
// thumb for English: a token is about 4 characters); an image, the mean ImageNet-1k training JPEG
// (about 140 GB over 1,281,167 files: 110 KB).
inline constexpr double kTextBytesPerToken = 4.0;
inline constexpr double kImageNetJpegBytes = 110e3;

// A data stage checked against the catalog, with its rates looked up.
struct ResolvedDataStage {
    DataStage stage;
    std::optional<std::size_t> pool; // its CPU pool; nullopt: the training nodes' host CPUs
    const Device* cpu = nullptr;
    double cpus = 0;  // sockets doing the work
    double nodes = 0; // servers reading from storage
    const StorageTier* storage = nullptr;
    double core_seconds_per_sample = 0; // preprocessing, on one core
    double stored_bytes_per_sample = 0;
    double delivered_bytes_per_sample = 0;
    double delivery_Bps = 0; // from the CPU pool to the accelerators (0: on their own hosts)
    double pool_nic_Bps = 0; // the CPU pool's NICs together, achieved (0: on the accelerators' hosts)
    double text_tokens_per_sample = 0;
    double loaders = 0; // one per training device, each under the stage's loader ceiling
};

// One global batch through the data stage. The three parts stream one after another through the
// prefetch queue, so the slowest of them sets the stage's pace.
struct DataStageTimes {
    double read_s = 0; // the batch's stored bytes from the storage tier, at least one request's latency
    // Decode, augment and tokenise on every core of the stage's CPUs, or as fast as the loaders hand the
    // samples over when their ceiling is lower.
    double preprocess_s = 0;
    bool loader_bound = false;  // the loaders' ceiling, not the CPUs' cores, sets preprocess_s
    double deliver_s = 0;       // prepared tensors over the network to the accelerators
    double samples = 0;         // in the batch
    double delivered_bytes = 0; // prepared bytes the batch hands to the accelerators
    // Whether the reads and the delivery were flows in the training step's SimGrid platform, sharing its
    // links with the step's own traffic (flow and packet fidelity on fat trees), or closed forms.
    bool simulated = false;
    // Simulated: from the step's start to the batch's last delivered byte, the parts streaming behind one
    // another (at least the slowest part); 0 in closed form, where the parts overlap perfectly.
    double span_s = 0;
    [[nodiscard]] double stage_s() const;
    // The part that sets the pace: "storage reads", "preprocessing", "data loaders" (preprocessing held
    // to the loaders' ceiling) or "delivery".
    [[nodiscard]] std::string limit() const;
};

DataStageTimes dataStageTimes(const ResolvedDataStage& data, std::int64_t global_batch);

// How long the stage's CPUs compute for `samples` samples (at most preprocess_s: behind a loader ceiling
// they wait for the loaders the rest of the time).
double cpuBusySeconds(const ResolvedDataStage& data, double samples);

// The data stage's read bandwidth: each reading node at the storage tier's rate, and for a pool of CPUs
// never more than its NICs carry.
double storageReadBps(const ResolvedDataStage& data);

// The JSON path of the data stage ("workload.stages[1]").
std::string dataStagePath(const DataStage& stage);

// Checks the data stage against the pools and the catalog (its pool, device kind, storage tier, rates,
// and whether its prefetch queue fits in the CPUs' memory); nullopt with errors naming the field.
// `pools` are the scenario's pools with their devices, `trainingPool` the index of the one that trains.
struct ResolvedPool;
std::optional<ResolvedDataStage> resolveDataStage(const Scenario& scenario,
                                                  const std::vector<ResolvedPool>& pools,
                                                  std::size_t trainingPool, const Catalog& catalog,
                                                  Diagnostics& errors);

} // namespace choreo::models
