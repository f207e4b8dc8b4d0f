// A bulk-synchronous IPU (models/bsp.h): what its SRAM and streaming memory hold, the supersteps a layer
// adds to its arithmetic, the optimizer over the streaming link, the layouts it refuses, and the stores a
// view draws beside its network.
#include "models/bsp.h"
#include "models/stepcost.h"
#include "models/topology.h"
#include "models/transformer.h"

#include <QTest>

#include "stagetesting.h"

using namespace choreo::models;
using choreo::test::kAssets;

namespace {

const std::filesystem::path kIpuPod = kAssets / "scenarios" / "systems" / "ipu-pod.json";

// What `assignments` make the shipped IPU-POD scenario refuse, all errors joined.
std::string refusal(const std::vector<std::string>& assignments) {
    Diagnostics errors;
    return choreo::test::resolveWith(kIpuPod, assignments, errors) ? std::string() : joinDiagnostics(errors);
}

bool near(double got, double want) {
    return std::abs(got / want - 1.0) < 1e-9;
}

} // namespace

class TestBsp : public QObject {
    Q_OBJECT
private slots:
    void sramHoldsTheStageAndStreamingMemoryItsOptimizer() {
        const auto rs = choreo::test::resolveOrFail(kIpuPod);
        const Workload& w = rs.workload();
        // A middle stage of GPT-2 Medium over 8 IPUs: 3 layers of 4h^2 + 2hf weights and two norms' scales
        // (12.6 M parameters each; the step model counts no biases), in fp16, with fp16 gradients (fp16
        // training).
        constexpr double h = 1024, f = 4096;
        const double stage = 3.0 * (4 * h * h + 2 * h * f + 2 * h);
        QVERIFY2(near(parametersPerDevice(w, 1), stage),
                 qPrintable(QString::number(parametersPerDevice(w, 1))));
        const MemoryBreakdown m = bulkSynchronousStageMemory(w, rs.device(), 1);
        QVERIFY(near(m.weights_GB, stage * 2 / 1e9));
        QVERIFY(near(m.gradients_GB, stage * 2 / 1e9));
        QCOMPARE(m.optimizer_GB, 0.0);    // in streaming memory
        QCOMPARE(m.buffers_GB, 0.15);     // the compiled program, not a CUDA context
        QVERIFY(rs.memory.total() < 0.9); // the worst stage fits the 900 MB
        // The largest stage, the last: 3 layers, the final norm and the output layer (h x 50,272). Its
        // optimizer state (fp32 master weights and Adam's moments, 12 bytes) is sharded over the 2 replicas.
        const double last = stage + h + h * 50272;
        QVERIFY(near(parametersPerDevice(w, 7), last));
        QVERIFY(near(streamedOptimizerStateGB(w), last * 12.0 / 2.0 / 1e9));
        // Reported beside the SRAM, not in its total.
        QCOMPARE(rs.memory.off_chip_GB, streamedOptimizerStateGB(w));
        QVERIFY(rs.memory.describe().find("; off-chip 0.5354 GB") != std::string::npos);
    }

    void lastStageKeepsItsLogitsInFp16() {
        const auto rs = choreo::test::resolveOrFail(kIpuPod);
        const Workload& w = rs.workload();
        // Full recomputation keeps each of the 3 layers' inputs (2 bytes x 1,024 tokens x 1,024) for the one
        // micro-batch in flight on the last stage, one layer's full activations while it is recomputed, and
        // the logits: 1,024 tokens x 50,272, softmax and gradient in fp16, 4 bytes.
        Workload whole = w;
        whole.recompute = Recompute::None;
        const double expected = 3 * 2.0 * 1024 * 1024 + layerActivationBytes(whole) + 4.0 * 1024 * 50272;
        const MemoryBreakdown m = bulkSynchronousStageMemory(w, rs.device(), 7);
        QVERIFY2(near(m.activations_GB, expected / 1e9), qPrintable(QString::number(m.activations_GB)));
    }

    void optimizerStreamsItsStateThroughTheLink() {
        const auto rs = choreo::test::resolveOrFail(kIpuPod);
        const StageCost cost = stageCost(rs, 1);
        // 12 bytes a parameter of its shard (3 layers of 12.6 M over 2 replicas) in and out, the two
        // directions of a 32 GB/s link at once.
        const double shard = 3.0 * (4 * 1024.0 * 1024 + 2 * 1024.0 * 4096 + 2 * 1024) / 2.0;
        QVERIFY2(near(cost.optimizer_s, shard * 12.0 / 32e9), qPrintable(QString::number(cost.optimizer_s)));
    }

