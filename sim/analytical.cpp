#include "sim/analytical.h"

#include "models/stepcost.h"
#include "models/weightstreaming.h"
#include "sim/channels.h"
#include "sim/platformspec.h"
#include "sim/schedule.h"
#include "sim/simulator.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace choreo::sim {

namespace {

// Ring times on the platform's links, assuming no flow shares a link with another collective's.
struct Links {
    PlatformSpec spec;
    std::int64_t tp = 1;

    // Bandwidth of the edge a -> b for a ring that sends `share` of its traffic over that edge's own
    // links (all of it over a leaf uplink, which every channel of the node crosses).
    double bandwidth(std::int64_t a, std::int64_t b, double share = 1.0) const {
        if (spec.sameNode(a, b))
            return spec.scale_up_Bps / share;
        // Rings of every tensor rank cross an oversubscribed leaf uplink side by side (on rails, the
        // ranks of a node sit on different leaves), or a dragonfly's global bundle between two groups.
        const double sharing = static_cast<double>(spec.network.rail ? 1 : tp);
        if (spec.oversubscribed && spec.leafOf(a) != spec.leafOf(b))
            return std::min(spec.nic_Bps / share, spec.leaf_uplink_Bps / sharing);
        if (spec.fabric == ScaleOutFabric::Dragonfly && spec.leafOf(a) != spec.leafOf(b))
            return std::min(spec.nic_Bps / share, spec.global_link_Bps / sharing);
        return spec.nic_Bps / share;
    }
    // Time of `count` ring collectives of `steps` steps over `ranks`, each rank sending `traffic` bytes per
    // collective: the collective's latency (PlatformSpec::ringLatency), the slowest edge's bandwidth.
    double ring(const std::vector<std::int64_t>& ranks, int steps, int count, double traffic) const {
        if (ranks.size() <= 1 || count <= 0 || traffic <= 0.0)
            return 0.0;
        return count * (spec.ringLatency(ranks, steps) + traffic / ringBandwidth(ranks));
    }
    // Time of `count` all-reduces of `bytes` per rank over `ranks`: NCCL's ring, or its tree where its
    // tuner would pick it (allReduceAlgorithm).
    double allReduce(const std::vector<std::int64_t>& ranks, int count, double bytes) const {
        const auto n = static_cast<std::int64_t>(ranks.size());
        if (n <= 1 || count <= 0 || bytes <= 0.0)
            return 0.0;
        const double traffic = 2.0 * static_cast<double>(n - 1) / static_cast<double>(n) * bytes;
        const auto algorithm = allReduceAlgorithm(spec, ranks, bytes);
        return count * (algorithm.latency_s + traffic * algorithm.bytes_factor / ringBandwidth(ranks));
    }
    // Time of `steps` neighbour exchanges over `ranks` (ring attention), `traffic` bytes each.
    double pass(const std::vector<std::int64_t>& ranks, int steps, double traffic) const {
        if (ranks.size() <= 1 || steps <= 0 || traffic <= 0.0)
            return 0.0;
        return spec.passLatency(ranks, steps) + steps * traffic / ringBandwidth(ranks);
    }
    // The slowest edge's bandwidth. With g channels each device sends 1/g of its traffic over its NIC
    // (the channel it leaves the node on) and (g-1)/g over the scale-up fabric.
    double ringBandwidth(const std::vector<std::int64_t>& ranks) const {
        const auto n = static_cast<std::int64_t>(ranks.size());
        const auto g = static_cast<double>(ringChannelCount(spec, ranks));
        double bw = 1e300;
        for (std::int64_t i = 0; i < n; ++i) {
            const auto a = ranks[static_cast<std::size_t>(i)],
                       b = ranks[static_cast<std::size_t>((i + 1) % n)];
            bw = std::min(bw, bandwidth(a, b, ringEdgeShare(spec, g, a, b)));
        }
        return bw;
    }
    double transfer(std::int64_t a, std::int64_t b, double bytes) const {
        return spec.latency(a, b) + bytes / bandwidth(a, b);
    }
};

// One operation of a micro-batch on a chunk: its computation, then the tensor-parallel (and context- and
// expert-parallel) time it waits for, then (ZeRO-3) the parameter traffic that does not hide behind it.
struct OpTime {
    double compute = 0, tensor = 0, data = 0;
    [[nodiscard]] double total() const { return compute + tensor + data; }
};

// Per chunk, what the timeline needs of it.
struct ChunkTimes {
    OpTime forward, backward;
    double recomputeShare = 0; // of the backward computation
};

// The analytical step laid out per stage: the closed-form 1F1B (interleaved) schedule run as a recurrence on
// the operation times (each operation starts when its device is free and its input has arrived), then each
// stage's idle gaps stretched or shrunk so that its last backward ends where the closed form puts it
// (`lastBackwardEnd`), followed by its tail (exposed gradient reduction, optimizer, parameter gather).
models::StepTimeline analyticalTimeline(std::int64_t pp, std::int64_t vp, std::int64_t micro,
                                        std::int64_t perStage, const std::vector<ChunkTimes>& chunks,
                                        double p2p, const std::vector<double>& lastBackwardEnd,
                                        const std::vector<double>& exposed,
                                        const std::vector<double>& optimizer,
                                        const std::vector<double>& gather, double step, bool combined) {
    using models::ActivityKind;
    const auto V = static_cast<std::int64_t>(chunks.size());
    const auto orders = pipelineSchedule(pp, vp, micro, combined);
    // end[backward][chunk][micro]; negative until scheduled.
    std::vector<std::vector<std::vector<double>>> end(
        2, std::vector<std::vector<double>>(static_cast<std::size_t>(V),
                                            std::vector<double>(static_cast<std::size_t>(micro), -1.0)));
    auto endOf = [&](bool backward, std::int64_t j, std::int64_t m) -> double& {
        return end[backward ? 1 : 0][static_cast<std::size_t>(j)][static_cast<std::size_t>(m)];
    };
    std::vector<std::vector<models::TimelineSpan>> spans(static_cast<std::size_t>(pp));
    std::vector<std::size_t> next(static_cast<std::size_t>(pp), 0);
    std::vector<double> free(static_cast<std::size_t>(pp), 0.0);
    const bool interleaved = vp > 1; // chunks are worth showing
    for (bool progress = true; progress;) {
        progress = false;
        for (std::int64_t s = 0; s < pp; ++s) {
            const auto si = static_cast<std::size_t>(s);
            const auto& order = orders[si];
            while (next[si] < order.size()) {
                const auto& [backward, j, m, paired] = order[next[si]];
                // Its input: the previous chunk's forward, or the next chunk's backward (or its own forward).
                double ready = 0.0;
                bool hop = false;
                if (!backward && j > 0) {
                    ready = endOf(false, j - 1, m);
                    hop = true;
                } else if (backward && j + 1 < V) {
                    ready = endOf(true, j + 1, m);
                    hop = true;
                } else if (backward) {
                    ready = endOf(false, j, m);
                }
                if (ready < 0.0)
                    break; // not yet computed: another device first
                if (hop) {
                    spans[si].push_back(
                        {ActivityKind::PipelineComm, 1, m, interleaved ? j : -1, ready, ready + p2p});
                    ready += p2p;
                }
                const auto& c = chunks[static_cast<std::size_t>(j)];
                const OpTime& op = backward ? c.backward : c.forward;
                const double start = std::max(free[si], ready);
                const std::int64_t chunk = interleaved ? j : -1;
                double t = start;
                if (backward) {
                    const double recompute = c.recomputeShare * op.compute;
                    spans[si].push_back({ActivityKind::Recompute, 0, m, chunk, t, t + recompute});
                    spans[si].push_back({ActivityKind::Backward, 0, m, chunk, t + recompute, t + op.compute});
                } else {
                    spans[si].push_back({ActivityKind::Forward, 0, m, chunk, t, t + op.compute});
                }
                t += op.compute;
                spans[si].push_back({ActivityKind::TensorComm, 0, m, chunk, t, t + op.tensor});
                t += op.tensor;
                spans[si].push_back({ActivityKind::DataComm, 0, m, chunk, t, t + op.data});
                t += op.data;
                free[si] = t;
                endOf(backward, j, m) = t;
                ++next[si];
                progress = true;
            }
        }
    }
    models::StepTimeline out;
    out.step_time_s = step;
    std::vector<std::vector<models::TimelineSpan>> stageSpans(static_cast<std::size_t>(pp));
    for (std::int64_t s = 0; s < pp; ++s) {
        const auto si = static_cast<std::size_t>(s);
        // The recurrence's own layout, then its bubbles scaled to end at the closed form's time.
        auto laid = models::partitionStage(s, perStage, spans[si], free[si]);
        double busy = 0.0, idle = 0.0;
        for (const auto& i : laid.intervals)
            (i.kind == ActivityKind::Bubble ? idle : busy) += i.duration_s();
        const double target = std::max(busy, lastBackwardEnd[si]);
        std::vector<models::TimelineSpan> placed;
        double t = idle <= 0.0 ? target - busy : 0.0; // no gap to stretch: wait at the start
        const double stretch = idle > 0.0 ? (target - busy) / idle : 0.0;
        for (const auto& i : laid.intervals) {
            const double d = i.kind == ActivityKind::Bubble ? i.duration_s() * stretch : i.duration_s();
            if (i.kind != ActivityKind::Bubble)
                placed.push_back({i.kind, 0, i.micro_batch, i.chunk, t, t + d});
            t += d;
        }
        placed.push_back({ActivityKind::DataComm, 0, -1, -1, t, t + exposed[si]});
        t += exposed[si];
        placed.push_back({ActivityKind::Optimizer, 0, -1, -1, t, t + optimizer[si]});
        t += optimizer[si];
        placed.push_back({ActivityKind::DataComm, 0, -1, -1, t, t + gather[si]});
        t += gather[si];
        out.step_time_s =
            std::max(out.step_time_s, t); // only if the closed form left a stage too little time
        stageSpans[si] = std::move(placed);
    }
    // What is left of the step after a stage's tail is bubble: it waits for the slowest stage.
    for (std::int64_t s = 0; s < pp; ++s)
        out.stages.push_back(
            models::partitionStage(s, perStage, stageSpans[static_cast<std::size_t>(s)], out.step_time_s));
    return out;
}

// Combined 1F1B (overlap.ep_comm): per pipeline device, the share of its operations that run in pairs
// (pipelineSchedule marks them, as the simulation runs them).
std::vector<double> pairedShares(const models::Workload& workload, double microBatches) {
    const auto& parallel = workload.parallel;
    std::vector<double> pairedShare(static_cast<std::size_t>(parallel.pp), 0.0);
    if (workload.overlap.ep_comm) {
        const auto orders = pipelineSchedule(parallel.pp, parallel.vp, workload.microBatchesPerStep(), true);
        for (std::size_t stage = 0; stage < orders.size(); ++stage)
            pairedShare[stage] = static_cast<double>(std::count_if(
                                     orders[stage].begin(), orders[stage].end(),
                                     [](const auto& slot) { return slot.paired && slot.backward; })) /
                                 (microBatches * static_cast<double>(parallel.vp));
    }
    return pairedShare;
}

// Per chunk: its backward and its gradient reduction, split in buckets as the simulation does.
struct Reduction {
    double backward = 0, reduce = 0;
    int buckets = 1;
};

// One chunk's communication on the platform's links, and its operations' times.
struct ChunkLinks {
    const Links& links;
    const models::Workload& workload;
    const models::StageCost& cost;
    std::int64_t stage = 0;
    // The stage's groups: its tensor ranks, its context ranks, and its data-parallel devices (context ranks
    // included).
    std::vector<std::int64_t> tensor, context, data;

