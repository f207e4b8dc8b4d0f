#include "sim/simulator.h"

#include "models/stepcost.h"
#include "sim/collectives.h"
#include "sim/engine.h"
#include "sim/platform.h"
#include "sim/taskgraph.h"

#include <simgrid/plugins/energy.h>

#include <algorithm>
#include <cmath>

namespace choreo::sim {

std::string toString(Fidelity fidelity) {
    return fidelity == Fidelity::Flow ? "flow" : "packet";
}

namespace {

using Id = TaskGraph::Id;

// Megatron's default gradient bucket: max(40M, 1M * dp) parameters.
constexpr double kBucketParams = 40e6;
constexpr int kMaxBuckets = 8;

// One pipeline operation (forward or backward of a micro-batch on a stage) on its tensor group.
struct Op {
    Id in = -1;               // may start: previous op of the stage done and input arrived
    Id out = -1;              // done, including its tensor-parallel collectives
    std::vector<Id> computes; // one per tensor rank
};

// Builds the task graph of one 1F1B step. Data-parallel replicas other than replica 0 are folded: only
// replica 0 computes, but every replica's gradient traffic is simulated, so shared links see it all.
// At flow fidelity tensor-parallel ranks are folded too: rank 0 computes and sends for its group. That
// is exact on this platform, because each device's scale-up and NIC links are its own, so the other
// ranks' identical transfers share no link with rank 0's (data-parallel traffic is still simulated for
// every rank, as it crosses the shared leaf uplinks).
class StepBuilder {
public:
    StepBuilder(const models::ResolvedScenario& rs, const Platform& platform, TaskGraph& graph,
                Fidelity fidelity)
        : rs_(rs)
        , w_(rs.workload())
        , platform_(platform)
        , graph_(graph)
        , fidelity_(fidelity)
        , tp_(w_.parallel.tp)
        , pp_(w_.parallel.pp)
        , dp_(w_.parallel.dp)
        , micro_(w_.microBatchesPerStep())
        , active_(fidelity == Fidelity::Flow ? 1 : tp_) {
        for (std::int64_t s = 0; s < pp_; ++s)
            costs_.push_back(models::stageCost(rs, s));
    }

    std::int64_t device(std::int64_t tpRank, std::int64_t dpRank, std::int64_t stage) const {
        return tpRank + tp_ * (dpRank + dp_ * stage);
    }

    std::vector<std::int64_t> tensorGroup(std::int64_t stage) const {
        std::vector<std::int64_t> g;
        for (std::int64_t r = 0; r < tp_; ++r)
            g.push_back(device(r, 0, stage));
        return g;
    }

    Op makeOp(std::int64_t stage, double computeS, int collectives) {
        Op op;
        op.in = graph_.join();
        for (std::int64_t r = 0; r < active_; ++r) {
            const Id c = graph_.compute(device(r, 0, stage), computeS);
            graph_.depend(op.in, c);
            op.computes.push_back(c);
        }
        const Id computed = graph_.join();
        graph_.depend(op.computes, computed);
        op.out = ringCollective(graph_, platform_, fidelity_, Collective::AllReduce, tensorGroup(stage),
                                costs_[static_cast<std::size_t>(stage)].tp_bytes, collectives, computed,
                                active_ == 1);
        return op;
    }

    // Sends each tensor rank's slice of a micro-batch from one stage to the neighbouring one.
    void pipelineTransfer(Id after, std::int64_t from, std::int64_t to, Id before) {
        const double bytes = costs_[static_cast<std::size_t>(from)].pp_bytes;
        const Id arrived = graph_.join();
        for (std::int64_t r = 0; r < active_; ++r) {
            const Id t = graph_.transfer(device(r, 0, from), device(r, 0, to), bytes);
            graph_.depend(after, t);
            graph_.depend(t, arrived);
        }
        graph_.depend(arrived, before);
    }

