#include "sim/simulator.h"

#include "models/stepcost.h"
#include "sim/analytical.h"
#include "sim/collectives.h"
#include "sim/dataflows.h"
#include "sim/engine.h"
#include "sim/isolate.h"
#include "sim/platform.h"
#include "sim/schedule.h"
#include "sim/serving.h"
#include "sim/taskgraph.h"
#include "sim/weightstreamflow.h"

#include <simgrid/plugins/energy.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <optional>
#include <unistd.h>

namespace choreo::sim {

std::string toString(Fidelity fidelity) {
    switch (fidelity) {
    case Fidelity::Analytical:
        return "analytical";
    case Fidelity::Flow:
        return "flow";
    case Fidelity::Packet:
        return "packet";
    }
    return "flow";
}

std::optional<Fidelity> fidelityFromString(const std::string& text) {
    for (auto f : {Fidelity::Analytical, Fidelity::Flow, Fidelity::Packet})
        if (toString(f) == text)
            return f;
    return std::nullopt;
}

namespace {

using Id = TaskGraph::Id;

// Whether only rank 0 of each tensor and context group is simulated: at flow fidelity, where each device's
// scale-up and NIC links are its own (see StepBuilder).
bool foldsGroups(const PlatformSpec& spec, Fidelity fidelity) {
    return fidelity == Fidelity::Flow && !spec.sharedScaleOutLinks();
}

// How many devices each simulated device stands for: its data-parallel replicas, and the tensor and
// context ranks folded onto rank 0.
double foldFactorOf(const models::Workload& w, const PlatformSpec& spec, Fidelity fidelity) {
    const std::int64_t groups = foldsGroups(spec, fidelity) ? w.parallel.tp * w.parallel.cp : 1;
    return static_cast<double>(w.parallel.dp * groups);
}

// Megatron's default gradient bucket: max(40M, 1M * dp) parameters.
constexpr double kBucketParams = 40e6;
constexpr int kMaxBuckets = 8;

// One pipeline operation (forward or backward of a micro-batch on a model chunk) on its tensor group.
struct Op {
    Id in = -1;               // may start: previous op of the device done and input arrived
    Id ready = -1;            // computing may start (after `in`; ZeRO-3 also waits for its gather here)
    Id out = -1;              // done, including the collectives that block it
    Id collectives = -1;      // its tensor and expert collectives done (what later waits add to `out` aside)
    std::vector<Id> computes; // the representative device's computations, in order
    std::vector<std::array<Id, 2>> waits; // (from, until) pairs: from the end of `from` to the end of `until`
                                          // the device waits for a gather (ZeRO-3: (in, ready))
    // Combined 1F1B (Workload::Overlap::ep_comm): a forward and a backward that run as one share `in` and
    // `out`; the forward holds the span and its partner's computations, the backward is `joined` to it.
    std::vector<Id> partner_computes;
    bool joined = false;
    // Per computation, the share of it that is recomputation (a joined backward: none in its expert MLP, all
    // of the chunk's in its attention phase); empty: the chunk's share in each.
    std::vector<double> recompute_shares;
    Id previous = -1; // the end of the device's operation before it (a pair: before the pair)
};

// A task of the representative device that the timeline shows: [start, end] of `from` .. `to`.
struct Tagged {
    Id from = -1;
    Id to = -1;
    std::int64_t micro = -1;
    std::int64_t chunk = -1;
};

// Builds the task graph of one training step: Megatron's 1F1B schedule, interleaved when vp > 1.
//
// Symmetry folding. Data-parallel replicas other than replica 0 do not compute: every replica does
// the same work at the same time. Their data-parallel traffic is still on the platform: at flow
// fidelity a ring simulates the edges of replica 0's device, one edge of each link class and, on
// fabrics with shared scale-out links, every edge that crosses leaf switches (Edges::ByLinkClass),
// which loads every shared link as the full ring would. Tensor- and context-parallel ranks other than
// rank 0 are folded the same way at flow fidelity, their data-parallel rings included: each device's
// scale-up and NIC links are its own, so their identical transfers share no link with rank 0's but
// where rank 0's one-edge collectives reach their devices (a tensor ring's edge into rank 1, which a
// data ring on the same scale-up links then no longer meets: GB200's 72-device domains moved by up to
// 0.16 %). On fabrics with shared scale-out links (oversubscribed leaves, dragonfly, torus) every rank
// is simulated. Packet fidelity simulates every rank and every edge.
class StepBuilder {
public:
    StepBuilder(const models::ResolvedScenario& rs, const Platform& platform, TaskGraph& graph,
                Fidelity fidelity)
        : w_(rs.workload())
        , platform_(platform)
        , graph_(graph)
        , fidelity_(fidelity)
        , tp_(w_.parallel.tp)
        , pp_(w_.parallel.pp)
        , dp_(w_.parallel.dp)
        , vp_(w_.parallel.vp)
        , cp_(w_.parallel.cp)
        , ep_(w_.parallel.ep)
        , chunks_(pp_ * vp_)
        , micro_(w_.microBatchesPerStep())
        , zero_(w_.parallel.zero)
        , folded_(fidelity == Fidelity::Flow)
        , activeTp_(foldsGroups(platform.spec(), fidelity) ? 1 : tp_)
        , activeCp_(foldsGroups(platform.spec(), fidelity) ? 1 : cp_)
        , dpEdges_(folded_ ? Edges::ByLinkClass : Edges::All)
        , groupEdges_(folded_ ? Edges::Representative : Edges::All) {
        for (std::int64_t c = 0; c < chunks_; ++c)
            costs_.push_back(models::stageCost(rs, c));
        // Every expert group spans nodes alike: the dispatcher's scale of the first holds for all.
        if (ep_ > 1) {
            const auto group = expertGroup(0, 0);
            const auto sameNode = std::count_if(group.begin(), group.end(), [&](std::int64_t member) {
                return platform_.sameNode(group.front(), member);
            });
            dispatchScale_ = models::expertDispatchScale(w_, sameNode);
        }
    }

    // Megatron's rank order and groups (models::ParallelLayout).
    std::int64_t device(std::int64_t t, std::int64_t c, std::int64_t d, std::int64_t stage) const {
        return w_.parallel.rank(t, c, d, stage);
    }
    std::vector<std::int64_t> tensorGroup(std::int64_t c, std::int64_t stage) const {
        return w_.parallel.tensorGroup(c, stage);
    }
    std::vector<std::int64_t> contextGroup(std::int64_t t, std::int64_t stage) const {
        return w_.parallel.contextGroup(t, stage);
    }
    std::vector<std::int64_t> dataGroup(std::int64_t t, std::int64_t stage) const {
        return w_.parallel.dataGroup(t, stage);
    }
    const models::StageCost& cost(std::int64_t chunk) const {
        return costs_[static_cast<std::size_t>(chunk)];
    }
    const std::vector<models::StageCost>& costs() const { return costs_; }

