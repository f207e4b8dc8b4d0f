#pragma once

#include "models/diagnostic.h"
#include "models/framework.h"
#include "models/precision.h"
#include "models/sourced.h"

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace choreo::models {

enum class DeviceKind { Gpu, Cpu, Accelerator };

std::string toString(DeviceKind kind);

// Achieved fractions of peak that the step model applies to a device (CHOREO-DEFAULT until calibrated).
struct DeviceEfficiency {
    Sourced gemm; // fraction of dense peak on large matrix multiplies (asymptote)
    // Size of a matrix multiply, in GFLOP (2mnk / 1e9), at which it reaches half of the large-GEMM rate:
    // achieved fraction = gemm * F / (F + half). Absent = no size dependence.
    Sourced gemm_half_gflop;
    // Per-precision overrides of `gemm` and `gemm_half_gflop` (e.g. fp8, or a calibration profile).
    std::map<Precision, Sourced> gemm_by_precision;
    std::map<Precision, Sourced> gemm_half_gflop_by_precision;
    Sourced attention; // fraction of dense peak in fused attention (asymptote)
    // Forward FLOPs of one fused attention call (2 b h s^2 d over the causal half, in GFLOP) at which it runs
    // at half that rate: achieved fraction = attention * F / (F + half). Absent = no size dependence.
    Sourced attention_half_gflop;
    // FlashAttention-2's kernels, where the device runs them apart from its best fused attention: on Hopper
    // they are Ampere's design without its asynchronous tensor-core instructions, and PyTorch's SDPA picks
    // them first by default. Asymptote and half-rate size as above; absent: `attention`'s curve.
    Sourced attention_flash2;
    Sourced attention_flash2_half_gflop;
    Sourced memory;  // fraction of peak DRAM bandwidth
    Sourced network; // fraction of NIC / fabric line rate on large transfers
    // Fraction of a NIC's line rate (and of the switched network's links) on large transfers, where it is
    // known apart from the scale-up fabric's; absent: `network`.
    Sourced nic;
    Sourced kernel_overhead_us; // launch and scheduling cost per kernel
    // The collective library's latency model (NCCL's tuning model for NVIDIA devices), optional: a ring
    // collective costs collective_base_us, plus per step the step latency of the link it crosses, the
    // scale-up fabric's or the network's. Absent: only the links' own latencies.
    Sourced collective_base_us;
    Sourced ring_step_scale_up_us;
    Sourced ring_step_network_us;
    // Its tree all-reduce (optional; absent = rings only): per-step latency inside a node and between
    // nodes, and the fraction of the ring's bus bandwidth the tree achieves.
    Sourced tree_step_scale_up_us;
    Sourced tree_step_network_us;
    Sourced tree_bandwidth_fraction;

    // The large-GEMM fraction at `precision`: its own entry, else (fp4, int8; int4 after int8) the fp8 entry,
    // else `gemm`. No
    // catalog device has a measured fp4 rate; on the devices measured at both, the fraction of peak falls
    // as the precision's peak rises (power-limited), so fp8's is the nearer, still optimistic, bound.
    [[nodiscard]] const Sourced& gemmAt(Precision precision) const;
    // The half-rate GEMM size at `precision`: its own entry, else (fp4) the fp8 entry, else
    // `gemm_half_gflop`.
    [[nodiscard]] const Sourced& gemmHalfAt(Precision precision) const;
    // Achieved fraction of dense peak for a matrix multiply of `flops` (2mnk) at `precision`.
    [[nodiscard]] double gemmFraction(Precision precision, double flops) const;
    // Achieved fraction of dense peak for fused attention whose forward pass does `flops`; its backward runs
    // at the same fraction. `flash2`: FlashAttention-2's kernels (their own curve where the device has one).
    [[nodiscard]] double attentionFraction(double flops, bool flash2 = false) const;
    [[nodiscard]] double nicFraction() const { return nic.value > 0.0 ? nic.value : network.value; }
};

struct ScaleUpFabric {
    std::string fabric;     // "nvlink4", "infinity-fabric", "pcie", "none", ...
    Sourced bandwidth_GBps; // per device, one direction
    Sourced domain_size;    // devices in one scale-up domain
    Sourced latency_us;
};

// Cerebras's weight streaming (docs.cerebras.net, execution modes): the device holds no model state. A
// layer's weights stream in from MemoryX for its forward pass and again for its backward, its gradients
// stream back, and MemoryX runs the optimizer; across systems SwarmX broadcasts the weights and sums the
// gradients, so only data parallelism applies (models/weightstreaming.h).
struct WeightStreaming {
    Sourced bandwidth_GBps; // weights into one system (and gradients out, the other way), GB/s
    Sourced max_systems;    // the most systems SwarmX joins in one cluster
    Sourced hop_latency_us; // one SwarmX tree level, each way
};

// Graphcore's IPU (models/bsp.h): the model's weights, gradients and activations live in the chip's SRAM
// (In-Processor-Memory, the device's memory_GB), the optimizer state in streaming memory beside it, and the
// chip computes in bulk-synchronous supersteps: every tile computes on its own memory, then the tiles
// exchange what the next step needs, then all of them synchronise.
struct BulkSynchronous {
    Sourced exchange_TBps;        // the tiles' exchange with one another, one IPU, all tiles at once
    Sourced sync_us;              // one superstep's synchronisation of the tiles
    Sourced supersteps_per_layer; // the supersteps a transformer layer's forward compiles to
    Sourced code_GB;              // SRAM the compiled program takes (code, exchange and stream buffers)
    Sourced streaming_memory_GB;  // streaming memory per IPU
    Sourced streaming_GBps;       // between one IPU and its streaming memory, each direction
};

// How far Choreo's predictions for one device were from the published runs it was compared with
// (`choreo-sim accuracy`, written to assets/catalog/accuracy.json; docs/validation.md): not a figure of the
// device but of the model on it, regenerated whenever the model changes.
struct DeviceAccuracy {
    int runs = 0;                 // rows simulated
    int too_fast = 0;             // rows predicted faster than measured
    double median_error_pct = 0;  // signed: negative = predicted too fast
    double p90_abs_error_pct = 0; // 90 % of the rows are within this
    double worst_error_pct = 0;   // signed, the largest |error|
    std::string worst_run;        // the file and row of the worst case: "holdout-4-runs.csv Q15"
    std::string fidelity;         // the fidelity they were simulated at
    std::string as_of;            // when the table was generated (YYYY-MM-DD)
};

// "median 6.0 % too fast on 52 published runs (38 of them too fast), 90 % within 24.6 %, the worst 29.7 %
// too slow (published-runs.csv 26); analytical fidelity, 2026-12-02": predicted against measured step time
std::string describeAccuracy(const DeviceAccuracy& accuracy);
// The sentence's head for a narrow cell, "median 6.0 % too fast"; any other text (no run compared) whole.
std::string accuracyHeadline(const std::string& sentence);

// What one CPU core prepares per second in a training input pipeline (models/datastage.h), by modality:
// BPE tokens, images decoded and augmented, video frames decoded, seconds of audio decoded to features.
// Absent: the CPU's rate for that modality is unknown.
struct DataRates {
    Sourced text_tokens_per_s;
    Sourced images_per_s;
    Sourced video_frames_per_s;
    Sourced audio_seconds_per_s;
};

// The CPUs of the reference server an accelerator ships in (a DGX H100 holds two Xeon 8480C for eight
// GPUs): who prepares the data when a scenario names no CPU pool.
struct HostCpus {
    std::string cpu;         // a catalog CPU id
    Sourced cpus_per_device; // sockets per accelerator (0.25 for 2 per 8)
};

// One way to rent a device from a cloud: an instance of `devices_per_instance` devices at its published
// on-demand price.
struct RentOffer {
    std::string device;   // catalog id
    std::string instance; // the provider's name for it ("p5.48xlarge")
    std::int64_t devices_per_instance = 1;
    Sourced usd_per_instance_hour; // on demand, as published, with its date in the source
    std::string region;
    [[nodiscard]] double usdPerDeviceHour() const {
        return usd_per_instance_hour.value / static_cast<double>(devices_per_instance);
    }
};

// A cloud that rents devices by the hour (docs/catalog.md, "Providers"): a scenario's costs.provider prices
// its pools at these offers, and `plan --provider` searches them.
struct Provider {
    std::string id;
    std::string name;
    std::vector<RentOffer> offers;
    // Its offer of the catalog device `deviceId`, or nullptr.
    [[nodiscard]] const RentOffer* offer(const std::string& deviceId) const;
    // "h100-sxm, h200-sxm", for messages.
    [[nodiscard]] std::string deviceList() const;
};

// A storage tier as one client node sees it (models/datastage.h): streaming read bandwidth and the latency
// of one request; and, where the tier is one shared system, what all its clients get together.
struct StorageTier {
    std::string id;
    std::string name;
    Sourced read_GBps_per_node;
    Sourced latency_ms;
    Sourced aggregate_GBps; // absent (not present()): no ceiling beyond the clients' own

    // What `nodes` client nodes stream together, bytes/s.
    [[nodiscard]] double bandwidthBps(double nodes) const {
        const double clients = nodes * read_GBps_per_node.value * 1e9;
        return aggregate_GBps.present() && aggregate_GBps.value * 1e9 < clients ? aggregate_GBps.value * 1e9
                                                                                : clients;
    }
};

// One cause of a training job's interruptions in a published run (models/reliability.h): how many times it
// struck over the run the profile observed, counted against that run's devices, nodes or the job itself.
struct FailureCause {
    std::string name; // "Faulty GPU"
    std::string per;  // "device", "node" or "job": what its rate grows with
    Sourced count;    // interruptions over the observed run
    // Whether a hot spare replaces what failed (a device's or a node's fault), so that the job restarts onto
    // it; false where restarting in place or elsewhere is the cure (software, a switch). Default: not "job".
    bool spare_helps = true;
};

// What interrupts a training job on a kind of device and how long getting it going again takes, from a
// published run of `devices` devices, `devices_per_node` a node, over `days`.
struct FailureProfile {
    std::string id;
    std::string name;
    std::vector<std::string> devices; // catalog ids it was observed on
    bool fallback = false;            // also for devices without a profile of their own (said so in results)
    Sourced observed_devices;
    Sourced observed_devices_per_node;
    Sourced observed_days;
    std::vector<FailureCause> causes;
    Sourced detection_s; // from the fault until the job is known to have stopped
    Sourced restart_s;   // rescheduling and initialising the job, before its checkpoint is read
    // Restarting onto a hot spare (a standby node already provisioned) in place of the one that failed;
    // absent: no published figure, and a scenario's hot spares are refused.
    Sourced standby_restart_s;
};

// A serving engine's scheduling behaviour and defaults (vLLM, TensorRT-LLM, SGLang...): what a serving stage
// takes when the scenario does not say, and the per-iteration costs the device figures do not hold
// (models/serving.h). Every figure carries its source.
struct ServingEngine {
    std::string id;
    std::string name;
    std::vector<std::string> aliases; // names a validation file's framework column may start with
    // Phrases that, anywhere in a framework column, name this engine as a benchmark harness runs it ("NVIDIA
    // MLPerf"); they win over any alias.
    std::vector<std::string> harness_markers;
    // Memory the engine lets the KV cache take: a fraction of the device's memory (vLLM's
    // gpu_memory_utilization covers weights, activations and cache together), or, when
    // `fraction_of_free`, of what is left after weights and activations (TensorRT-LLM's
    // kv_cache_free_gpu_mem_fraction).
    Sourced memory_fraction;
    bool fraction_of_free = false;
    Sourced kv_block_tokens;
    Sourced max_batch;
    Sourced max_tokens_per_iteration;
    Sourced chunked_prefill; // 1 when on by default
    // 1 when a request is admitted only with cache blocks for its whole output (no preemption later), as
    // TensorRT-LLM's guaranteed-no-evict scheduler; 0 when blocks are taken as tokens come and the newest
    // request is preempted and recomputed when they run out (vLLM).
    Sourced reserve_full_output;
    // 1 when decodes and prefills share an iteration (in-flight batching, vLLM V1, chunked prefill); 0 when
    // an iteration that prefills runs no decode, prefills first (vLLM V0 without chunked prefill).
    // Optional: 1.
    Sourced mixed_batches{1, "", "", false};
    // Decode iterations a batch runs before the scheduler runs again, admitting nothing in between (vLLM V0's
    // num_scheduler_steps). Optional: 1.
    Sourced decode_steps{1, "", "", false};
    // Host time each iteration adds to the devices' work (scheduling, sampling, launch), and the launch gap
    // per layer and iteration.
    Sourced iteration_overhead_us;
    Sourced layer_overhead_us;
    // Latency of one small tensor-parallel all-reduce (the engine's own one-shot kernel where it has one).
    Sourced allreduce_latency_us;
    // The largest tensor-parallel group without NVLink (PCIe only) on which that kernel still runs; past it
    // the engine falls back to the collective library's ring, whose latency the device's collective model
    // gives. Absent (0): the engine's latency on every fabric.
    Sourced custom_allreduce_pcie_max_gpus;
    // Memory the engine holds apart from weights, cache and activations (CUDA context, graphs, workspaces).
    Sourced reserved_GB;

    [[nodiscard]] bool answersTo(const std::string& key) const;
};

// One catalog entry; every number carries its source.
struct Device {
    std::string id;
    std::vector<std::string> aliases;
    std::string name;
    std::string vendor;
    DeviceKind kind = DeviceKind::Gpu;
    std::string released;
    std::map<Precision, Sourced> peak_tflops; // dense; absent = unsupported
    Sourced memory_GB;
    Sourced memory_bandwidth_TBps;
    Sourced tdp_W;
    Sourced idle_W;
    std::optional<ScaleUpFabric> scale_up;
    Sourced nic_Gbps;
    Sourced buy_usd;
    Sourced rent_usd_per_hour;
    // Why the catalog has no purchase (rent) price, where it has none: "sold only as a cloud service", "not
    // sourced yet". A device gives each price or its reason.
    std::string no_buy_price;
    std::string no_rent_price;
    // Streaming multiprocessors (NVIDIA): the number of GEMM tiles that run at once, which sets the wave
    // quantization of a matrix multiply (models/stepcost.h). Absent = no wave model for this device.
    Sourced compute_units;
    // Copy bandwidth between the device's memory and its host's, per device and direction, GB/s, as achieved
    // by copies of pinned memory (PCIe, or NVLink-C2C on Grace superchips): with every device of the node
    // copying at once where that was measured, else one device's (an upper bound; each entry's note says
    // which). Times activation offloading (Workload::activation_offload_layers). Absent: unknown.
    Sourced host_link_GBps;
    DeviceEfficiency efficiency;
    Sourced cores;                // CPUs: physical cores per socket
    DataRates data_rates;         // CPUs: input-pipeline rates per core
    std::optional<HostCpus> host; // accelerators: the CPUs beside them in their reference server
    // Present for a device that trains by weight streaming instead of holding its model (Cerebras).
    std::optional<WeightStreaming> weight_streaming;
    // Present for a device that computes in bulk-synchronous supersteps from on-chip SRAM (Graphcore IPU).
    std::optional<BulkSynchronous> bulk_synchronous;
    // Weeks from an order to delivery, as last reported (press or analysts, dated); absent where nothing is
    // published, when a plan takes it as the planner's input (models/plan.h).
    Sourced lead_time_weeks;
    // Under a board power limit (models/powerlimit.h): the lowest limit the board accepts; the board power of
    // memory-bound work at full clocks (absent: tdp_W); and k in "dynamic power grows as clock^k" (absent:
    // the default there). All optional.
    Sourced min_power_limit_W;
    Sourced memory_bound_W;
    Sourced clock_power_exponent;
    // Predictions against published runs on this device, where any were compared.
    std::optional<DeviceAccuracy> accuracy;
    // Where its figures are only announced (Sourced::announced): their places in the entry, in reading order
    // ("peak_tflops.bf16", "tdp_W"). Empty for a part that ships.
    std::vector<std::string> announced_figures;

    [[nodiscard]] bool announced() const { return !announced_figures.empty(); }
    // Whether `key` is this device's id or one of its aliases.
    [[nodiscard]] bool answersTo(const std::string& key) const;
    // Dense peak in FLOP/s for a precision, or nullopt when the device does not support it.
    [[nodiscard]] std::optional<double> peakFlops(Precision precision) const;
};

// A device's announced figures in words, "peak_tflops.bf16, memory_GB and tdp_W"; empty for a part that
// ships.
std::string announcedFigureList(const Device& device);

class Catalog {
public:
    // Loads every *.json file of `directory` (sorted by name). Returns nullopt and fills `errors`
    // when a file is malformed or a number lacks a resolvable source.
    static std::optional<Catalog> load(const std::filesystem::path& directory, Diagnostics& errors);

    // The device with this id or alias, or nullptr.
    [[nodiscard]] const Device* find(const std::string& id) const;
    [[nodiscard]] const std::vector<Device>& devices() const { return devices_; }
    // The source a number cites, or nullptr.
    [[nodiscard]] const Source* source(const std::string& key) const;
    [[nodiscard]] const std::map<std::string, Source>& sources() const { return sources_; }
    // Comma-separated ids, for "unknown device" messages.
    [[nodiscard]] std::string idList() const;

    // The storage tier with this id, or nullptr; the list for messages.
    [[nodiscard]] const StorageTier* storage(const std::string& id) const;
    // The storage tier with this id, or nullptr after an error at `path` that lists the known tiers.
    [[nodiscard]] const StorageTier* storage(const std::string& id, const std::string& path,
                                             Diagnostics& errors) const;
    [[nodiscard]] const std::vector<StorageTier>& storageTiers() const { return storage_; }
    // The serving engine with this id or alias (case-insensitive), or nullptr; all of them.
    [[nodiscard]] const ServingEngine* engine(const std::string& id) const;
    // The rent provider with this id, or nullptr; all of them; their ids for messages.
    [[nodiscard]] const Provider* provider(const std::string& id) const;
    [[nodiscard]] const std::vector<Provider>& providers() const { return providers_; }
    [[nodiscard]] std::string providerList() const;
    void addProvider(Provider provider) { providers_.push_back(std::move(provider)); }
    [[nodiscard]] const std::vector<ServingEngine>& engines() const { return engines_; }

    void addDevice(Device device) { devices_.push_back(std::move(device)); }
    void addStorage(StorageTier tier) { storage_.push_back(std::move(tier)); }
    void addEngine(ServingEngine engine) { engines_.push_back(std::move(engine)); }
    // The training frameworks' release profiles (models/framework.h), in file order.
    [[nodiscard]] const std::vector<FrameworkProfile>& frameworkProfiles() const { return frameworks_; }
    void addFrameworkProfile(FrameworkProfile profile) { frameworks_.push_back(std::move(profile)); }
    // The failure profiles (models/reliability.h), in file order.
    [[nodiscard]] const std::vector<FailureProfile>& failureProfiles() const { return failures_; }
    void addFailureProfile(FailureProfile profile) { failures_.push_back(std::move(profile)); }
    // The device with this id or alias, to amend while loading, or nullptr.
    Device* findMutable(const std::string& id);
    void addSource(Source source) { sources_[source.key] = std::move(source); }

private:
    std::vector<Device> devices_;
    std::vector<StorageTier> storage_;
    std::vector<ServingEngine> engines_;
    std::vector<FrameworkProfile> frameworks_;
    std::vector<FailureProfile> failures_;
    std::vector<Provider> providers_;
    std::map<std::string, Source> sources_;
};

// Finds the assets folder: $CHOREO_ASSETS, then next to / above the executable, then the source tree.
std::filesystem::path locateAssets(const std::filesystem::path& executable);

} // namespace choreo::models
