#pragma once

#include "models/resolved.h"

#include <vector>

namespace choreo::models {

// Time of one kernel on one device by a roofline: the larger of compute at the achieved fraction of
// peak and memory traffic at the achieved fraction of bandwidth, plus the launch overhead.
struct Roofline {
    double peak_flops = 0;    // FLOP/s at the kernel's precision
    double compute_eff = 1;   // achieved fraction of peak
    double bandwidth_Bps = 0; // peak DRAM bandwidth
    double memory_eff = 1;
    double overhead_s = 0;

    [[nodiscard]] double time(double flops, double bytes) const;
};

// Wave quantization of C = A(m x k) * B(k x n) on a device that runs `units` output tiles at once (its
// streaming multiprocessors): the fraction of the issued tile work that is useful,
// m * n / (waves * units * tile area), for the best of cuBLAS's large tiles (256 x 128, 128 x 256,
// 128 x 128; NVIDIA's Matrix Multiplication Background guide, DU-09799-001, sections 2.3 and 3), each
// taken at the same per-tile rate, so the loss is a lower bound. 1 when `units` <= 0 (no wave model).
double gemmWaveUtilization(double units, double m, double n);

// Time of C = A(m x k) * B(k x n) in `precision` on `device` (operand bytes included in the roofline):
// compute at the device's GEMM efficiency for its size times its wave utilization.
double gemmTime(const Device& device, Precision precision, double m, double n, double k);

// One step of a layer's forward or backward under ZeRO-3: a share of the layer's compute, the parameter
// bytes gathered before it may start and the gradient bytes reduce-scattered after it.
struct Zero3Step {
    double compute_share = 1.0;
    double gather_bytes = 0.0;
    double reduce_bytes = 0.0;
};

// The work of one model chunk (a pipeline stage, or with interleaving one of its vp chunks) on one
// device for one micro-batch, and what it sends.
struct StageCost {
    // Compute time (s) on one device.
    double forward_s = 0;
    double backward_s = 0;  // includes recomputation
    double recompute_s = 0; // the recomputation inside backward_s (0 without activation recomputation)
    double optimizer_s = 0; // once per step
    // Tensor-parallel traffic, as all-reduce equivalents of `tp_bytes` each (sequence parallelism's
    // all-gather + reduce-scatter pairs move the same bytes as one all-reduce).
    double tp_bytes = 0;
    int tp_collectives_forward = 0;
    int tp_collectives_backward = 0;
    // Context parallelism (ring attention): bytes each device sends around the cp ring per micro-batch,
    // and the number of ring steps (each a latency), overlapped with the attention compute.
    double cp_bytes_forward = 0;
    double cp_bytes_backward = 0;
    int cp_steps_forward = 0;
    int cp_steps_backward = 0;
    // Expert parallelism: all-to-alls of `ep_bytes` per device each (a (ep-1)/ep share leaves the device)
    // over the expert-parallel group, after the computation of an operation.
    double ep_bytes = 0;
    int ep_collectives_forward = 0;
    int ep_collectives_backward = 0;
    // The MoE layers' expert MLPs within forward_s and backward_s: the rest of an
    // operation is attention, the router and dense layers.
    double moe_mlp_forward_s = 0;
    double moe_mlp_backward_s = 0;
    // Pipeline point-to-point: bytes each tensor rank sends to the next stage per micro-batch.
    double pp_bytes = 0;
    // Data-parallel traffic per device per step.
    // Gradients to reduce over the data-parallel group, and parameters to all-gather after the optimizer
    // (ZeRO-1/2); the routed experts' as their share of a ring over their own group (stageCost).
    double grad_bytes = 0;
    double param_bytes = 0;
    // ZeRO-3: per layer, parameter bytes gathered before its forward and backward, gradient bytes
    // reduce-scattered after its backward; the number of layers in the chunk.
    double zero3_layer_param_bytes = 0;
    double zero3_layer_grad_bytes = 0;
    // The steps of one layer's forward and backward (Zero3Step). The layered engine: one, the layer's
    // gather (prefetched a layer ahead) and, in backward, its reduce-scatter. DeepSpeed's engine of 2021
    // fetches module by module (QKV, output projection, FFN up (and gate), FFN down; norms are persistent,
    // never gathered): the forward is four steps, each gathering its module; with full recomputation the
    // backward is the recomputed forward (four gathers again) then the four modules' backward in reverse
    // order, each gathering its module but the FFN down projection (kept by the reuse-distance cache) and
    // reduce-scattering its gradients; without recomputation the four backward steps gather every module.
    // A module's compute share: its GEMMs, with the attention core and half the element-wise work on QKV and
    // the other half on the FFN up projection.
    std::vector<Zero3Step> zero3_forward_steps;
    std::vector<Zero3Step> zero3_backward_steps;
    [[nodiscard]] const std::vector<Zero3Step>& zero3Steps(bool backward) const {
        return backward ? zero3_backward_steps : zero3_forward_steps;
    }
    int layers = 0;
    // Compute split for reports (forward + backward, s).
    double gemm_s = 0;
    double attention_s = 0;
    double memory_bound_s = 0;
    // Activation offloading: the computation's wait for copies to and from host memory (offloadWaitSeconds),
    // and offloaded experts: the wait for their pool (ExpertWave); forward and backward, included in
    // forward_s and backward_s.
    double offload_wait_s = 0;
    // Offloaded experts: each MoE layer's dispatch to the expert pool and combine back, `offload_send_bytes`
    // each over a link of `offload_link_Bps`; a forward makes offload_transfers_forward of them, a backward
    // offload_transfers_backward (a recomputed forward's included). Their time is in forward_s and
    // backward_s; the flow and packet levels move its bandwidth part onto the platform's links.
    double offload_send_bytes = 0;
    double offload_link_Bps = 0;
    // Embedding tables on a CPU pool (the first chunk): the wait for a micro-batch's rows and for sending
    // their gradients, beyond the chunk's own computation (in offload_wait_s), and the step's end waiting for
    // the table's update past the device's own optimizer (in optimizer_s).
    double embedding_wait_s = 0;
    double embedding_tail_s = 0;
    // The optimizer on a pool of CPUs over the network: the device's gradients down and 16-bit weights back,
    // bytes each way over a link of optimizer_link_Bps. Their time is in optimizer_s; the flow and packet
    // levels move its bandwidth part onto the platform's links (0 where the link is the host's).
    double optimizer_down_bytes = 0;
    double optimizer_up_bytes = 0;
    double optimizer_link_Bps = 0;
    double offload_transfers_forward = 0;
    double offload_transfers_backward = 0;
};

// Transformer Engine's windows for activation offloading (cpu_offload.py, layer_window_map), for `offloaded`
// of a device's `layers` (0 < offloaded < layers; else none): the copy of offloaded layer k to the host
// starts when the window before it closes (layer 0's after its own forward) and must end by the end of
// window k, where the computation waits for it; the backward reloads in the same windows in reverse order.
// Returns each window's length in layers of computation: window 0 is layers 1 .. w0, window k layers
// w(k-1)+1 .. wk, with wk = (layers / offloaded)(k + 1) - 1 plus one for each of the first
// layers % offloaded windows. They cover layers 1 .. layers-1.
std::vector<std::int64_t> offloadWindows(std::int64_t offloaded, std::int64_t layers);

// The computation's wait for one pass over the windows: each copy of `copy_s` seconds against its window's
// layers of `layer_s` seconds each, sum of max(0, copy_s - window * layer_s).
double offloadWaitSeconds(const std::vector<std::int64_t>& windows, double copy_s, double layer_s);

// Megatron-Core's combined 1F1B (Workload::Overlap::ep_comm): a forward and a backward run as one in four
// phases, each the larger of a computation and the other operation's all-to-alls (half of its dispatch and
// combine time each): forward attention | backward combine, backward MLP | forward dispatch, forward MLP |
// backward dispatch, backward attention | forward combine. `*_attention_s` is everything but the expert MLP.
double pairedSeconds(double forward_attention_s, double forward_mlp_s, double backward_attention_s,
                     double backward_mlp_s, double forward_all_to_all_s, double backward_all_to_all_s);

// With tensor-parallel communication overlap (Workload::Overlap::tp_comm), each collective is cut in this
// many splits pipelined with the GEMM chunks; the last split's communication follows the last GEMM chunk
// and stays exposed. NeMo's userbuffer configurations split the reduce-scatters in 4 (num_splits: 4,
// NeMo-Framework-Launcher conf/training/gpt3/ub-confs); the SMs the overlap takes from the GEMMs (16-24
// of 132 there) are not charged.
inline constexpr double kTpOverlapSplits = 4.0;

// The bytes of a tensor-parallel collective that follow the computation: all of them, or with tp-comm
// overlap its last split (the rest runs beside the computation).
inline double tpExposedBytes(double bytes, bool overlapped) {
    return overlapped ? bytes / kTpOverlapSplits : bytes;
}

// Costs of model chunk `chunk` (0 .. pp*vp-1; chunk c runs on pipeline device c % pp).
StageCost stageCost(const ResolvedScenario& scenario, std::int64_t chunk);

// The time the framework itself takes for a ZeRO-3 gather or reduce-scatter of `bytes`, however fast the
// network: bytes / kDeepSpeed2021Zero3Bps under DeepSpeed's engine of 2021, else none (0).
inline double zero3FrameworkSeconds(const Workload& workload, double bytes) {
    return workload.zero3_engine == Zero3Engine::DeepSpeed2021 ? bytes / kDeepSpeed2021Zero3Bps : 0.0;
}

// Bytes per gradient element in the data-parallel reduction (fp32 main grads except in fp16 training).
double gradientReduceBytes(const Workload& workload);

// What an expert-parallel all-to-all sends to one peer under the workload's dispatcher, as a share of what
// an all-to-all of every token-expert pair sends it (StageCost::ep_bytes / ep): to a peer on the same node
// and to one on another node. 1 and 1 for EpDispatcher::AllToAll. For DeepEp, with the E experts spread
// evenly over the ep devices, r of them to a node, and each token's top k drawn evenly (balanced routing):
// a device holds one of a token's experts with probability p_dev = 1 - C(E - E/ep, k) / C(E, k), a node
// with p_node = 1 - C(E - E r/ep, k) / C(E, k). A device sends each token once to each peer holding one of
// its experts on its node, and once to each other node that holds one, where the device of its local rank
// forwards it to the node's other holders: per same-node peer (ep / r) p_dev tokens (its own and the
// forwarded, from each node), per other node p_node, spread here over that node's r devices. Against k / ep
// tokens per peer.
struct AllToAllScale {
    double same_node = 1.0;
    double other_node = 1.0;
};
AllToAllScale expertDispatchScale(const Workload& workload, std::int64_t devicesPerNode);

} // namespace choreo::models