    // Expert-parallel all-to-all: each device sends bytes/ep to each peer, those on its node over its
    // scale-up link, the others over its NIC, side by side; the busier link and the longest hop pace it.
    [[nodiscard]] double allToAll(int count) const {
        const auto& parallel = workload.parallel;
        if (parallel.ep <= 1 || count <= 0 || cost.ep_bytes <= 0.0)
            return 0.0;
        const double share = cost.ep_bytes / static_cast<double>(parallel.ep);
        const std::int64_t self = workload.parallel.rank(0, 0, 0, stage);
        double scaleUp = 0.0, nic = 0.0, hop = 0.0, nicBps = 1e300;
        std::int64_t sameNode = 1;
        // The peers, as the simulation's expert groups (ParallelLayout::expertGroupMember).
        for (std::int64_t member = 1; member < parallel.ep; ++member) {
            const std::int64_t peer =
                parallel.expertGroupMember(0, member) + workload.parallel.rank(0, 0, 0, stage);
            hop = std::max(hop, links.spec.latency(self, peer));
            if (links.spec.sameNode(self, peer)) {
                scaleUp += share;
                ++sameNode;
            } else {
                nic += share;
                nicBps = std::min(nicBps, links.bandwidth(self, peer));
            }
        }
        const models::AllToAllScale scale = models::expertDispatchScale(workload, sameNode);
        scaleUp *= scale.same_node;
        nic *= scale.other_node;
        const double time = std::max(scaleUp / links.spec.scale_up_Bps, nic > 0.0 ? nic / nicBps : 0.0);
        return count * (hop + time);
    }