    // A computation on every simulated device of a stage's tensor and context group, then the tensor
    // collectives; context-parallel ring traffic runs beside the computation.
    // The devices that exchange tokens with one another's experts (ParallelLayout::expertGroupMember): the
    // group of the device of rank `rank` within its stage.
    std::vector<std::int64_t> expertGroup(std::int64_t rank, std::int64_t stage) const {
        std::vector<std::int64_t> g;
        for (std::int64_t j = 0; j < ep_; ++j)
            g.push_back(w_.parallel.expertGroupMember(rank, j) + stage * tp_ * cp_ * dp_);
        return g;
    }

    Op makeOp(std::int64_t chunk, double computeS, int tpCollectives, double cpBytes, int cpSteps,
              int epCollectives = 0, double offloadTransfers = 0.0) {
        const std::int64_t stage = chunk % pp_;
        // Offloaded experts' dispatches and combines cross the platform's links below: their bandwidth
        // part leaves the computation (their latency stays in it).
        const bool offloadFlows = platform_.expertPool() && offloadTransfers > 0.0;
        if (offloadFlows)
            computeS = std::max(0.0, computeS - offloadTransfers * cost(chunk).offload_send_bytes /
                                                    cost(chunk).offload_link_Bps);
        Op op;
        op.in = graph_.join();
        op.ready = graph_.join();
        graph_.depend(op.in, op.ready);
        op.waits.push_back({op.in, op.ready});
        const Id computed = graph_.join();
        for (std::int64_t c = 0; c < activeCp_; ++c)
            for (std::int64_t t = 0; t < activeTp_; ++t) {
                const Id x = graph_.compute(device(t, c, 0, stage), computeS);
                graph_.depend(op.ready, x);
                graph_.depend(x, computed);
                if (t == 0 && c == 0)
                    op.computes.push_back(x);
            }
        // Tensor collectives follow the computation, or with tp-comm overlap all but their last split run
        // beside it (models::tpExposedBytes).
        const double bytes = cost(chunk).tp_bytes;
        const bool overlapped = w_.overlap.tp_comm && tp_ > 1 && tpCollectives > 0 && bytes > 0.0;
        const double tail = models::tpExposedBytes(bytes, overlapped);
        Id done = computed;
        for (std::int64_t c = 0; c < activeCp_; ++c) {
            const auto group = tensorGroup(c, stage);
            Id after = computed;
            if (overlapped)
                after =
                    join(computed, ringCollective(graph_, platform_, fidelity_, Collective::AllReduce, group,
                                                  bytes - tail, tpCollectives, op.ready, groupEdges_));
            const Id tensor = ringCollective(graph_, platform_, fidelity_, Collective::AllReduce, group, tail,
                                             tpCollectives, after, groupEdges_);
            done = c == 0 ? tensor : join(done, tensor);
        }
        // Expert-parallel all-to-alls after the tensor collectives (no overlap, as Megatron's default).
        if (ep_ > 1 && epCollectives > 0)
            done = join(done, expertAllToAlls(chunk, epCollectives, done));
        if (offloadFlows)
            done = expertPoolTransfers(chunk, offloadTransfers, done);
        // `out` is a join of its own, so that what is added to it later (the first forward's wait for the
        // step's parameter gather) leaves `collectives` as simulated.
        op.collectives = done;
        op.out = graph_.join();
        graph_.depend(done, op.out);
        if (cp_ > 1)
            for (std::int64_t t = 0; t < activeTp_; ++t)
                graph_.depend(ringPass(graph_, platform_, fidelity_, contextGroup(t, stage), cpBytes, cpSteps,
                                       op.in, groupEdges_),
                              op.out);
        return op;
    }

    // The op's `transfers` to and from the expert pool, from `after` on: per simulated device of the stage
    // (and with OffloadPathSpec::every_device, per device of every replica), its dispatches (its NIC to the
    // pool) then its combines (back), each direction half the transfers' bytes, one after the other as
    // the layers' are; done when every device's are.
    Id expertPoolTransfers(std::int64_t chunk, double transfers, Id after) {
        const std::int64_t stage = chunk % pp_;
        const double bytes = 0.5 * transfers * cost(chunk).offload_send_bytes;
        const std::int64_t replicas = platform_.spec().experts.every_device ? dp_ : 1;
        const Id done = graph_.join();
        for (std::int64_t r = 0; r < replicas; ++r)
            for (std::int64_t c = 0; c < activeCp_; ++c)
                for (std::int64_t t = 0; t < activeTp_; ++t) {
                    sg4::Host* nic = platform_.nic(device(t, c, r, stage));
                    const Id dispatch = graph_.transferHosts(nic, platform_.expertPool(), bytes);
                    const Id combine = graph_.transferHosts(platform_.expertPool(), nic, bytes);
                    graph_.depend(after, dispatch);
                    graph_.depend(dispatch, combine);
                    graph_.depend(combine, done);
                }
        return done;
    }

    // `count` expert-parallel all-to-alls of a chunk's tokens from `after` on, one per expert group
    // (expertGroup) holding a simulated device; done when all are.
    Id expertAllToAlls(std::int64_t chunk, int count, Id after) {
        const std::int64_t stage = chunk % pp_;
        Id done = after;
        std::vector<std::int64_t> firsts;
        for (std::int64_t c = 0; c < activeCp_; ++c)
            for (std::int64_t t = 0; t < activeTp_; ++t) {
                auto group = expertGroup(t + tp_ * c, stage);
                if (std::find(firsts.begin(), firsts.end(), group.front()) != firsts.end())
                    continue;
                firsts.push_back(group.front());
                done =
                    join(done, allToAll(graph_, platform_, fidelity_, group, cost(chunk).ep_bytes, count,
                                        after, folded_ ? Edges::Representative : Edges::All, dispatchScale_));
            }
        return done;
    }

