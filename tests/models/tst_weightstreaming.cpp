// Weight streaming (models/weightstreaming.h): a Cerebras step against hand arithmetic, and the layouts and
// micro-batches it refuses.
#include "models/topology.h"
#include "models/weightstreaming.h"

#include <QTest>

#include <algorithm>
#include <map>

#include "stagetesting.h"

using namespace choreo::models;
using choreo::test::kAssets;

namespace {

const std::filesystem::path kCerebras = kAssets / "scenarios" / "systems" / "cerebras-cs3.json";

// Llama-3.1 70B's parameters by hand: per layer the query and output projections (h x h each), keys and
// values (h x 8 heads x 128 each), a gated FFN (3 h f) and two norms; the untied input and output embeddings
// (V h each) and the final norm. 70.55 billion, Meta's published count.
constexpr double h = 8192, f = 28672, vocab = 128256, layers = 80;
constexpr double kLlama70bParams =
    layers * (2 * h * h + 2 * h * 8 * 128 + 3 * h * f + 2 * h) + 2 * vocab * h + h;

// What `assignments` make the shipped CS-3 scenario refuse, all errors joined.
std::string refusal(const std::vector<std::string>& assignments) {
    Diagnostics errors;
    return choreo::test::resolveWith(kCerebras, assignments, errors) ? std::string()
                                                                     : joinDiagnostics(errors);
}

} // namespace

class TestWeightStreaming : public QObject {
    Q_OBJECT
private slots:
    void streamIsTheModelOverTheSystemsLinks() {
        QCOMPARE(kLlama70bParams, 70553706496.0);
        const auto rs = choreo::test::resolveOrFail(kCerebras);
        const WeightStreamingStep s = weightStreamingStep(rs);
        // 16-bit weights over 1.2 Tb/s at the 0.9 of line rate the catalog assumes.
        const double stream = kLlama70bParams * 2.0 / (150e9 * 0.9);
        QVERIFY2(std::abs(s.stream_s / stream - 1.0) < 1e-9, qPrintable(QString::number(s.stream_s)));
        // 128 sequences over 4 systems, 2 at a time.
        QCOMPARE(s.micro_batches, 16.0);
        // Gradients leave at fp32 (the workload's default gradient precision): twice the weights' time.
        QVERIFY(std::abs(s.gradient_stream_s / (2.0 * stream) - 1.0) < 1e-9);
        // SwarmX's tree over 4 systems: 2 levels of 5 us, crossed once by every pass.
        QCOMPARE(s.tree_latency_s, 10e-6);
        // Each pass: the longer of compute and stream, plus the shorter one's first (or last) layer; the
        // backward pass streams weights in and gradients out at once, the slower bounding it.
        const auto pass = [&](double compute, double streamed) {
            return std::max(compute, streamed) + std::min(compute, streamed) / layers;
        };
        const double step =
            16.0 * (pass(s.forward_compute_s, stream) + pass(s.backward_compute_s, 2 * stream) + 2 * 10e-6) +
            2 * stream / layers + 10e-6;
        QVERIFY2(std::abs(s.step_s / step - 1.0) < 1e-9, qPrintable(QString::number(s.step_s)));
        QCOMPARE(s.exposed_stream_s, s.step_s - s.compute_s);
        // The measurement finishResult reads: the wait for weights is the exposed communication.
        const StepMeasurement m = weightStreamingMeasurement(rs);
        QCOMPARE(m.step_time_s, s.step_s);
        QCOMPARE(m.breakdown.exposed_communication_s, s.exposed_stream_s);
        QCOMPARE(m.compute_split.optimizer_s, 0.0); // MemoryX runs the optimizer
    }

    void shortSequencesWaitForTheStream() {
        // 512 tokens a micro-batch of 1: the wafer computes each layer far faster than its weights arrive,
        // so a step is the weights' stream in the forward pass and the fp32 gradients' (twice as long) in
        // the backward, a micro-batch, 32 micro-batches a system.
        const auto rs =
            choreo::test::resolveOrFail(kCerebras, {"workload.model.seq_len=512", "workload.micro_batch=1"});
        const WeightStreamingStep s = weightStreamingStep(rs);
        const double bound = 32.0 * 3.0 * kLlama70bParams * 2.0 / (150e9 * 0.9);
        QVERIFY2(s.step_s > bound && s.step_s < 1.02 * bound,
                 qPrintable(QStringLiteral("%1 s against %2").arg(s.step_s).arg(bound)));
    }

