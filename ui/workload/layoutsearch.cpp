#include "ui/workload/layoutsearch.h"

#include "models/resolved.h"
#include "models/stepcost.h"
#include "models/sweep.h"

#include <algorithm>

using namespace Qt::StringLiterals;

namespace choreo::ui {

namespace {

// Seconds of a ring all-reduce of `bytes` over `ranks` devices at `Bps` per device (2(n-1)/n of the data).
double ringAllReduce(double bytes, std::int64_t ranks, double Bps) {
    if (ranks <= 1 || Bps <= 0)
        return 0;
    const auto n = static_cast<double>(ranks);
    return 2.0 * (n - 1.0) / n * bytes / Bps;
}

double estimateStep(const models::ResolvedScenario& rs) {
    const auto& w = rs.workload();
    const auto& p = w.parallel;
    const double micro = static_cast<double>(std::max<std::int64_t>(1, w.microBatchesPerStep()));
    // The dp ring leaves the node once the replicas do; the tp group never does (tp <= devices per node).
    const double dpBps = rs.pool().devices_per_node >= p.devices() ? rs.scale_up_Bps : rs.nic_Bps;
    const double ppBps = p.tp * p.cp >= rs.pool().devices_per_node ? rs.nic_Bps : rs.scale_up_Bps;
    double busiest = 0;   // one micro-batch through every chunk of the busiest pipeline device
    double chunkTime = 0; // one micro-batch through one chunk (the bubble's unit)
    double gradBytes = 0; // per device, per step
    double optimizer = 0;
    double zero3Bytes = 0; // ZeRO-3 gathers and reduce-scatters per micro-batch
    for (std::int64_t stage = 0; stage < p.pp; ++stage) {
        double stageTime = 0;
        double stageGrad = 0;
        double stageOptimizer = 0;
        double stageZero3 = 0;
        for (std::int64_t chunk = stage; chunk < p.pp * p.vp; chunk += p.pp) {
            const models::StageCost c = models::stageCost(rs, chunk);
            const double tp = ringAllReduce(c.tp_bytes, p.tp, rs.scale_up_Bps) *
                              (c.tp_collectives_forward + c.tp_collectives_backward);
            const double send = p.pp > 1 && ppBps > 0 ? 2.0 * c.pp_bytes / ppBps : 0.0;
            stageTime += c.forward_s + c.backward_s + tp + send;
            chunkTime = std::max(chunkTime, c.forward_s + c.backward_s + tp + send);
            stageGrad += c.grad_bytes + c.param_bytes / 2.0;
            stageOptimizer += c.optimizer_s;
            stageZero3 += (2.0 * c.zero3_layer_param_bytes + c.zero3_layer_grad_bytes) * c.layers;
        }
        busiest = std::max(busiest, stageTime);
        gradBytes = std::max(gradBytes, stageGrad);
        optimizer = std::max(optimizer, stageOptimizer);
        zero3Bytes = std::max(zero3Bytes, stageZero3);
    }
    const double group = static_cast<double>(p.dataParallelGroup());
    const double zero3 = dpBps > 0 && group > 1 ? micro * zero3Bytes * (group - 1.0) / group / dpBps : 0.0;
    const double bubble = static_cast<double>(p.pp - 1) * chunkTime;
    return micro * busiest + bubble + ringAllReduce(gradBytes, p.dataParallelGroup(), dpBps) + optimizer +
           zero3;
}

} // namespace

QString LayoutCandidate::describe() const {
    return u"tp %1 · pp %2 · dp %3 · cp %4 · vp %5 · ZeRO %6 · mb %7"_s.arg(parallel.tp)
        .arg(parallel.pp)
        .arg(parallel.dp)
        .arg(parallel.cp)
        .arg(parallel.vp)
        .arg(parallel.zero)
        .arg(micro_batch);
}

models::Scenario withLayout(const models::Scenario& base, const LayoutCandidate& candidate) {
    models::Scenario s = base;
    s.workload.parallel = candidate.parallel;
    s.workload.micro_batch = candidate.micro_batch;
    return s;
}

std::vector<LayoutCandidate> enumerateLayouts(const models::Scenario& base, const models::Catalog& catalog) {
    std::vector<LayoutCandidate> out;
    const models::Pool* pool = base.trainingPool();
    const auto& m = base.workload.model;
    if (!pool || pool->count <= 0 || pool->devices_per_node <= 0 || m.layers <= 0 || m.heads <= 0 ||
        base.workload.global_batch <= 0)
        return out;
    const std::int64_t n = pool->count;
    // Expert tensor parallelism below the base layout's tp (folding) carries over to every candidate;
    // set equal to tp (or unset) it follows each candidate's tp.
    const auto& baseParallel = base.workload.parallel;
    const std::int64_t foldedEtp =
        baseParallel.etp > 0 && baseParallel.etp < baseParallel.tp ? baseParallel.etp : 0;
    for (const std::int64_t tp : models::divisors(pool->devices_per_node)) {
        if (n % tp != 0 || m.heads % tp != 0)
            continue;
        for (const std::int64_t cp : models::divisors(n / tp)) {
            if (cp > 8)
                break;
            for (const std::int64_t pp : models::divisors(n / (tp * cp))) {
                if (pp > m.layers)
                    break;
                const std::int64_t dp = n / (tp * cp * pp);
                for (const std::int64_t vp : {1, 2, 4}) {
                    if (vp > 1 && (pp == 1 || pp * vp > m.layers))
                        continue;
                    for (const std::int64_t micro : {1, 2, 4}) {
                        if (base.workload.global_batch % (dp * micro) != 0)
                            continue;
                        bool fitsWithLessSharding = false;
                        for (int zero = 0; zero <= 3; ++zero) {
                            if (zero > 0 && dp * cp == 1)
                                break; // nothing to shard over
                            // ZeRO-1 and -2 cost no extra communication over less sharding: offer only
                            // the least that fits. ZeRO-3 gathers parameters every layer: always a choice.
                            if (zero <= 2 && fitsWithLessSharding)
                                continue;
                            LayoutCandidate c;
                            c.parallel = models::ParallelLayout{.tp = tp,
                                                                .pp = pp,
                                                                .dp = dp,
                                                                .vp = vp,
                                                                .cp = cp,
                                                                .sequence_parallel = tp > 1,
                                                                .ep = base.workload.parallel.ep,
                                                                .etp = foldedEtp,
                                                                .zero = zero};
                            c.micro_batch = micro;
                            models::Diagnostics errors;
                            const auto rs = models::resolveScenario(withLayout(base, c), catalog, errors);
                            if (!rs || !errors.empty())
                                continue;
                            fitsWithLessSharding = zero <= 2;
                            c.memory = rs->memory;
                            c.estimate_step_s = estimateStep(*rs);
                            out.push_back(c);
                        }
                    }
                }
            }
        }
    }
    std::stable_sort(out.begin(), out.end(), [](const LayoutCandidate& a, const LayoutCandidate& b) {
        if (a.estimate_step_s != b.estimate_step_s)
            return a.estimate_step_s < b.estimate_step_s;
        return a.memory.total() < b.memory.total(); // the same speed with more headroom first
    });
    return out;
}

} // namespace choreo::ui