    // Megatron-Core's combined 1F1B (overlap.ep_comm, model_chunk_schedule_plan.py): the forward of one
    // micro-batch on chunk `fChunk` and the backward of another on `bChunk` run layer by layer, each phase's
    // computation on the compute stream beside the other's all-to-all on the communication stream:
    //   attention forward (and the router)  | the backward's combine
    //   expert MLP backward                 | the forward's dispatch
    //   expert MLP forward                  | the backward's dispatch
    //   attention backward                  | the forward's combine
    // A phase ends when both have; the chunk's layers are taken together (each phase sums them). The
    // tensor and context-parallel traffic stays with the attention phases.
    std::pair<Op, Op> makePair(std::int64_t fChunk, std::int64_t bChunk) {
        const auto& f = cost(fChunk);
        const auto& b = cost(bChunk);
        const int fHalf = f.ep_collectives_forward / 2, bHalf = b.ep_collectives_backward / 2;
        struct Phase {
            bool backward;
            bool mlp; // the expert MLPs (else attention, router and dense layers, where recomputation is)
            double compute;
            int tpCollectives;
            double cpBytes;
            int cpSteps;
            int allToAlls; // of the other operation
        };
        const std::array<Phase, 4> phases{{
            {false, false, f.forward_s - f.moe_mlp_forward_s, f.tp_collectives_forward, f.cp_bytes_forward,
             f.cp_steps_forward, bHalf},
            {true, true, b.moe_mlp_backward_s, 0, 0.0, 0, fHalf},
            {false, true, f.moe_mlp_forward_s, 0, 0.0, 0, b.ep_collectives_backward - bHalf},
            {true, false, b.backward_s - b.moe_mlp_backward_s, b.tp_collectives_backward, b.cp_bytes_backward,
             b.cp_steps_backward, f.ep_collectives_forward - fHalf},
        }};
        Op fwd, bwd;
        const Id start = graph_.join();
        fwd.in = bwd.in = fwd.ready = bwd.ready = start;
        Id previous = start;
        for (const auto& phase : phases) {
            const std::int64_t chunk = phase.backward ? bChunk : fChunk;
            Op piece = makeOp(chunk, phase.compute, phase.tpCollectives, phase.cpBytes, phase.cpSteps);
            graph_.depend(previous, piece.in);
            Id end = piece.out;
            if (phase.allToAlls > 0) // ep > 1 (resolveScenario)
                end = join(end,
                           expertAllToAlls(phase.backward ? fChunk : bChunk, phase.allToAlls, piece.ready));
            Op& owner = phase.backward ? bwd : fwd;
            if (phase.backward)
                owner.recompute_shares.insert(
                    owner.recompute_shares.end(), piece.computes.size(),
                    phase.mlp || phase.compute <= 0.0 ? 0.0 : std::min(1.0, b.recompute_s / phase.compute));
            owner.computes.insert(owner.computes.end(), piece.computes.begin(), piece.computes.end());
            owner.waits.insert(owner.waits.end(), piece.waits.begin(), piece.waits.end());
            previous = end;
        }
        fwd.out = bwd.out = fwd.collectives = bwd.collectives = previous;
        fwd.partner_computes = bwd.computes;
        bwd.joined = true;
        return {fwd, bwd};
    }

    Id join(Id a, Id b) {
        const Id j = graph_.join();
        graph_.depend(a, j);
        graph_.depend(b, j);
        return j;
    }

    // Chains `pieces` ops into one (the gradient buckets of a last backward, the layers under ZeRO-3).
    Op chain(const std::vector<Op>& pieces) {
        Op whole;
        whole.in = pieces.front().in;
        whole.out = pieces.back().out;
        for (std::size_t i = 0; i < pieces.size(); ++i) {
            if (i > 0)
                graph_.depend(pieces[i - 1].out, pieces[i].in);
            whole.computes.insert(whole.computes.end(), pieces[i].computes.begin(), pieces[i].computes.end());
            whole.waits.insert(whole.waits.end(), pieces[i].waits.begin(), pieces[i].waits.end());
        }
        return whole;
    }

    // Sends each simulated rank's slice of a micro-batch from one chunk to the next (or previous).
    // `posted` (if any): the receiver's previous operation, after which it posts its receive; the transfer
    // waits for it too.
    void pipelineTransfer(Id after, std::int64_t fromChunk, std::int64_t toChunk, std::int64_t micro,
                          Id before, Id posted = -1) {
        const std::int64_t from = fromChunk % pp_, to = toChunk % pp_;
        const Id arrived = graph_.join();
        for (std::int64_t c = 0; c < activeCp_; ++c)
            for (std::int64_t t = 0; t < activeTp_; ++t) {
                const Id x =
                    graph_.transfer(device(t, c, 0, from), device(t, c, 0, to), cost(fromChunk).pp_bytes);
                graph_.depend(after, x);
                if (posted >= 0)
                    graph_.depend(posted, x);
                graph_.depend(x, arrived);
                if (t == 0 && c == 0) {
                    pipeSpans_[static_cast<std::size_t>(from)].push_back({x, x, micro, fromChunk});
                    pipeSpans_[static_cast<std::size_t>(to)].push_back({x, x, micro, toChunk});
                }
            }
        graph_.depend(arrived, before);
    }

    // One data-parallel collective per simulated tensor rank, after `ready` and after that rank's previous
    // one (the collectives of one communicator run in order, as on one NCCL stream). Updates `last` per
    // rank. A positive `atLeast` is the framework's own time for it, the network's notwithstanding. Where
    // tensor ranks are folded, the other ranks' rings run on their own devices' scale-up and NIC links, as
    // rank 0's does, so only rank 0's is simulated (the class comment says where that is not exact).
    void dataCollective(std::int64_t stage, Collective kind, double bytes, Id ready, std::vector<Id>& last,
                        double atLeast = 0.0) {
        last.resize(static_cast<std::size_t>(activeTp_), -1);
        for (std::int64_t t = 0; t < activeTp_; ++t) {
            Id& previous = last[static_cast<std::size_t>(t)];
            const Id start = previous >= 0 ? join(previous, ready) : ready;
            previous = ringCollective(graph_, platform_, fidelity_, kind, dataGroup(t, stage), bytes, 1,
                                      start, dpEdges_);
            if (atLeast > 0.0) {
                const Id framework = graph_.delay(atLeast);
                graph_.depend(start, framework);
                previous = join(previous, framework);
            }
            if (t == 0)
                dataSpans_[static_cast<std::size_t>(stage)].push_back({start, previous, -1, -1});
        }
    }

