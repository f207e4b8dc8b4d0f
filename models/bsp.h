#pragma once

#include "models/catalog.h"
#include "models/diagnostic.h"
#include "models/memory.h"
#include "models/scenario.h"

namespace choreo::models {

// Training on a bulk-synchronous processor (Graphcore IPU; Device::bulk_synchronous). What differs from a
// GPU:
// - Memory. The chip has no DRAM: a pipeline stage's 16-bit weights, its gradient accumulators and the
//   stashed activations of its micro-batches in flight live in its SRAM (the device's memory_GB) beside
//   the compiled program (code_GB). The optimizer state (fp32 master weights, Adam's moments) lives in
//   the streaming memory beside the chips: the optimizer step reads it in over the IPU's link to that
//   memory and writes it back.
// - Compute. A program runs in supersteps: every tile computes on its own memory, the tiles exchange
//   what the next superstep needs (at the chip's exchange bandwidth), then all of them synchronise. A
//   layer's pass costs its arithmetic (the GPU roofline, memory-bound work at the SRAM's bandwidth) plus
//   its exchange and one sync per superstep. The exchange counts the activations the layer's GEMMs read
//   and write, not partial sums or weights moved between tiles, and the output layer adds none: a lower
//   bound.
// - Layout. Pipelining across IPUs is the usual layout, with replicas for data parallelism and the
//   optimizer state sharded over them (replicated tensor sharding: ZeRO-1). Gradients accumulate on the
//   chip, so they are never sharded (ZeRO-2 or 3), and nothing is offloaded to a host.

// The layouts a bulk-synchronous device cannot run, each an error naming its field and why.
void checkBulkSynchronousLayout(const Workload& workload, const Device& device, Diagnostics& errors);

// What one IPU of pipeline stage `stage` holds in SRAM (optimizer_GB 0: the state is in streaming memory,
// off_chip_GB; buffers_GB: the compiled program; the last stage's logits at 4 bytes, fp16 softmax and
// gradient).
MemoryBreakdown bulkSynchronousStageMemory(const Workload& workload, const Device& device,
                                           std::int64_t stage);
// The stage that needs the most SRAM, with off_chip_GB the most any stage keeps in streaming memory.
MemoryBreakdown bulkSynchronousMemory(const Workload& workload, const Device& device);
// The optimizer state one IPU keeps in streaming memory (the largest stage's, sharded over the replicas
// under ZeRO-1), GB.
double streamedOptimizerStateGB(const Workload& workload);

// The exchange and synchronisation one layer's forward pass adds to its arithmetic on `device`: the
// activations every GEMM reads and writes cross the exchange once (`exchange_bytes` on one tensor rank),
// and each of the layer's supersteps ends in a sync.
struct SuperstepCost {
    double exchange_s = 0;
    double sync_s = 0;
    [[nodiscard]] double total() const { return exchange_s + sync_s; }
};
SuperstepCost layerSupersteps(const Device& device, double exchange_bytes);

// The optimizer step of `params` parameters on one IPU: its state in from streaming memory and back out at
// once, over the two directions of the IPU's link to it (the update itself, in SRAM, is not charged).
double streamedOptimizerSeconds(const Device& device, const Workload& workload, double params);

} // namespace choreo::models