    // A forward or backward of the chunk: its computation, its tensor, context and expert collectives,
    // and (ZeRO-3) its parameter traffic.
    [[nodiscard]] OpTime operation(double compute, int tpColl, double cpBytes, int cpSteps,
                                   bool backward) const {
        const double cpTime = links.pass(context, cpSteps, cpBytes / std::max(1, cpSteps));
        // Tensor collectives after the computation, or with tp-comm overlap all but their last split
        // beside it (models::tpExposedBytes).
        const double local = std::max(compute, cpTime);
        const double tail = models::tpExposedBytes(cost.tp_bytes, workload.overlap.tp_comm);
        const double tpTail = links.allReduce(tensor, tpColl, tail);
        const double tpBeside =
            workload.overlap.tp_comm ? links.allReduce(tensor, tpColl, cost.tp_bytes - tail) : 0.0;
        const double base = std::max(local, tpBeside) + tpTail +
                            allToAll(backward ? cost.ep_collectives_backward : cost.ep_collectives_forward);
        double total = base;
        if (workload.parallel.zero >= 3)
            total = zero3Seconds(base, backward);
        return OpTime{compute, base - compute, total - base};
    }

    // ZeRO-3: the time of an operation of `seconds` without its parameter traffic, with it: the layers'
    // steps (StageCost::zero3Steps) and their collectives.
    [[nodiscard]] double zero3Seconds(double seconds, bool backward) const {
        const std::int64_t dataGroup = workload.parallel.dataParallelGroup();
        const double groupSize = static_cast<double>(dataGroup);
        // What a rank sends of a ring collective's `bytes`.
        auto traffic = [&](double bytes) { return (groupSize - 1) / groupSize * bytes; };
        // Each no faster than the framework itself runs it (models::zero3FrameworkSeconds).
        auto collective = [&](double bytes) {
            return bytes > 0.0
                       ? std::max(links.ring(data, static_cast<int>(dataGroup - 1), 1, traffic(bytes)),
                                  models::zero3FrameworkSeconds(workload, bytes))
                       : 0.0;
        };
        const auto& steps = cost.zero3Steps(backward);
        std::vector<double> gathers, reduces; // per step of a layer, s
        for (const auto& step : steps) {
            gathers.push_back(collective(step.gather_bytes));
            reduces.push_back(collective(step.reduce_bytes));
        }
        const int layers = std::max(1, cost.layers);
        const double perLayer = seconds / layers;
        if (workload.zero3_engine == models::Zero3Engine::Layered) {
            // Per layer, the next layer's gather and the last one's reduce-scatter beside compute, each on
            // a stream of its own (StepBuilder::zero3Op): a layer takes the longest of its compute, either
            // stream's collective (latency and bytes), and the bytes of both on the device's links, which
            // they share. The streams' latencies overlap each other: at 1,024 data-parallel ranks a ring's
            // latency is several milliseconds, as long as its bytes take.
            const double shared =
                traffic(steps.front().gather_bytes + steps.front().reduce_bytes) / links.ringBandwidth(data);
            return gathers.front() + layers * std::max({perLayer, gathers.front(), reduces.front(), shared});
        }
        // One stream, a module ahead: from one gathering step to the next, the larger of the
        // compute between them and the next gather, then the reduce-scatters issued meanwhile.
        double total = -1.0, computed = 0.0, reduced = 0.0;
        for (int layer = 0; layer < layers; ++layer)
            for (std::size_t k = 0; k < steps.size(); ++k) {
                if (steps[k].gather_bytes > 0.0) {
                    total = total < 0.0 ? gathers[k] : total + std::max(computed, gathers[k]) + reduced;
                    computed = reduced = 0.0;
                }
                computed += perLayer * steps[k].compute_share;
                reduced += reduces[k];
            }
        return std::max(0.0, total) + computed + reduced;
    }