    // ZeRO-3: each layer's steps (StageCost::zero3Steps) as ops, each step that gathers waiting for its
    // parameters, whose gather is issued as the step that gathered before it starts (prefetch of the next
    // parameters not held: a layer ahead under the layered engine, a module ahead under DeepSpeed's of 2021);
    // a step's gradients are reduce-scattered after it. The layered engine runs gathers and reduce-scatters
    // on streams of their own; DeepSpeed's engine of 2021 on one, where a step that gathers waits for all
    // issued before it (its fetch ends in torch.cuda.synchronize()), and each takes at least
    // bytes / kDeepSpeed2021Zero3Bps (models::zero3FrameworkSeconds).
    Op zero3Op(std::int64_t chunk, bool backward, std::vector<Id>& gathers, std::vector<Id>& reducesStream) {
        const bool deepSpeed = w_.zero3_engine == models::Zero3Engine::DeepSpeed2021;
        std::vector<Id>& reduces = deepSpeed ? gathers : reducesStream;
        auto framework = [&](double bytes) { return models::zero3FrameworkSeconds(w_, bytes); };
        const auto& c = cost(chunk);
        const std::int64_t stage = chunk % pp_;
        const int layers = std::max(1, c.layers);
        const double layerS = (backward ? c.backward_s : c.forward_s) / layers;
        const int coll = backward ? c.tp_collectives_backward : c.tp_collectives_forward;
        const double cpBytes = (backward ? c.cp_bytes_backward : c.cp_bytes_forward) / layers;
        const int cpSteps = (backward ? c.cp_steps_backward : c.cp_steps_forward) / layers;
        const int ep = backward ? c.ep_collectives_backward : c.ep_collectives_forward;
        const double offload = backward ? c.offload_transfers_backward : c.offload_transfers_forward;
        const auto& layerSteps = c.zero3Steps(backward);
        // Piece i is step i % layerSteps.size() of layer i / layerSteps.size().
        auto step = [&](std::size_t i) -> const models::Zero3Step& {
            return layerSteps[i % layerSteps.size()];
        };
        std::vector<Op> pieces;
        pieces.reserve(static_cast<std::size_t>(layers) * layerSteps.size());
        for (int l = 0; l < layers; ++l)
            for (std::size_t k = 0; k < layerSteps.size(); ++k) {
                // A layer's tensor, context and expert collectives go with its first step.
                const bool head = k == 0;
                pieces.push_back(makeOp(chunk, layerS * layerSteps[k].compute_share,
                                        head ? coll / layers + (l < coll % layers ? 1 : 0) : 0,
                                        head ? cpBytes : 0.0, head ? cpSteps : 0,
                                        head ? ep / layers + (l < ep % layers ? 1 : 0) : 0,
                                        offload * layerSteps[k].compute_share / layers));
            }
        Op whole = chain(pieces);
        std::vector<std::size_t> gathering;
        for (std::size_t i = 0; i < pieces.size(); ++i)
            if (step(i).gather_bytes > 0.0)
                gathering.push_back(i);
        auto gather = [&](std::size_t i, Id issue) {
            dataCollective(stage, Collective::AllGather, step(i).gather_bytes, issue, gathers,
                           framework(step(i).gather_bytes));
        };
        std::size_t next = 0; // the next entry of `gathering` to wait for
        if (!gathering.empty())
            gather(gathering.front(), whole.in);
        for (std::size_t i = 0; i < pieces.size(); ++i) {
            if (next < gathering.size() && gathering[next] == i) {
                graph_.depend(gathers, pieces[i].ready);
                if (++next < gathering.size())
                    gather(gathering[next], pieces[i].in);
            }
            if (step(i).reduce_bytes > 0.0)
                dataCollective(stage, Collective::ReduceScatter, step(i).reduce_bytes, pieces[i].out, reduces,
                               framework(step(i).reduce_bytes));
        }
        return whole;
    }

    void build() {
        const auto microBatches = static_cast<std::size_t>(micro_);
        const auto chunks = static_cast<std::size_t>(chunks_);
        pipeSpans_.assign(static_cast<std::size_t>(pp_), {});
        dataSpans_.assign(static_cast<std::size_t>(pp_), {});
        fwd_.assign(chunks, std::vector<Op>(microBatches));
        bwd_.assign(chunks, std::vector<Op>(microBatches));
        std::vector<std::vector<Id>> reduced(chunks); // per chunk: the last data collective per tensor rank
        std::vector<std::vector<Id>> gathers(
            static_cast<std::size_t>(pp_)); // ZeRO-3 gather stream per device
        std::vector<std::vector<Id>> reduces(
            static_cast<std::size_t>(pp_)); // ZeRO-3 reduce stream per device

        // Ops in each device's schedule order, so that ZeRO-3's streams follow the schedule.
        const auto orders = pipelineSchedule(pp_, vp_, micro_, combined());
        for (std::int64_t stage = 0; stage < pp_; ++stage) {
            const auto stageIndex = static_cast<std::size_t>(stage);
            buildStageOps(orders[stageIndex], reduced, gathers[stageIndex], reduces[stageIndex]);
        }
        connectChunks();
        // ZeRO-1/2 parameter gather: after the optimizer, or (overlapped) issued as the step starts, for
        // every chunk in turn, with each chunk's first forward unable to finish before its parameters
        // have arrived (Megatron dispatches all buckets' gathers after the optimizer step and waits for
        // each in the forward that needs it).
        const bool gatherParams = (zero_ == 1 || zero_ == 2) && dp_ * cp_ > 1;
        if (gatherParams && w_.overlap.param_gather)
            gatherParamsAtStepStart();
        // Per device: once its gradients are reduced, the optimizer, then (ZeRO-1/2) the parameter gather.
        stageEnd_.assign(static_cast<std::size_t>(pp_), -1);
        lastBackwardOut_.assign(static_cast<std::size_t>(pp_), -1);
        optimizer_.assign(static_cast<std::size_t>(pp_), -1);
        for (std::int64_t stage = 0; stage < pp_; ++stage) {
            const auto stageIndex = static_cast<std::size_t>(stage);
            stageEnd_[stageIndex] =
                finishStage(stage, orders[stageIndex].back(), reduced, reduces[stageIndex], gatherParams);
        }
    }

    // The last micro-batch's backward of a chunk, cut into gradient buckets whose data-parallel reduction
    // starts while the rest of the backward still computes.
    Op lastBackward(std::int64_t chunk, std::vector<Id>& reduced) {
        const auto& c = cost(chunk);
        const std::int64_t stage = chunk % pp_;
        const std::int64_t group = dp_ * cp_;
        const double params = c.grad_bytes / models::gradientReduceBytes(w_);
        const double bucketParams = std::max(kBucketParams, 1e6 * static_cast<double>(dp_));
        const int buckets =
            group > 1 ? std::clamp(static_cast<int>(std::ceil(params / bucketParams)), 1, kMaxBuckets) : 1;
        const auto kind = zero_ >= 1 ? Collective::ReduceScatter : Collective::AllReduce;
        std::vector<Op> pieces;
        pieces.reserve(static_cast<std::size_t>(buckets));
        for (int k = 0; k < buckets; ++k) {
            const int coll =
                c.tp_collectives_backward / buckets + (k < c.tp_collectives_backward % buckets ? 1 : 0);
            const int ep =
                c.ep_collectives_backward / buckets + (k < c.ep_collectives_backward % buckets ? 1 : 0);
            pieces.push_back(makeOp(chunk, c.backward_s / buckets, coll, c.cp_bytes_backward / buckets,
                                    c.cp_steps_backward / buckets, ep,
                                    c.offload_transfers_backward / buckets));
        }
        Op whole = chain(pieces);
        if (group > 1)
            for (const auto& piece : pieces)
                dataCollective(stage, kind, c.grad_bytes / buckets, piece.out, reduced);
        return whole;
    }

