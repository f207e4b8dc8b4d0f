#include "sim/analytical.h"

#include "models/stepcost.h"
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

} // namespace

models::StepMeasurement estimateStep(const models::ResolvedScenario& rs, StepLayout layout) {
    const auto& w = rs.workload();
    const auto& p = w.parallel;
    const auto& dev = rs.device();
    const Links links{PlatformSpec::fromScenario(rs), p.tp};
    auto device = [&](std::int64_t t, std::int64_t c, std::int64_t d, std::int64_t s) {
        return t + p.tp * (c + p.cp * (d + p.dp * s));
    };
    auto group = [&](std::int64_t s, bool tensor, bool context, bool data) {
        std::vector<std::int64_t> g;
        for (std::int64_t d = 0; d < (data ? p.dp : 1); ++d)
            for (std::int64_t c = 0; c < (context ? p.cp : 1); ++c)
                for (std::int64_t t = 0; t < (tensor ? p.tp : 1); ++t)
                    g.push_back(device(t, c, d, s));
        return g;
    };
    const std::int64_t chunks = p.pp * p.vp;
    const auto M = static_cast<double>(w.microBatchesPerStep());
    const std::int64_t dataGroup = p.dataParallelGroup();
    // Combined 1F1B (overlap.ep_comm): per pipeline device, the share of its operations that run in pairs
    // (pipelineSchedule marks them, as the simulation runs them).
    const bool combined = w.overlap.ep_comm;
    std::vector<double> pairedShare(static_cast<std::size_t>(p.pp), 0.0);
    if (combined) {
        const auto orders = pipelineSchedule(p.pp, p.vp, w.microBatchesPerStep(), true);
        for (std::size_t s = 0; s < orders.size(); ++s)
            pairedShare[s] = static_cast<double>(std::count_if(
                                 orders[s].begin(), orders[s].end(),
                                 [](const auto& slot) { return slot.paired && slot.backward; })) /
                             (M * static_cast<double>(p.vp));
    }

    // Per pipeline device: one micro-batch's forward and backward over its chunks, its compute alone,
    // its gradient and parameter traffic, its optimizer.
    // Per chunk: its backward and its gradient reduction, split in buckets as the simulation does.
    struct Reduction {
        double backward = 0, reduce = 0;
        int buckets = 1;
    };
    std::vector<std::vector<Reduction>> reductions(static_cast<std::size_t>(p.pp));
    std::vector<double> fwd(static_cast<std::size_t>(p.pp)), bwd(fwd), busy(fwd), dpTime(fwd), agTime(fwd),
        optimizer(fwd), blocked(fwd), firstForward(fwd), unpaired(fwd);
    double p2p = 0.0;
    std::vector<ChunkTimes> chunkTimes;
    std::vector<models::StageCost> costs;
    costs.reserve(static_cast<std::size_t>(chunks));
    for (std::int64_t j = 0; j < chunks; ++j) {
        const auto& c = costs.emplace_back(models::stageCost(rs, j));
        const std::int64_t s = j % p.pp;
        const auto si = static_cast<std::size_t>(s);
        const auto tensor = group(s, true, false, false), context = group(s, false, true, false);
        const auto data = group(s, false, true, true);
        // Expert-parallel all-to-all: each device sends bytes/ep to each peer, those on its node over its
        // scale-up link, the others over its NIC, side by side; the busier link and the longest hop pace it.
        auto allToAll = [&](int count) {
            if (p.ep <= 1 || count <= 0 || c.ep_bytes <= 0.0)
                return 0.0;
            const double share = c.ep_bytes / static_cast<double>(p.ep);
            const std::int64_t self = device(0, 0, 0, s);
            double scaleUp = 0.0, nic = 0.0, hop = 0.0, nicBps = 1e300;
            // The peers, as the simulation's expert groups (ParallelLayout::expertGroupMember).
            for (std::int64_t member = 1; member < p.ep; ++member) {
                const std::int64_t peer = p.expertGroupMember(0, member) + device(0, 0, 0, s);
                hop = std::max(hop, links.spec.latency(self, peer));
                if (links.spec.sameNode(self, peer)) {
                    scaleUp += share;
                } else {
                    nic += share;
                    nicBps = std::min(nicBps, links.bandwidth(self, peer));
                }
            }
            const double time = std::max(scaleUp / links.spec.scale_up_Bps, nic > 0.0 ? nic / nicBps : 0.0);
            return count * (hop + time);
        };
        auto op = [&](double compute, int tpColl, double cpBytes, int cpSteps, bool backward) {
            const double cpTime = links.pass(context, cpSteps, cpBytes / std::max(1, cpSteps));
            // Tensor collectives after the computation, or with tp-comm overlap all but their last split
            // beside it (models::tpExposedBytes).
            const double local = std::max(compute, cpTime);
            const double tail = models::tpExposedBytes(c.tp_bytes, w.overlap.tp_comm);
            const double tpTail = links.allReduce(tensor, tpColl, tail);
            const double tpBeside =
                w.overlap.tp_comm ? links.allReduce(tensor, tpColl, c.tp_bytes - tail) : 0.0;
            const double base = std::max(local, tpBeside) + tpTail +
                                allToAll(backward ? c.ep_collectives_backward : c.ep_collectives_forward);
            double t = base;
            if (p.zero >= 3) { // the layers' steps (StageCost::zero3Steps) and their collectives
                const double n = static_cast<double>(dataGroup);
                // Each no faster than the framework itself runs it (models::zero3FrameworkSeconds).
                auto collective = [&](double bytes) {
                    return bytes > 0.0 ? std::max(links.ring(data, static_cast<int>(dataGroup - 1), 1,
                                                             (n - 1) / n * bytes),
                                                  models::zero3FrameworkSeconds(w, bytes))
                                       : 0.0;
                };
                const auto& steps = c.zero3Steps(backward);
                std::vector<double> gathers, reduces; // per step of a layer, s
                for (const auto& step : steps) {
                    gathers.push_back(collective(step.gather_bytes));
                    reduces.push_back(collective(step.reduce_bytes));
                }
                const int layers = std::max(1, c.layers);
                const double perLayer = t / layers;
                if (w.zero3_engine == models::Zero3Engine::Layered) {
                    // Per layer, the next layer's gather (and the reduce-scatter) beside compute; gathers
                    // and reduce-scatters share the device's links.
                    t = gathers.front() + layers * std::max(perLayer, gathers.front() + reduces.front());
                } else {
                    // One stream, a module ahead: from one gathering step to the next, the larger of the
                    // compute between them and the next gather, then the reduce-scatters issued meanwhile.
                    double total = -1.0, computed = 0.0, reduced = 0.0;
                    for (int l = 0; l < layers; ++l)
                        for (std::size_t k = 0; k < steps.size(); ++k) {
                            if (steps[k].gather_bytes > 0.0) {
                                total = total < 0.0 ? gathers[k]
                                                    : total + std::max(computed, gathers[k]) + reduced;
                                computed = reduced = 0.0;
                            }
                            computed += perLayer * steps[k].compute_share;
                            reduced += reduces[k];
                        }
                    t = std::max(0.0, total) + computed + reduced;
                }
            }
            return OpTime{compute, base - compute, t - base};
        };
        OpTime fOp = op(c.forward_s, c.tp_collectives_forward, c.cp_bytes_forward, c.cp_steps_forward, false);
        OpTime bOp =
            op(c.backward_s, c.tp_collectives_backward, c.cp_bytes_backward, c.cp_steps_backward, true);
        unpaired[si] += fOp.total() + bOp.total();
        if (combined) {
            // A paired forward and backward (here both of this chunk) take the sum over the four phases of
            // the larger of the computation and the other's all-to-alls (StepBuilder::makePair) instead of
            // everything in turn; the saving, weighted by the device's paired share, comes off the
            // all-to-all time each waits for.
            const double aF = allToAll(c.ep_collectives_forward), aB = allToAll(c.ep_collectives_backward);
            const double tF = fOp.tensor - aF, tB = bOp.tensor - aB; // tensor and context traffic
            const double fMlp = c.moe_mlp_forward_s, bMlp = c.moe_mlp_backward_s;
            const double joined =
                models::pairedSeconds(fOp.compute - fMlp + tF, fMlp, bOp.compute - bMlp + tB, bMlp, aF, aB);
            const double serial = fOp.compute + fOp.tensor + bOp.compute + bOp.tensor;
            const double saving = pairedShare[si] * std::max(0.0, serial - joined);
            if (aF + aB > 0.0) {
                fOp.tensor -= saving * aF / (aF + aB);
                bOp.tensor -= saving * aB / (aF + aB);
            }
        }
        chunkTimes.push_back({fOp, bOp, c.backward_s > 0.0 ? c.recompute_s / c.backward_s : 0.0});
        const double f = fOp.total(), b = bOp.total();
        fwd[si] += f;
        bwd[si] += b;
        busy[si] += c.forward_s + c.backward_s;
        blocked[si] += (f + b) - (c.forward_s + c.backward_s);
        optimizer[si] += c.optimizer_s;
        if (dataGroup > 1 && p.zero < 3) {
            const double n = static_cast<double>(dataGroup);
            const double params = c.grad_bytes / models::gradientReduceBytes(w);
            const double bucket = std::max(40e6, 1e6 * static_cast<double>(p.dp));
            // Without overlap, one reduction per chunk once the whole backward is done.
            const int buckets =
                w.overlap.grad_reduce ? std::clamp(static_cast<int>(std::ceil(params / bucket)), 1, 8) : 1;
            // One collective per bucket, as the simulation issues them.
            const double bytes = c.grad_bytes / buckets;
            const double reduce = buckets * (p.zero >= 1 ? links.ring(data, static_cast<int>(dataGroup - 1),
                                                                      1, (n - 1) / n * bytes)
                                                         : links.allReduce(data, 1, bytes));
            dpTime[si] += reduce;
            reductions[si].push_back({w.overlap.grad_reduce ? b : 0.0, reduce, buckets});
            if (p.zero >= 1)
                agTime[si] +=
                    links.ring(data, static_cast<int>(dataGroup - 1), 1, (n - 1) / n * c.param_bytes);
        }
        if (j < p.pp)
            firstForward[si] = f;
        if (j + 1 < chunks) {
            const auto a = device(0, 0, 0, s), b2 = device(0, 0, 0, (j + 1) % p.pp);
            p2p = std::max(p2p, links.transfer(a, b2, c.pp_bytes));
        }
    }
    // Overlapped parameter gather: issued as the step starts, it delays the step only by what is left of
    // it when the device's first forward ends (after the first micro-batch's trip down the pipeline).
    if (w.overlap.param_gather) {
        double window = 0.0;
        for (std::size_t s = 0; s < agTime.size(); ++s) {
            window += firstForward[s] + (s > 0 ? p2p : 0.0);
            agTime[s] = std::max(0.0, agTime[s] - window);
        }
    }

    // 1F1B (interleaved: the bubble shrinks by vp): the slowest device sets the steady state; the first
    // micro-batch's trip down and back the fill and drain.
    // Combined 1F1B: the steady state's pairs are shorter; the fill and drain are warm-up forwards and
    // cool-down backwards, never paired (`unpaired`: a micro-batch's operations in turn).
    double slowest = 0.0, fill = 0.0, slowestUnpaired = 0.0;
    for (std::size_t s = 0; s < fwd.size(); ++s) {
        if (fwd[s] + bwd[s] > slowest) {
            slowest = fwd[s] + bwd[s];
            slowestUnpaired = unpaired[s];
        }
        fill += unpaired[s];
    }
    const double pipeline = M * slowest + (fill - slowestUnpaired) / static_cast<double>(p.vp) +
                            2.0 * static_cast<double>(p.pp - 1) * p2p;
    // Each device's end: its last backward ends (p.pp - 1 - s) ... device 0 ends the pipeline; device s
    // finishes s backward hops earlier. Its last bucketed reduction overlaps the last backward.
    double step = 0.0, criticalTail = 0.0;
    std::size_t critical = 0;
    std::vector<double> lastBackwardEnd(fwd.size()), exposedTail(fwd.size());
    for (std::size_t s = 0; s < fwd.size(); ++s) {
        const double earlier = static_cast<double>(s) * (bwd[s] / static_cast<double>(p.vp) + p2p);
        // The device's chunks end their last backward pp chunk-backwards apart (chunk 0 last); each
        // chunk's buckets are released across its last backward and reduced one after another.
        double finish = -1e300;
        const auto& rd = reductions[s];
        for (std::size_t k = rd.size(); k-- > 0;) {
            const double end = -static_cast<double>(k * static_cast<std::size_t>(p.pp)) * rd[k].backward;
            for (int b = 0; b < rd[k].buckets; ++b) {
                const double release = end - rd[k].backward * (rd[k].buckets - 1 - b) / rd[k].buckets;
                finish = std::max(finish, release) + rd[k].reduce / rd[k].buckets;
            }
        }
        const double exposed = rd.empty() ? 0.0 : std::max(0.0, finish);
        const double tail = exposed + optimizer[s] + agTime[s];
        const double end = pipeline - earlier + tail;
        lastBackwardEnd[s] = pipeline - earlier;
        exposedTail[s] = exposed;
        if (end > step) {
            step = end;
            critical = s;
            criticalTail = exposed + agTime[s];
        }
    }
    models::StepMeasurement m;
    m.step_time_s = step;
    m.breakdown.compute_s = M * busy[critical] + optimizer[critical];
    m.breakdown.exposed_communication_s =
        std::min(step - m.breakdown.compute_s, M * blocked[critical] + criticalTail);
    m.breakdown.pipeline_bubble_s =
        std::max(0.0, step - m.breakdown.compute_s - m.breakdown.exposed_communication_s);
    m.compute_split = models::computeSplit(w, costs);
    // Energy: every device busy for its compute at TDP, idle otherwise; pools that do not train idle.
    double energy = 0.0;
    const double perStage = static_cast<double>(p.tp * p.cp * p.dp);
    for (std::size_t s = 0; s < fwd.size(); ++s) {
        const double computing = std::min(step, M * busy[s] + optimizer[s]);
        energy += perStage * (computing * dev.tdp_W.value + (step - computing) * dev.idle_W.value);
    }
    for (std::size_t i = 0; i < rs.pools.size(); ++i)
        if (i != rs.training_pool)
            energy += rs.pools[i].device->idle_W.value * static_cast<double>(rs.pools[i].pool.count) * step;
    m.it_energy_per_step_J = energy;
    if (layout == StepLayout::Timeline)
        m.timeline = analyticalTimeline(p.pp, p.vp, w.microBatchesPerStep(), p.tp * p.cp * p.dp, chunkTimes,
                                        p2p, lastBackwardEnd, exposedTail, optimizer, agTime, step, combined);
    m.fidelity = "analytical";
    m.calibration = kSpecSheetCalibration;
    return m;
}

} // namespace choreo::sim