    void build() {
        const auto M = static_cast<std::size_t>(micro_);
        const auto P = static_cast<std::size_t>(pp_);
        fwd_.assign(P, std::vector<Op>(M));
        bwd_.assign(P, std::vector<Op>(M));
        stageEnd_.assign(P, -1);
        lastBackwardOut_.assign(P, -1);
        optimizerCompute_.assign(P, -1);

        for (std::size_t s = 0; s < P; ++s) {
            const auto& c = costs_[s];
            const auto stage = static_cast<std::int64_t>(s);
            for (std::size_t m = 0; m < M; ++m)
                fwd_[s][m] = makeOp(stage, c.forward_s, c.tp_collectives_forward);
            // The last micro-batch's backward is cut into gradient buckets so that their data-parallel
            // reduction starts while the rest of the backward pass still computes.
            for (std::size_t m = 0; m + 1 < M; ++m)
                bwd_[s][m] = makeOp(stage, c.backward_s, c.tp_collectives_backward);
            buildLastBackward(stage);
        }
        // 1F1B order on each stage, and the data dependencies between stages.
        for (std::size_t s = 0; s < P; ++s) {
            const std::size_t warmup = std::min(P - s - 1, M);
            std::vector<const Op*> order;
            for (std::size_t m = 0; m < warmup; ++m)
                order.push_back(&fwd_[s][m]);
            for (std::size_t i = 0; i + warmup < M; ++i) {
                order.push_back(&fwd_[s][warmup + i]);
                order.push_back(&bwd_[s][i]);
            }
            for (std::size_t m = M - warmup; m < M; ++m)
                order.push_back(&bwd_[s][m]);
            for (std::size_t i = 1; i < order.size(); ++i)
                graph_.depend(order[i - 1]->out, order[i]->in);
            for (std::size_t m = 0; m < M; ++m) {
                if (s + 1 < P)
                    pipelineTransfer(fwd_[s][m].out, static_cast<std::int64_t>(s),
                                     static_cast<std::int64_t>(s + 1), fwd_[s + 1][m].in);
                if (s > 0)
                    pipelineTransfer(bwd_[s][m].out, static_cast<std::int64_t>(s),
                                     static_cast<std::int64_t>(s - 1), bwd_[s - 1][m].in);
            }
        }
        end_ = graph_.join();
        for (std::size_t s = 0; s < P; ++s)
            graph_.depend(stageEnd_[s], end_);
    }

    void buildLastBackward(std::int64_t stage) {
        const auto s = static_cast<std::size_t>(stage);
        const auto& c = costs_[s];
        const double params = c.grad_bytes / models::gradientReduceBytes(w_.precision);
        const double bucketParams = std::max(kBucketParams, 1e6 * static_cast<double>(dp_));
        const int buckets =
            dp_ > 1 ? std::clamp(static_cast<int>(std::ceil(params / bucketParams)), 1, kMaxBuckets) : 1;
        const bool zero = w_.parallel.zero >= 1;
        const auto kind = zero ? Collective::ReduceScatter : Collective::AllReduce;

        Op whole;
        std::vector<Id> reduced;
        Id previous = -1;
        for (int k = 0; k < buckets; ++k) {
            // Spread the tensor-parallel collectives over the pieces: the first ones take the remainder.
            const int coll =
                c.tp_collectives_backward / buckets + (k < c.tp_collectives_backward % buckets ? 1 : 0);
            Op piece = makeOp(stage, c.backward_s / buckets, coll);
            if (previous >= 0)
                graph_.depend(previous, piece.in);
            else
                whole.in = piece.in;
            whole.computes.insert(whole.computes.end(), piece.computes.begin(), piece.computes.end());
            previous = piece.out;
            // Buckets of one communicator run one after another, as collectives on one NCCL stream do.
            reduced.resize(static_cast<std::size_t>(tp_), -1);
            for (std::int64_t r = 0; r < tp_; ++r) {
                std::vector<std::int64_t> ring;
                for (std::int64_t d = 0; d < dp_; ++d)
                    ring.push_back(device(r, d, stage));
                Id ready = piece.out;
                if (auto& before = reduced[static_cast<std::size_t>(r)]; before >= 0) {
                    ready = graph_.join();
                    graph_.depend(piece.out, ready);
                    graph_.depend(before, ready);
                }
                reduced[static_cast<std::size_t>(r)] = ringCollective(graph_, platform_, fidelity_, kind,
                                                                      ring, c.grad_bytes / buckets, 1, ready);
            }
        }
        whole.out = previous;
        bwd_[s][static_cast<std::size_t>(micro_ - 1)] = whole;
        lastBackwardOut_[s] = whole.out;

        // Optimizer once every gradient is reduced; with ZeRO-1 the updated shards are all-gathered.
        const Id synced = graph_.join();
        graph_.depend(reduced, synced);
        graph_.depend(whole.out, synced);
        const Id optimized = graph_.join();
        for (std::int64_t r = 0; r < active_; ++r) {
            const Id opt = graph_.compute(device(r, 0, stage), c.optimizer_s);
            graph_.depend(synced, opt);
            graph_.depend(opt, optimized);
            if (r == 0)
                optimizerCompute_[s] = opt;
        }
        Id end = optimized;
        if (zero && dp_ > 1) {
            end = graph_.join();
            for (std::int64_t r = 0; r < tp_; ++r) {
                std::vector<std::int64_t> ring;
                for (std::int64_t d = 0; d < dp_; ++d)
                    ring.push_back(device(r, d, stage));
                graph_.depend(ringCollective(graph_, platform_, fidelity_, Collective::AllGather, ring,
                                             c.param_bytes, 1, optimized),
                              end);
            }
        }
        stageEnd_[s] = end;
    }