    void supersteps_addExchangeAndSyncToEveryLayer() {
        const auto rs = choreo::test::resolveOrFail(kIpuPod);
        // The same stage with the device's bulk-synchronous figures taken away: the GPU arithmetic alone.
        Catalog plain = choreo::test::catalog();
        plain.findMutable("bow-ipu")->bulk_synchronous.reset();
        Diagnostics errors;
        const auto scenario = choreo::test::loadWith(kIpuPod, {}, errors);
        QVERIFY(scenario);
        const auto gpuLike = resolveScenario(*scenario, plain, errors, false);
        QVERIFY2(gpuLike, joinDiagnostics(errors).c_str());
        const StageCost ipu = stageCost(rs, 1), arithmetic = stageCost(*gpuLike, 1);
        // A layer's GEMMs read 1,024 (QKV's input), 1,024 (the output projection's), 1,024 (the FFN's) and
        // 4,096 (the down projection's) activations a token and write 3 x 1,024 (Q, K, V), 1,024, 4,096 and
        // 1,024, all of 1,024 tokens in fp16, over the 11 TB/s exchange; 24 supersteps of 0.2 us.
        const double exchange = 1024.0 * (4 * 1024 + 3 * 1024 + 1024 + 4096 + 4096) * 2.0 / 11e12;
        const double layer = exchange + 24 * 0.2e-6;
        const SuperstepCost supersteps = layerSupersteps(rs.device(), 1024.0 * 16384 * 2.0);
        QVERIFY(near(supersteps.total(), layer));
        QVERIFY2(near(ipu.forward_s - arithmetic.forward_s, 3 * layer),
                 qPrintable(QString::number(ipu.forward_s - arithmetic.forward_s)));
        // The backward twice the forward's, and the recomputed forward once more, counted as recomputation.
        QVERIFY(near(ipu.backward_s - arithmetic.backward_s, 3 * 3 * layer));
        QVERIFY(near(ipu.recompute_s - arithmetic.recompute_s, 3 * layer));
    }

    void layoutsItCannotRunAreRefused() {
        const std::string zero = refusal({"workload.parallel.zero=2"});
        QVERIFY2(zero.find("workload.parallel.zero: must be 0 or 1, got 2") != std::string::npos &&
                     zero.find("gradients accumulate in each replica's SRAM") != std::string::npos,
                 zero.c_str());
        const std::string cp = refusal({"workload.parallel.cp=2", "workload.parallel.dp=1"});
        QVERIFY2(cp.find("workload.parallel.cp: must be 1, got 2") != std::string::npos, cp.c_str());
        const std::string vp = refusal({"workload.parallel.vp=3"});
        QVERIFY2(vp.find("workload.parallel.vp: must be 1, got 3") != std::string::npos, vp.c_str());
        const std::string offload = refusal({"workload.activation_offload_layers=1"});
        QVERIFY2(offload.find("workload.activation_offload_layers: must be 0 on bow-ipu") !=
                     std::string::npos,
                 offload.c_str());
    }

    void optimizerStateBeyondStreamingMemoryIsRefused() {
        Catalog small = choreo::test::catalog();
        small.findMutable("bow-ipu")->bulk_synchronous->streaming_memory_GB.value = 0.1;
        Diagnostics errors;
        const auto scenario = choreo::test::loadWith(kIpuPod, {}, errors);
        QVERIFY(!resolveScenario(*scenario, small, errors));
        // The last stage's 89 M parameters x 12 bytes over 2 replicas.
        QVERIFY2(
            choreo::test::hasError(errors, "memory",
                                   "0.5354 GB of optimizer state per bow-ipu, its streaming memory holds "
                                   "0.1 GB; raise pp or dp"),
            joinDiagnostics(errors).c_str());
    }

    void servingIsRefused() {
        // The decode model reads weights and KV cache from DRAM, which an IPU does not have.
        Diagnostics errors;
        QVERIFY(!choreo::test::resolveWith(kAssets / "scenarios" / "serve-llama3-70b.json",
                                           {"cluster.pools[0].device=bow-ipu"}, errors));
        QVERIFY2(
            choreo::test::hasError(errors, "workload.stages[0].pool", "serving is not modelled on bow-ipu"),
            joinDiagnostics(errors).c_str());
    }

    void aStageLargerThanItsSramIsRefused() {
        // Two stages of 12 layers: 12 x 12.6 M fp16 weights and as many gradients are 0.6 GB before any
        // activation, and the output layer's 51 M more on the last.
        const std::string two = refusal({"workload.parallel.pp=2", "workload.parallel.dp=8"});
        QVERIFY2(two.find("memory:") != std::string::npos &&
                     two.find("bow-ipu has 0.9 GB") != std::string::npos,
                 two.c_str());
    }

    void podDrawsAStreamingMemoryPerMachine() {
        const auto rs = choreo::test::resolveOrFail(kIpuPod);
        const auto plan = choreo::test::planOrFail(kIpuPod);
        TopologyGraph graph = buildTopologyGraph(plan);
        const auto before = boost::num_vertices(graph);
        const auto edges = boost::num_edges(graph);
        addModelStores(graph, plan, rs.device());
        QCOMPARE(boost::num_vertices(graph), before + 4); // one per Bow-2000
        QCOMPARE(boost::num_edges(graph), edges + 16);    // to each of its 4 IPUs
        for (auto [e, end] = boost::edges(graph); e != end; ++e)
            if (graph[*e].stream)
                QCOMPARE(graph[*e].bandwidth_Bps, 32e9);
        // The diameter and bisection skip the stores' links.
        const std::vector<std::int64_t> first{0};
        const TopologyGraph network = buildTopologyGraph(plan);
        QCOMPARE(scaleOutEccentricity(graph, plan.devices, first),
                 scaleOutEccentricity(network, plan.devices, first));
        QCOMPARE(halvesMaxFlow_Bps(graph, plan.devices), halvesMaxFlow_Bps(network, plan.devices));
    }
};

QTEST_APPLESS_MAIN(TestBsp)
#include "tst_bsp.moc"