    // Combined 1F1B: Megatron-Core's --overlap-moe-expert-parallel-comm (resolveScenario allows it only with
    // expert parallelism, outside ZeRO-3, and where no last backward of a chunk, whose gradient buckets are
    // reduced as it goes, falls in the steady state).
    [[nodiscard]] bool combined() const { return w_.overlap.ep_comm; }

    Op& opAt(const PipelineSlot& s) {
        return (s.backward ? bwd_
                           : fwd_)[static_cast<std::size_t>(s.chunk)][static_cast<std::size_t>(s.micro)];
    }
    const Op& opAt(const PipelineSlot& s) const {
        return (s.backward ? bwd_
                           : fwd_)[static_cast<std::size_t>(s.chunk)][static_cast<std::size_t>(s.micro)];
    }

    // Where the step time went, on the pipeline device that finishes last (its first tensor rank).
    models::StepBreakdown breakdown(double stepStart, double stepTime) const {
        std::size_t critical = 0;
        for (std::size_t s = 0; s < stageEnd_.size(); ++s)
            if (graph_.task(stageEnd_[s]).end_s > graph_.task(stageEnd_[critical]).end_s + 1e-12)
                critical = s;
        // Computations and, as exposed communication, the rest of each op's span: tensor collectives,
        // context-parallel exchanges and ZeRO-3 gathers that the device waits for.
        double compute = 0.0, blocked = 0.0;
        for (std::size_t j = critical; j < fwd_.size(); j += static_cast<std::size_t>(pp_))
            for (const auto* ops : {&fwd_[j], &bwd_[j]})
                for (const auto& op : *ops) {
                    auto busyOf = [&](const std::vector<Id>& tasks) {
                        double busy = 0.0;
                        for (Id x : tasks)
                            busy += graph_.task(x).end_s - graph_.task(x).start_s;
                        return busy;
                    };
                    const double busy = busyOf(op.computes);
                    compute += busy;
                    if (!op.joined) // a joined backward's span is its forward's
                        blocked += std::max(0.0, graph_.task(op.out).end_s - graph_.task(op.in).end_s - busy -
                                                     busyOf(op.partner_computes));
                }
        const auto& opt = graph_.task(optimizer_[critical]);
        const double optimizer = opt.end_s - opt.start_s;
        compute += optimizer;
        const double stageEnd = graph_.task(stageEnd_[critical]).end_s;
        const double tail = stageEnd - graph_.task(lastBackwardOut_[critical]).end_s - optimizer;
        models::StepBreakdown b;
        b.compute_s = compute;
        b.exposed_communication_s =
            blocked + std::max(0.0, tail) + std::max(0.0, stepStart + stepTime - stageEnd);
        b.pipeline_bubble_s = std::max(0.0, stepTime - b.compute_s - b.exposed_communication_s);
        return b;
    }

    // One step per pipeline stage, from the representative device's task times: its computations first,
    // then the gathers it waits for, the collectives that hold its operations, pipeline transfers and
    // data-parallel collectives; idle time is bubble.
    models::StepTimeline timeline(double stepStart, double stepTime) const {
        enum Priority { Compute, GatherWait, OperationComm, Pipeline, Data };
        const std::int64_t perStage = tp_ * cp_ * dp_;
        models::StepTimeline out;
        out.step_time_s = stepTime;
        for (std::int64_t s = 0; s < pp_; ++s) {
            std::vector<models::TimelineSpan> spans;
            auto add = [&](models::ActivityKind kind, int priority, std::int64_t micro, std::int64_t chunk,
                           double start, double end) {
                spans.push_back(
                    {kind, priority, micro, vp_ > 1 ? chunk : -1, start - stepStart, end - stepStart});
            };
            for (std::int64_t chunk = s; chunk < chunks_; chunk += pp_) {
                const auto& c = cost(chunk);
                const double recomputeShare = c.backward_s > 0.0 ? c.recompute_s / c.backward_s : 0.0;
                for (std::int64_t m = 0; m < micro_; ++m) {
                    for (const bool backward : {false, true}) {
                        const Op& op =
                            (backward ? bwd_
                                      : fwd_)[static_cast<std::size_t>(chunk)][static_cast<std::size_t>(m)];
                        for (std::size_t k = 0; k < op.computes.size(); ++k) {
                            const auto& t = graph_.task(op.computes[k]);
                            if (!backward) {
                                add(models::ActivityKind::Forward, Compute, m, chunk, t.start_s, t.end_s);
                                continue;
                            }
                            // Recomputation runs before the backward it serves.
                            const double share =
                                op.recompute_shares.empty() ? recomputeShare : op.recompute_shares[k];
                            const double split = t.start_s + share * (t.end_s - t.start_s);
                            add(models::ActivityKind::Recompute, Compute, m, chunk, t.start_s, split);
                            add(models::ActivityKind::Backward, Compute, m, chunk, split, t.end_s);
                        }
                        for (const auto& [from, to] : op.waits)
                            add(models::ActivityKind::DataComm, GatherWait, m, chunk, graph_.task(from).end_s,
                                graph_.task(to).end_s);
                        if (!op.joined) // a joined backward's span is its forward's
                            add(models::ActivityKind::TensorComm, OperationComm, m, chunk,
                                graph_.task(op.in).end_s, graph_.task(op.out).end_s);
                    }
                }
            }
            const auto& opt = graph_.task(optimizer_[static_cast<std::size_t>(s)]);
            add(models::ActivityKind::Optimizer, Compute, -1, -1, opt.start_s, opt.end_s);
            for (const auto& p : pipeSpans_[static_cast<std::size_t>(s)])
                add(models::ActivityKind::PipelineComm, Pipeline, p.micro, p.chunk,
                    graph_.task(p.from).start_s, graph_.task(p.to).end_s);
            for (const auto& d : dataSpans_[static_cast<std::size_t>(s)])
                add(models::ActivityKind::DataComm, Data, -1, -1, graph_.task(d.from).end_s,
                    graph_.task(d.to).end_s);
            out.stages.push_back(models::partitionStage(s, perStage, spans, stepTime));
        }
        return out;
    }

