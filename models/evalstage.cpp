#include "models/evalstage.h"

#include "models/jsonreader.h"
#include "models/resolved.h"
#include "models/transformer.h"

#include <algorithm>

namespace choreo::models {

namespace {

std::string evalPath(const EvalStage& stage) {
    return "workload.stages[" + std::to_string(stage.stage_index) + "]";
}

double nicBps(const ResolvedPool& pool, double lineRateBps) {
    return static_cast<double>(pool.pool.count) * lineRateBps * pool.device->efficiency.nicFraction();
}

// Its own pool: an accelerator pool that does not train, holding the 16-bit weights.
bool placeOnOwnPool(const Scenario& s, const std::vector<ResolvedPool>& pools, std::size_t trainingPool,
                    ResolvedEval& out, Diagnostics& errors) {
    const std::string path = evalPath(out.stage) + ".pool";
    out.pool = findPoolNamed(pools, *out.stage.pool, path, errors);
    if (!out.pool)
        return false;
    const ResolvedPool& rp = pools[*out.pool];
    if (*out.pool == trainingPool) { // the same as naming none
        out.pool.reset();
        return true;
    }
    if (rp.device->kind == DeviceKind::Cpu || !rp.device->peakFlops(s.workload.precision)) {
        errors.push_back({path, "\"" + rp.pool.name + "\" holds " + rp.device->id + ", which has no " +
                                    toString(s.workload.precision) +
                                    " rate in the catalog; evaluation runs "
                                    "on accelerators"});
        return false;
    }
    out.device = rp.device;
    out.devices = static_cast<double>(rp.pool.count);
    const double perDeviceGB = out.weights_bytes / out.devices / 1e9;
    if (perDeviceGB > rp.device->memory_GB.value) {
        errors.push_back({path, "the weights need " + formatNumber(perDeviceGB) + " GB on each " +
                                    rp.device->id + ", which has " +
                                    formatNumber(rp.device->memory_GB.value) + " GB"});
        return false;
    }
    const ResolvedPool& training = pools[trainingPool];
    out.weights_copy_Bps = std::min(nicBps(training, linkRates(s.cluster.network, *training.device).nic_Bps),
                                    nicBps(rp, rp.device->nic_Gbps.value * 1e9 / 8.0));
    return true;
}

} // namespace

EvalTimes evalTimes(const ResolvedEval& eval, const Workload& w) {
    EvalTimes t;
    const double forwardFlops =
        stepFlops(w).forward * eval.samples / static_cast<double>(std::max<std::int64_t>(1, w.global_batch));
    const double rate = eval.devices * eval.device->peakFlops(w.precision).value_or(0.0) *
                        eval.device->efficiency.gemmAt(w.precision).value;
    t.forward_s = rate > 0.0 ? forwardFlops / rate : 0.0;
    const double every = static_cast<double>(eval.stage.every_steps);
    if (!eval.pool) {
        t.per_step_s = t.forward_s / every;
        return t;
    }
    t.weights_s = eval.weights_copy_Bps > 0.0 ? eval.weights_bytes / eval.weights_copy_Bps : 0.0;
    t.busy_per_step_s = (t.forward_s + t.weights_s) / every;
    return t;
}

std::optional<ResolvedEval> resolveEval(const Scenario& s, const std::vector<ResolvedPool>& pools,
                                        std::size_t trainingPool, Diagnostics& errors) {
    ResolvedEval out;
    out.stage = *s.workload.eval;
    const Workload& w = s.workload;
    out.samples = static_cast<double>(out.stage.samples > 0 ? out.stage.samples : w.global_batch);
    out.weights_bytes = countParameters(w.model).total() * activationBytes(w.sixteenBitPrecision());
    out.device = pools[trainingPool].device;
    out.devices = static_cast<double>(pools[trainingPool].pool.count);
    if (out.stage.pool && !placeOnOwnPool(s, pools, trainingPool, out, errors))
        return std::nullopt;
    return out;
}

} // namespace choreo::models