    // The chunk's gradient reduction after a backward of `backwardSeconds` (0 without overlap).
    [[nodiscard]] Reduction gradientReduction(double backwardSeconds) const {
        const auto& parallel = workload.parallel;
        const std::int64_t dataGroup = parallel.dataParallelGroup();
        const double groupSize = static_cast<double>(dataGroup);
        const double params = cost.grad_bytes / models::gradientReduceBytes(workload);
        const double bucket = std::max(40e6, 1e6 * static_cast<double>(parallel.dp));
        // Without overlap, one reduction per chunk once the whole backward is done.
        const int buckets =
            workload.overlap.grad_reduce ? std::clamp(static_cast<int>(std::ceil(params / bucket)), 1, 8) : 1;
        // One collective per bucket, as the simulation issues them.
        const double bytes = cost.grad_bytes / buckets;
        const double reduce =
            buckets * (parallel.zero >= 1 ? links.ring(data, static_cast<int>(dataGroup - 1), 1,
                                                       (groupSize - 1) / groupSize * bytes)
                                          : links.allReduce(data, 1, bytes));
        return {backwardSeconds, reduce, buckets};
    }

    // ZeRO-1/2: the chunk's parameter gather after the optimizer.
    [[nodiscard]] double paramGather() const {
        const std::int64_t dataGroup = workload.parallel.dataParallelGroup();
        const double groupSize = static_cast<double>(dataGroup);
        return links.ring(data, static_cast<int>(dataGroup - 1), 1,
                          (groupSize - 1) / groupSize * cost.param_bytes);
    }
};

// A paired forward and backward (here both of this chunk) take the sum over the four phases of
// the larger of the computation and the other's all-to-alls (StepBuilder::makePair) instead of
// everything in turn; the saving, weighted by the device's paired share, comes off the
// all-to-all time each waits for.
void pairOperations(OpTime& forward, OpTime& backward, const ChunkLinks& chunk, double pairedShare) {
    const models::StageCost& cost = chunk.cost;
    const double forwardAllToAll = chunk.allToAll(cost.ep_collectives_forward),
                 backwardAllToAll = chunk.allToAll(cost.ep_collectives_backward);
    // Their tensor and context traffic.
    const double forwardTraffic = forward.tensor - forwardAllToAll,
                 backwardTraffic = backward.tensor - backwardAllToAll;
    const double forwardMlp = cost.moe_mlp_forward_s, backwardMlp = cost.moe_mlp_backward_s;
    const double joined = models::pairedSeconds(forward.compute - forwardMlp + forwardTraffic, forwardMlp,
                                                backward.compute - backwardMlp + backwardTraffic, backwardMlp,
                                                forwardAllToAll, backwardAllToAll);
    const double serial = forward.compute + forward.tensor + backward.compute + backward.tensor;
    const double saving = pairedShare * std::max(0.0, serial - joined);
    if (forwardAllToAll + backwardAllToAll > 0.0) {
        forward.tensor -= saving * forwardAllToAll / (forwardAllToAll + backwardAllToAll);
        backward.tensor -= saving * backwardAllToAll / (forwardAllToAll + backwardAllToAll);
    }
}

// Per pipeline device: one micro-batch's forward and backward over its chunks, its compute alone,
// its gradient and parameter traffic, its optimizer.
struct StageSums {
    std::vector<std::vector<Reduction>> reductions; // per chunk of the device
    std::vector<double> forward, backward, busy, gradientReduce, paramGather, optimizer, blocked,
        firstForward, unpaired;
    double p2p = 0.0; // the slowest pipeline transfer
    std::vector<ChunkTimes> chunkTimes;
    std::vector<models::StageCost> costs;
};

StageSums sumChunks(const models::ResolvedScenario& rs, const Links& links,
                    const std::vector<double>& pairedShare) {
    const auto& workload = rs.workload();
    const auto& parallel = workload.parallel;
    const std::int64_t chunks = parallel.pp * parallel.vp;
    const std::int64_t dataGroup = parallel.dataParallelGroup();
    const auto stages = static_cast<std::size_t>(parallel.pp);
    StageSums sums;
    sums.reductions.resize(stages);
    for (auto* perStage : {&sums.forward, &sums.backward, &sums.busy, &sums.gradientReduce, &sums.paramGather,
                           &sums.optimizer, &sums.blocked, &sums.firstForward, &sums.unpaired})
        perStage->assign(stages, 0.0);
    sums.costs.reserve(static_cast<std::size_t>(chunks));
    for (std::int64_t chunk = 0; chunk < chunks; ++chunk) {
        const auto& cost = sums.costs.emplace_back(models::stageCost(rs, chunk));
        const std::int64_t stage = chunk % parallel.pp;
        const auto stageIndex = static_cast<std::size_t>(stage);
        const ChunkLinks chunkLinks{links,
                                    workload,
                                    cost,
                                    stage,
                                    parallel.tensorGroup(0, stage),
                                    parallel.contextGroup(0, stage),
                                    parallel.dataGroup(0, stage)};
        OpTime forwardOp = chunkLinks.operation(cost.forward_s, cost.tp_collectives_forward,
                                                cost.cp_bytes_forward, cost.cp_steps_forward, false);
        OpTime backwardOp = chunkLinks.operation(cost.backward_s, cost.tp_collectives_backward,
                                                 cost.cp_bytes_backward, cost.cp_steps_backward, true);
        sums.unpaired[stageIndex] += forwardOp.total() + backwardOp.total();
        if (workload.overlap.ep_comm)
            pairOperations(forwardOp, backwardOp, chunkLinks, pairedShare[stageIndex]);
        sums.chunkTimes.push_back(
            {forwardOp, backwardOp, cost.backward_s > 0.0 ? cost.recompute_s / cost.backward_s : 0.0});
        const double forwardSeconds = forwardOp.total(), backwardSeconds = backwardOp.total();
        sums.forward[stageIndex] += forwardSeconds;
        sums.backward[stageIndex] += backwardSeconds;
        sums.busy[stageIndex] += cost.forward_s + cost.backward_s;
        sums.blocked[stageIndex] += (forwardSeconds + backwardSeconds) - (cost.forward_s + cost.backward_s);
        sums.optimizer[stageIndex] += cost.optimizer_s;
        if (dataGroup > 1 && parallel.zero < 3) {
            const Reduction reduction =
                chunkLinks.gradientReduction(workload.overlap.grad_reduce ? backwardSeconds : 0.0);
            sums.gradientReduce[stageIndex] += reduction.reduce;
            sums.reductions[stageIndex].push_back(reduction);
            if (parallel.zero >= 1)
                sums.paramGather[stageIndex] += chunkLinks.paramGather();
        }
        if (chunk < parallel.pp)
            sums.firstForward[stageIndex] = forwardSeconds;
        if (chunk + 1 < chunks) {
            const auto from = parallel.rank(0, 0, 0, stage),
                       to = parallel.rank(0, 0, 0, (chunk + 1) % parallel.pp);
            sums.p2p = std::max(sums.p2p, links.transfer(from, to, cost.pp_bytes));
        }
    }
    return sums;
}

// Overlapped parameter gather: issued as the step starts, it delays the step only by what is left of
// it when the device's first forward ends (after the first micro-batch's trip down the pipeline).
void overlapParamGather(StageSums& sums) {
    double window = 0.0;
    for (std::size_t stage = 0; stage < sums.paramGather.size(); ++stage) {
        window += sums.firstForward[stage] + (stage > 0 ? sums.p2p : 0.0);
        sums.paramGather[stage] = std::max(0.0, sums.paramGather[stage] - window);
    }
}

// 1F1B (interleaved: the bubble shrinks by vp): the slowest device sets the steady state; the first
// micro-batch's trip down and back the fill and drain.
// Combined 1F1B: the steady state's pairs are shorter; the fill and drain are warm-up forwards and
// cool-down backwards, never paired (`unpaired`: a micro-batch's operations in turn).
double pipelineSeconds(const StageSums& sums, double microBatches, const models::ParallelLayout& parallel) {
    double slowest = 0.0, fill = 0.0, slowestUnpaired = 0.0;
    for (std::size_t stage = 0; stage < sums.forward.size(); ++stage) {
        if (sums.forward[stage] + sums.backward[stage] > slowest) {
            slowest = sums.forward[stage] + sums.backward[stage];
            slowestUnpaired = sums.unpaired[stage];
        }
        fill += sums.unpaired[stage];
    }
    return microBatches * slowest + (fill - slowestUnpaired) / static_cast<double>(parallel.vp) +
           2.0 * static_cast<double>(parallel.pp - 1) * sums.p2p;
}

// A device's gradient reduction left after its last backward: its chunks end their last backward pp
// chunk-backwards apart (chunk 0 last); each chunk's buckets are released across its last backward and
// reduced one after another.
double exposedReduction(const std::vector<Reduction>& reductions, std::int64_t pp) {
    double finish = -1e300;
    for (std::size_t k = reductions.size(); k-- > 0;) {
        const Reduction& chunk = reductions[k];
        const double end = -static_cast<double>(k * static_cast<std::size_t>(pp)) * chunk.backward;
        for (int bucket = 0; bucket < chunk.buckets; ++bucket) {
            const double release = end - chunk.backward * (chunk.buckets - 1 - bucket) / chunk.buckets;
            finish = std::max(finish, release) + chunk.reduce / chunk.buckets;
        }
    }
    return reductions.empty() ? 0.0 : std::max(0.0, finish);
}

// The step's end, the device that sets it, and per device its last backward's end and exposed tail.
struct StepEnd {
    double step = 0.0;
    std::size_t critical = 0;
    double criticalTail = 0.0;
    std::vector<double> lastBackwardEnd, exposedTail;
};

// Each device's end: its last backward ends (p.pp - 1 - s) ... device 0 ends the pipeline; device s
// finishes s backward hops earlier. Its last bucketed reduction overlaps the last backward.
StepEnd stepEnd(const StageSums& sums, double pipeline, const models::ParallelLayout& parallel) {
    StepEnd out;
    out.lastBackwardEnd.resize(sums.forward.size());
    out.exposedTail.resize(sums.forward.size());
    for (std::size_t stage = 0; stage < sums.forward.size(); ++stage) {
        const double earlier =
            static_cast<double>(stage) * (sums.backward[stage] / static_cast<double>(parallel.vp) + sums.p2p);
        const double exposed = exposedReduction(sums.reductions[stage], parallel.pp);
        const double tail = exposed + sums.optimizer[stage] + sums.paramGather[stage];
        const double end = pipeline - earlier + tail;
        out.lastBackwardEnd[stage] = pipeline - earlier;
        out.exposedTail[stage] = exposed;
        if (end > out.step) {
            out.step = end;
            out.critical = stage;
            out.criticalTail = exposed + sums.paramGather[stage];
        }
    }
    return out;
}

// Energy of the training pool: every device busy for its compute at TDP, idle otherwise (the other pools:
// models::finishResult).
double energyPerStep(const models::ResolvedScenario& rs, const StageSums& sums, double microBatches,
                     double step) {
    const auto& parallel = rs.workload().parallel;
    const auto& dev = rs.device();
    double energy = 0.0;
    const double perStage = static_cast<double>(parallel.tp * parallel.cp * parallel.dp);
    for (std::size_t stage = 0; stage < sums.forward.size(); ++stage) {
        const double computing = std::min(step, microBatches * sums.busy[stage] + sums.optimizer[stage]);
        energy += perStage * (computing * dev.tdp_W.value + (step - computing) * dev.idle_W.value);
    }
    return energy;
}

} // namespace