    // The devices that computed, and how many devices each of them stands for.
    std::vector<std::int64_t> computingDevices() const {
        std::vector<std::int64_t> out;
        for (std::int64_t s = 0; s < pp_; ++s)
            for (std::int64_t c = 0; c < activeCp_; ++c)
                for (std::int64_t t = 0; t < activeTp_; ++t)
                    out.push_back(device(t, c, 0, s));
        return out;
    }
    [[nodiscard]] double foldFactor() const { return foldFactorOf(w_, platform_.spec(), fidelity_); }

private:
    // build's steps.

    // One device's ops in its schedule order (`order`), each after the one before it.
    void buildStageOps(const std::vector<PipelineSlot>& order, std::vector<std::vector<Id>>& reduced,
                       std::vector<Id>& gathers, std::vector<Id>& reduces) {
        for (std::size_t i = 0; i < order.size(); ++i) {
            const auto& [backward, chunk, micro, paired] = order[i];
            if (paired && !backward) { // with the backward after it (pipelineSchedule)
                const auto& pairedBackward = order[i + 1];
                auto [forwardOp, backwardOp] = makePair(chunk, pairedBackward.chunk);
                fwd_[static_cast<std::size_t>(chunk)][static_cast<std::size_t>(micro)] = forwardOp;
                bwd_[static_cast<std::size_t>(pairedBackward.chunk)]
                    [static_cast<std::size_t>(pairedBackward.micro)] = backwardOp;
                ++i;
                continue;
            }
            const auto& chunkCost = cost(chunk);
            Op op;
            if (zero_ >= 3) {
                op = zero3Op(chunk, backward, gathers, reduces);
            } else if (!backward) {
                op = makeOp(chunk, chunkCost.forward_s, chunkCost.tp_collectives_forward,
                            chunkCost.cp_bytes_forward, chunkCost.cp_steps_forward,
                            chunkCost.ep_collectives_forward, chunkCost.offload_transfers_forward);
            } else if (micro + 1 < micro_ || !w_.overlap.grad_reduce) {
                op = makeOp(chunk, chunkCost.backward_s, chunkCost.tp_collectives_backward,
                            chunkCost.cp_bytes_backward, chunkCost.cp_steps_backward,
                            chunkCost.ep_collectives_backward, chunkCost.offload_transfers_backward);
            } else {
                op = lastBackward(chunk, reduced[static_cast<std::size_t>(chunk)]);
            }
            (backward ? bwd_ : fwd_)[static_cast<std::size_t>(chunk)][static_cast<std::size_t>(micro)] = op;
        }
        for (std::size_t i = 1; i < order.size(); ++i) {
            Op& op = opAt(order[i]);
            op.previous = op.joined ? opAt(order[i - 1]).previous : opAt(order[i - 1]).out;
            if (!op.joined) // a joined backward shares its forward's `in`
                graph_.depend(op.previous, op.in);
        }
    }

    // Data dependencies between consecutive chunks.
    void connectChunks() {
        const auto microBatches = static_cast<std::size_t>(micro_);
        const auto chunks = static_cast<std::size_t>(chunks_);
        for (std::size_t chunkIndex = 0; chunkIndex < chunks; ++chunkIndex)
            for (std::size_t microIndex = 0; microIndex < microBatches; ++microIndex) {
                const auto chunk = static_cast<std::int64_t>(chunkIndex);
                const auto micro = static_cast<std::int64_t>(microIndex);
                // Combined 1F1B: a device posts the receives of a pair's inputs once the operation before
                // it is done (Megatron-Core's p2p between pairs, model_chunk_schedule_plan.py), so an input
                // crosses the network between the receiver's operations, not beside their all-to-alls.
                if (chunkIndex + 1 < chunks)
                    pipelineTransfer(fwd_[chunkIndex][microIndex].out, chunk, chunk + 1, micro,
                                     fwd_[chunkIndex + 1][microIndex].in,
                                     combined() ? fwd_[chunkIndex + 1][microIndex].previous : -1);
                if (chunkIndex > 0)
                    pipelineTransfer(bwd_[chunkIndex][microIndex].out, chunk, chunk - 1, micro,
                                     bwd_[chunkIndex - 1][microIndex].in,
                                     combined() ? bwd_[chunkIndex - 1][microIndex].previous : -1);
            }
    }

    // ZeRO-1/2 with the parameter gather overlapped: every chunk's gather issued as the step starts.
    void gatherParamsAtStepStart() {
        const Id stepStart = graph_.join();
        std::vector<std::vector<Id>> gathered(static_cast<std::size_t>(pp_));
        for (std::int64_t chunk = 0; chunk < chunks_; ++chunk) {
            auto& stream = gathered[static_cast<std::size_t>(chunk % pp_)];
            dataCollective(chunk % pp_, Collective::AllGather, cost(chunk).param_bytes, stepStart, stream);
            Op& first = fwd_[static_cast<std::size_t>(chunk)].front();
            graph_.depend(stream, first.out);
            // Once that forward's own collectives are done, the device waits for the gather (tensor
            // rank 0's, the representative's) until it ends: the closed form's split too.
            if (first.collectives >= 0)
                first.waits.push_back({first.collectives, stream.front()});
        }
    }

    // A device's optimizer step over its chunks: its time, and with the optimizer on a pool of CPUs over the
    // network, the gradients and weights that cross (their time is in `seconds`).
    struct OptimizerWork {
        double seconds = 0.0;
        double down_bytes = 0.0;
        double up_bytes = 0.0;
        double link_Bps = 0.0;
        void add(const models::StageCost& c) {
            seconds += c.optimizer_s;
            down_bytes += c.optimizer_down_bytes;
            up_bytes += c.optimizer_up_bytes;
            link_Bps = std::max(link_Bps, c.optimizer_link_Bps);
        }
        // The time left on the device when the transfers' bandwidth part is on the platform's links.
        [[nodiscard]] double withoutTransfers() const {
            return std::max(0.0, seconds - (down_bytes + up_bytes) / link_Bps);
        }
    };

    // One device's optimizer on the CPU pool: its gradients flow from its NIC to the pool after `synced`,
    // `update` runs, and its 16-bit weights flow back. With OffloadPathSpec::every_device the same
    // device of every other replica sends and receives the same (their update is `update`). Returns the
    // transfers back.
    std::vector<Id> optimizerTransfers(std::int64_t tensorRank, std::int64_t contextRank, std::int64_t stage,
                                       const OptimizerWork& work, Id synced, Id update) {
        const std::int64_t replicas = platform_.spec().optimizer.every_device ? dp_ : 1;
        std::vector<Id> back;
        for (std::int64_t r = 0; r < replicas; ++r) {
            sg4::Host* nic = platform_.nic(device(tensorRank, contextRank, r, stage));
            const Id down = graph_.transferHosts(nic, platform_.optimizerPool(), work.down_bytes);
            const Id up = graph_.transferHosts(platform_.optimizerPool(), nic, work.up_bytes);
            graph_.depend(synced, down);
            graph_.depend(down, update);
            graph_.depend(update, up);
            back.push_back(up);
        }
        return back;
    }