    void memoryXFeedsEverySystemThroughSwarmX() {
        const auto rs = choreo::test::resolveOrFail(kCerebras);
        const auto plan = choreo::test::planOrFail(kCerebras);
        TopologyGraph graph = buildTopologyGraph(plan);
        const auto before = boost::num_vertices(graph);
        addModelStores(graph, plan, rs.device());
        // 4 systems: 2 SwarmX nodes over pairs, 1 above them, and MemoryX feeding it: 4 + 2 + 1 links.
        std::map<VertexKind, int> added;
        for (auto v = before; v < boost::num_vertices(graph); ++v)
            ++added[graph[v].kind];
        QCOMPARE(added[VertexKind::SwarmX], 3);
        QCOMPARE(added[VertexKind::MemoryX], 1);
        int streams = 0;
        for (auto [e, end] = boost::edges(graph); e != end; ++e)
            if (graph[*e].stream) {
                ++streams;
                QCOMPARE(graph[*e].bandwidth_Bps, 150e9);
                QCOMPARE(graph[*e].latency_s, 5e-6);
            }
        QCOMPARE(streams, 7);
        // The tree is as deep as the step model's hops: from MemoryX to a system crosses the link into the
        // tree's top node, then one per level, each level a hop of the step model.
        std::size_t memoryX = 0;
        for (auto v = before; v < boost::num_vertices(graph); ++v)
            if (graph[v].kind == VertexKind::MemoryX)
                memoryX = v;
        std::vector<int> depth(boost::num_vertices(graph), -1);
        std::vector<std::size_t> queue{memoryX};
        depth[memoryX] = 0;
        for (std::size_t i = 0; i < queue.size(); ++i)
            for (auto [e, end] = boost::out_edges(queue[i], graph); e != end; ++e)
                if (const auto w = boost::target(*e, graph); graph[*e].stream && depth[w] < 0) {
                    depth[w] = depth[queue[i]] + 1;
                    queue.push_back(w);
                }
        QCOMPARE(weightStreamingStep(rs).tree_latency_s, (depth[0] - 1) * 5e-6);
    }

    void layoutsThatSplitALayerAreRefused() {
        const std::string tp = refusal({"workload.parallel.tp=2", "workload.parallel.dp=2"});
        QVERIFY2(tp.find("workload.parallel.tp: must be 1, got 2: cs-3 trains by weight streaming") !=
                         std::string::npos &&
                     tp.find("use data parallelism (dp) across systems, which SwarmX joins") !=
                         std::string::npos,
                 tp.c_str());
        QVERIFY2(tp.find("devices_per_node") == std::string::npos, tp.c_str()); // said once, not twice
        const std::string pp = refusal({"workload.parallel.pp=4", "workload.parallel.dp=1"});
        QVERIFY2(pp.find("workload.parallel.pp: must be 1, got 4") != std::string::npos, pp.c_str());
        const std::string zero = refusal({"workload.parallel.zero=1"});
        QVERIFY2(zero.find("workload.parallel.zero: must be 0, got 1: cs-3 keeps no weights") !=
                     std::string::npos,
                 zero.c_str());
        const std::string many = refusal(
            {"cluster.pools[0].count=4096", "workload.parallel.dp=4096", "workload.global_batch=8192"});
        QVERIFY2(many.find("cluster.pools[0].count: 4096 cs-3 systems, but SwarmX joins at most 2048") !=
                     std::string::npos,
                 many.c_str());
    }

    void aMicroBatchMustFitTheWafer() {
        // The two largest streamed matrices (here the output layer, V x h, larger than a layer) and a
        // micro-batch's activations and logits live in the 44 GB of SRAM; nothing else does.
        const auto rs = choreo::test::resolveOrFail(kCerebras);
        QCOMPARE(rs.memory.gradients_GB + rs.memory.optimizer_GB + rs.memory.buffers_GB, 0.0);
        QVERIFY2(std::abs(rs.memory.weights_GB - 2 * vocab * h * 2 / 1e9) < 1e-9,
                 qPrintable(QString::number(rs.memory.weights_GB)));
        QCOMPARE(rs.memory.activations_GB, memoryForStage(rs.workload(), 0).activations_GB);
        const std::string four = refusal({"workload.micro_batch=4"});
        QVERIFY2(four.find("memory: ") != std::string::npos &&
                     four.find("cs-3 has 44 GB") != std::string::npos,
                 four.c_str());
    }
};

QTEST_GUILESS_MAIN(TestWeightStreaming)
#include "tst_weightstreaming.moc"