models::StepMeasurement estimateStep(const models::ResolvedScenario& rs, StepLayout layout) {
    if (rs.device().weight_streaming) { // its closed form (models/weightstreaming.h)
        auto measurement = models::weightStreamingMeasurement(rs);
        measurement.calibration = kSpecSheetCalibration;
        return measurement;
    }
    const auto& workload = rs.workload();
    const auto& parallel = workload.parallel;
    const Links links{PlatformSpec::fromScenario(rs), parallel.tp};
    const auto microBatches = static_cast<double>(workload.microBatchesPerStep());
    StageSums sums = sumChunks(rs, links, pairedShares(workload, microBatches));
    if (workload.overlap.param_gather)
        overlapParamGather(sums);
    const double pipeline = pipelineSeconds(sums, microBatches, parallel);
    const StepEnd end = stepEnd(sums, pipeline, parallel);

    const double step = end.step;
    const std::size_t critical = end.critical;
    models::StepMeasurement measurement;
    measurement.step_time_s = step;
    auto& breakdown = measurement.breakdown;
    breakdown.compute_s = microBatches * sums.busy[critical] + sums.optimizer[critical];
    breakdown.exposed_communication_s =
        std::min(step - breakdown.compute_s, microBatches * sums.blocked[critical] + end.criticalTail);
    breakdown.pipeline_bubble_s =
        std::max(0.0, step - breakdown.compute_s - breakdown.exposed_communication_s);
    measurement.compute_split = models::computeSplit(workload, sums.costs);
    measurement.it_energy_per_step_J = energyPerStep(rs, sums, microBatches, step);
    if (layout == StepLayout::Timeline)
        measurement.timeline = analyticalTimeline(
            parallel.pp, parallel.vp, workload.microBatchesPerStep(), parallel.tp * parallel.cp * parallel.dp,
            sums.chunkTimes, sums.p2p, end.lastBackwardEnd, end.exposedTail, sums.optimizer, sums.paramGather,
            step, workload.overlap.ep_comm);
    measurement.fidelity = "analytical";
    measurement.calibration = kSpecSheetCalibration;
    return measurement;
}

} // namespace choreo::sim