    // The end of device `stage`'s step after its last op (`last`): its gradients reduced (without overlap,
    // here), the optimizer, then (ZeRO-1/2 without overlap) the parameter gather.
    Id finishStage(std::int64_t stage, const PipelineSlot& last, std::vector<std::vector<Id>>& reduced,
                   const std::vector<Id>& reduces, bool gatherParams) {
        const auto stageIndex = static_cast<std::size_t>(stage);
        const Id synced = graph_.join();
        graph_.depend(opAt(last).out, synced);
        lastBackwardOut_[stageIndex] = opAt(last).out;
        if (!w_.overlap.grad_reduce && zero_ < 3 && dp_ * cp_ > 1) {
            // No overlap: once the device's last backward is done, one reduction per chunk, in turn.
            std::vector<Id> stream;
            for (std::int64_t chunk = stage; chunk < chunks_; chunk += pp_) {
                dataCollective(stage, zero_ >= 1 ? Collective::ReduceScatter : Collective::AllReduce,
                               cost(chunk).grad_bytes, lastBackwardOut_[stageIndex], stream);
                reduced[static_cast<std::size_t>(chunk)] = stream;
            }
        }
        OptimizerWork work;
        for (std::int64_t chunk = stage; chunk < chunks_; chunk += pp_) {
            graph_.depend(reduced[static_cast<std::size_t>(chunk)], synced);
            work.add(cost(chunk));
        }
        graph_.depend(reduces, synced);
        const Id optimized = graph_.join();
        const bool flows = platform_.optimizerPool() && work.link_Bps > 0.0;
        const double optimizerS = flows ? work.withoutTransfers() : work.seconds;
        for (std::int64_t contextRank = 0; contextRank < activeCp_; ++contextRank)
            for (std::int64_t tensorRank = 0; tensorRank < activeTp_; ++tensorRank) {
                const std::int64_t d = device(tensorRank, contextRank, 0, stage);
                const Id update = graph_.compute(d, optimizerS);
                Id finished = update;
                if (flows) { // gradients to the CPU pool before the update, 16-bit weights back after it
                    finished = graph_.join();
                    graph_.depend(optimizerTransfers(tensorRank, contextRank, stage, work, synced, update),
                                  finished);
                } else {
                    graph_.depend(synced, update);
                }
                graph_.depend(finished, optimized);
                if (tensorRank == 0 && contextRank == 0)
                    optimizer_[stageIndex] = update;
            }
        Id end = optimized;
        if (gatherParams && !w_.overlap.param_gather) {
            std::vector<Id> gathered;
            for (std::int64_t chunk = stage; chunk < chunks_; chunk += pp_)
                dataCollective(stage, Collective::AllGather, cost(chunk).param_bytes, optimized, gathered);
            end = graph_.join();
            graph_.depend(gathered, end);
        }
        return end;
    }