    // Where the step time went, on the stage that finishes last (its first tensor rank).
    models::StepBreakdown breakdown(double stepStart, double stepTime) const {
        std::size_t critical = 0;
        for (std::size_t s = 0; s < stageEnd_.size(); ++s)
            if (graph_.task(stageEnd_[s]).end_s > graph_.task(stageEnd_[critical]).end_s + 1e-12)
                critical = s;
        // Tensor rank 0's computes (every tp-th entry, pieces of a split op included) and, as exposed
        // communication, the rest of each op's span: its tensor-parallel collectives block the device.
        double compute = 0.0, tpComm = 0.0;
        for (const auto* ops : {&fwd_[critical], &bwd_[critical]})
            for (const auto& op : *ops) {
                double busy = 0.0;
                for (std::size_t i = 0; i < op.computes.size(); i += static_cast<std::size_t>(active_))
                    busy += graph_.task(op.computes[i]).end_s - graph_.task(op.computes[i]).start_s;
                compute += busy;
                tpComm += std::max(0.0, graph_.task(op.out).end_s - graph_.task(op.in).end_s - busy);
            }
        const auto& opt = graph_.task(optimizerCompute_[critical]);
        const double optimizer = opt.end_s - opt.start_s;
        compute += optimizer;
        const double stageEnd = graph_.task(stageEnd_[critical]).end_s;
        const double tail = stageEnd - graph_.task(lastBackwardOut_[critical]).end_s - optimizer;
        models::StepBreakdown b;
        b.compute_s = compute;
        b.exposed_communication_s =
            tpComm + std::max(0.0, tail) + std::max(0.0, stepStart + stepTime - stageEnd);
        b.pipeline_bubble_s = std::max(0.0, stepTime - b.compute_s - b.exposed_communication_s);
        return b;
    }

    // The devices that computed, and how many devices each of them stands for.
    std::vector<std::int64_t> computingDevices() const {
        std::vector<std::int64_t> out;
        for (std::int64_t s = 0; s < pp_; ++s)
            for (std::int64_t r = 0; r < active_; ++r)
                out.push_back(device(r, 0, s));
        return out;
    }
    // active_ divides tp_: 1 or tp_.
    [[nodiscard]] double foldFactor() const {
        const std::int64_t tensorFold = tp_ / active_;
        return static_cast<double>(dp_ * tensorFold);
    }

private:
    const models::ResolvedScenario& rs_;
    const models::Workload& w_;
    const Platform& platform_;
    TaskGraph& graph_;
    Fidelity fidelity_;
    std::int64_t tp_, pp_, dp_, micro_;
    std::int64_t active_; // tensor ranks simulated per group
    std::vector<models::StageCost> costs_;
    std::vector<std::vector<Op>> fwd_, bwd_;
    std::vector<Id> stageEnd_, lastBackwardOut_, optimizerCompute_;
    Id end_ = -1;
};

} // namespace

models::StepMeasurement simulateStep(const models::ResolvedScenario& rs, const SimulationOptions& options) {
    auto report = [&](double f, const char* what) {
        if (options.progress)
            options.progress(f, what);
    };
    report(0.0, "building platform");
    auto engine = makeEngine();
    const PlatformSpec spec = PlatformSpec::fromScenario(rs);
    Platform platform(*engine, spec);

    report(0.05, "mapping workload");
    TaskGraph graph(platform);
    StepBuilder builder(rs, platform, graph, options.fidelity);
    builder.build();

    report(0.1, "simulating");
    const double start = sg4::Engine::get_clock();
    const double stepTime = graph.run(*engine, [&](double f) { report(0.1 + 0.85 * f, "simulating"); });
    if (!(stepTime > 0.0) || !std::isfinite(stepTime))
        throw SimulationError("the simulated step took no time; the scenario has no work");

    sg_host_energy_update_all();
    double simulatedEnergy = 0.0;
    for (std::int64_t d : builder.computingDevices())
        simulatedEnergy += sg_host_get_consumed_energy(platform.device(d));

    models::StepMeasurement m;
    m.step_time_s = stepTime;
    // Every folded device did what its representative did; pools that do not train idle.
    m.it_energy_per_step_J = simulatedEnergy * builder.foldFactor();
    for (std::size_t i = 0; i < rs.pools.size(); ++i)
        if (i != rs.training_pool)
            m.it_energy_per_step_J +=
                rs.pools[i].device->idle_W.value * static_cast<double>(rs.pools[i].pool.count) * stepTime;
    m.breakdown = builder.breakdown(start, stepTime);
    m.fidelity = toString(options.fidelity);
    m.calibration = kSpecSheetCalibration;
    m.simulated_activities = graph.activities();
    report(1.0, "done");
    return m;
}

models::RunResult runScenario(const models::ResolvedScenario& rs, const SimulationOptions& options) {
    return models::finishResult(rs, simulateStep(rs, options));
}

} // namespace choreo::sim