    const models::Workload& w_;
    const Platform& platform_;
    TaskGraph& graph_;
    Fidelity fidelity_;
    std::int64_t tp_, pp_, dp_, vp_, cp_, ep_, chunks_, micro_;
    int zero_;
    bool folded_;
    std::int64_t activeTp_, activeCp_; // ranks simulated per tensor / context group
    Edges dpEdges_, groupEdges_;
    models::AllToAllScale dispatchScale_; // the expert dispatcher's, on every expert group
    std::vector<models::StageCost> costs_;
    std::vector<std::vector<Op>> fwd_, bwd_; // [chunk][micro-batch]
    std::vector<Id> stageEnd_, lastBackwardOut_, optimizer_;
    std::vector<std::vector<Tagged>> pipeSpans_, dataSpans_; // per stage, the representative's transfers
};

// What one task of a graph costs: about 190 bytes of memory at packet fidelity (default.json at 64 and 128
// H100, /usr/bin/time's peak over the activities, 2026-12-05), 140 at flow (ZeRO-3 on 16,384 H100 behind
// 2:1 leaves, 2026-12-06); CPU, 3.9 us a task at packet fidelity (the 1,024-device packet case of
// docs/performance.md: 19 million activities in 73.6 s) and 20 us at flow, where many flows share links
// (that ZeRO-3 case: 1.01 million activities in 20.5 s).
constexpr double kBytesPerTask = 200.0;
double secondsPerTask(Fidelity fidelity) {
    return fidelity == Fidelity::Packet ? 4e-6 : 2e-5;
}

// The memory a simulation may take: CHOREO_MEMORY_LIMIT_GB, else 80 % of this machine's.
double memoryLimitBytes() {
    if (const char* text = std::getenv("CHOREO_MEMORY_LIMIT_GB")) {
        char* end = nullptr;
        const double gb = std::strtod(text, &end);
        if (end == text || *end != '\0' || !(gb > 0.0) || !std::isfinite(gb * 1e9))
            throw SimulationError(
                std::string("CHOREO_MEMORY_LIMIT_GB: expected a positive number of GB, got \"") + text +
                "\"");
        return gb * 1e9;
    }
    const long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && pageSize > 0 ? 0.8 * static_cast<double>(pages) * static_cast<double>(pageSize) : 8e9;
}

// The most tasks a graph may hold under the memory limit (`limitBytes`, memoryLimitBytes). A task graph
// indexes its tasks with TaskGraph::Id: never more than it can count, whatever the memory.
std::int64_t taskLimit(double limitBytes) {
    return static_cast<std::int64_t>(
        std::min(limitBytes / kBytesPerTask, static_cast<double>(std::numeric_limits<TaskGraph::Id>::max())));
}

// Why a step past `limit` tasks (the memory limit `limitBytes`) is refused, with the estimate and the way
// out.
SimulationError tooLarge(const models::ResolvedScenario& rs, Fidelity fidelity, std::int64_t limit,
                         double limitBytes) {
    const bool packet = fidelity == Fidelity::Packet;
    char text[480];
    std::snprintf(text, sizeof text,
                  "refused before starting: %s fidelity on %lld devices would simulate more than %lld "
                  "%s, over %.3g GB of memory (the limit: %.3g GB, CHOREO_MEMORY_LIMIT_GB or "
                  "80 %% of this machine's) and over %.0f minutes; %s",
                  toString(fidelity).c_str(), static_cast<long long>(rs.pool().count),
                  static_cast<long long>(limit), packet ? "messages and tasks" : "flows and tasks",
                  static_cast<double>(limit) * kBytesPerTask / 1e9, limitBytes / 1e9,
                  static_cast<double>(limit) * secondsPerTask(fidelity) / 60.0,
                  packet ? "flow fidelity simulates the same step with identical replicas folded"
                         : "the analytical level gives the same step in closed form");
    return SimulationError(text);
}

// Whether the step has at most `limit` tasks, counted without keeping them.
bool stepFits(const models::ResolvedScenario& rs, const Platform& platform, Fidelity fidelity,
              std::int64_t limit) {
    try {
        TaskGraph counting = TaskGraph::counting(platform, limit);
        StepBuilder(rs, platform, counting, fidelity).build();
        return true;
    } catch (const TaskGraph::TooManyTasks&) {
        return false;
    }
}

// A step's graph and its builder, which refers to the graph.
struct BuiltStep {
    std::unique_ptr<TaskGraph> graph;
    std::unique_ptr<StepBuilder> builder;
};

// Packet fidelity simulates every message: it counts its step before building it, and refuses, with the
// estimate and the limit, a step that would not fit in memory. Flow fidelity can grow large too where it
// cannot fold (every tensor rank behind oversubscribed leaves, many layers' ZeRO-3 rings, many
// micro-batches), but its usual step is small: it builds at once, holding at most a gigabyte of tasks (or
// the memory limit's worth, if less), and only a step past that is counted in full and refused, or built
// again if it fits. No step takes more than a gigabyte before it is known to fit.
constexpr std::int64_t kTasksBeforeCounting = 5'000'000;

BuiltStep buildStep(const models::ResolvedScenario& rs, const Platform& platform, Fidelity fidelity) {
    const double limitBytes = memoryLimitBytes();
    const std::int64_t limit = taskLimit(limitBytes);
    auto build = [&](std::int64_t cap) {
        BuiltStep step;
        step.graph = std::make_unique<TaskGraph>(platform);
        step.graph->limitTasks(cap);
        step.builder = std::make_unique<StepBuilder>(rs, platform, *step.graph, fidelity);
        step.builder->build();
        return step;
    };
    if (fidelity == Fidelity::Packet) {
        if (!stepFits(rs, platform, fidelity, limit))
            throw tooLarge(rs, fidelity, limit, limitBytes);
        return build(-1);
    }
    const std::int64_t cap = std::min(kTasksBeforeCounting, limit);
    try {
        return build(cap);
    } catch (const TaskGraph::TooManyTasks&) {
        // Past a cap that is the limit itself, the step cannot fit: no need to count it.
        if (cap == limit || !stepFits(rs, platform, fidelity, limit))
            throw tooLarge(rs, fidelity, limit, limitBytes);
        return build(-1);
    }
}

} // namespace

models::StepMeasurement simulateStep(const models::ResolvedScenario& rs, const SimulationOptions& options) {
    // Weight streaming: MemoryX and SwarmX's links at flow fidelity, and at packet fidelity too (there is
    // no packet model of them; the result says flow).
    if (options.fidelity == Fidelity::Analytical || rs.device().weight_streaming) {
        auto m =
            options.fidelity == Fidelity::Analytical ? estimateStep(rs) : simulateWeightStreamingStep(rs);
        if (options.progress)
            options.progress(1.0, "done");
        return m;
    }
    auto report = [&](double f, const char* what) {
        if (options.progress)
            options.progress(f, what);
    };
    report(0.0, "building platform");
    auto engine = makeEngine();
    PlatformSpec spec = PlatformSpec::fromScenario(rs);
    const double fold = foldFactorOf(rs.workload(), spec, options.fidelity);
    spec.data = DataPathSpec::fromScenario(rs, spec, fold);
    spec.experts = OffloadPathSpec::of(rs, spec, fold, models::OffloadTarget::Experts);
    spec.optimizer = OffloadPathSpec::of(rs, spec, fold, models::OffloadTarget::Optimizer);
    Platform platform(*engine, spec);

    report(0.05, "mapping workload");
    const BuiltStep built = buildStep(rs, platform, options.fidelity);
    TaskGraph& graph = *built.graph;
    const StepBuilder& builder = *built.builder;
    // The next batch's data stage runs beside the step, on the same links.
    const std::size_t stepTasks = graph.size();
    std::optional<DataFlows> data;
    if (spec.data.present)
        data.emplace(*rs.data, rs.workload().global_batch, platform, graph, builder.computingDevices(),
                     builder.foldFactor());

    report(0.1, "simulating");
    const double start = sg4::Engine::get_clock();
    graph.run(*engine, [&](double f) { report(0.1 + 0.85 * f, "simulating"); });
    const double stepTime = graph.endOfFirst(stepTasks) - start;
    if (!(stepTime > 0.0) || !std::isfinite(stepTime))
        throw SimulationError("the simulated step took no time; the scenario has no work");

    sg_host_energy_update_all();
    double simulatedEnergy = 0.0;
    for (std::int64_t d : builder.computingDevices())
        simulatedEnergy += sg_host_get_consumed_energy(platform.device(d));
    // A data stage slower than the step kept the clock running past it with the devices idle: that wait is
    // models::finishResult's to count, once.
    const double pastStep = sg4::Engine::get_clock() - (start + stepTime);
    simulatedEnergy -=
        static_cast<double>(builder.computingDevices().size()) * spec.idle_W * std::max(0.0, pastStep);

    models::StepMeasurement m;
    m.step_time_s = stepTime;
    // Every folded device did what its representative did (the other pools: models::finishResult).
    m.it_energy_per_step_J = simulatedEnergy * builder.foldFactor();
    m.breakdown = builder.breakdown(start, stepTime);
    m.compute_split =
        models::computeSplit(rs.workload(), builder.costs(), spec.experts.present, spec.optimizer.present);
    m.expert_transfers_simulated = spec.experts.present;
    m.optimizer_transfers_simulated = spec.optimizer.present;
    m.timeline = builder.timeline(start, stepTime);
    m.fidelity = toString(options.fidelity);
    m.calibration = kSpecSheetCalibration;
    m.simulated_activities = graph.activities();
    if (data)
        m.data_stage = data->measure(graph, start);
    report(1.0, "done");
    return m;
}

models::RunResult runScenario(const models::ResolvedScenario& rs, const SimulationOptions& options) {
    // Serving runs first: its simulations are children, forked before this process holds a SimGrid engine.
    std::optional<models::ServingResult> serving;
    if (rs.serving)
        serving = serveScenario(rs, options, defaultJobs());
    if (!rs.trains()) {
        auto result = models::servingRunResult(rs, *serving);
        if (result.calibration.empty())
            result.calibration = kSpecSheetCalibration;
        return result;
    }
    auto result = models::finishResult(rs, simulateStep(rs, options));
    result.serving = std::move(serving);
    return result;
}

} // namespace choreo::sim
