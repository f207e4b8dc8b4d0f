// Parameter, FLOP and memory counts against values computed by hand (python, in the comments).
#include "models/catalog.h"
#include "models/memory.h"
#include "models/resolved.h"
#include "models/stepcost.h"
#include "models/transformer.h"

#include <QTest>

// Fails, printing the actual value, unless `actual` is within `tolerance` of `expected`.
#define CHOREO_VERIFY_NEAR(actual, expected, tolerance)                                                      \
    QVERIFY2(qAbs((actual) - (expected)) < (tolerance), std::to_string(actual).c_str())

using namespace choreo::models;

namespace {

// GPT-style: 2 layers, hidden 1024, 16 heads (MHA), FFN 4096 plain, vocab 32000, seq 2048.
Workload small() {
    Workload w;
    w.model = {"small", 2, 1024, 16, 16, 4096, false, 32000, 2048, std::nullopt};
    w.global_batch = 8;
    w.micro_batch = 1;
    w.tokens_to_train = 1e9;
    w.precision = Precision::Bf16;
    w.parallel = ParallelLayout{};
    w.recompute = Recompute::None;
    return w;
}

// Two layers of 16 heads of 128 (hidden 2048) at 4096 tokens, tp 1, as one pipeline stage on `device`
// (which must outlive the result).
ResolvedScenario layerScenario(const Device& device) {
    ResolvedScenario rs;
    Workload& w = rs.scenario.workload;
    w = small();
    w.model = {"attention", 2, 2048, 16, 16, 8192, false, 32000, 4096, std::nullopt};
    Pool pool{"p", device.id, 1, 1};
    rs.scenario.cluster.pools = {pool};
    rs.pools = {ResolvedPool{pool, &device}};
    return rs;
}

// A device for hand computations: 1000 TFLOP/s bf16 at GEMM efficiency 0.8, 2 TB/s at 0.9, 4 us a kernel.
Device handDevice() {
    Device d;
    d.id = "test";
    d.peak_tflops[Precision::Bf16].value = 1000;
    d.memory_bandwidth_TBps.value = 2;
    d.efficiency.gemm.value = 0.8;
    d.efficiency.memory.value = 0.9;
    d.efficiency.kernel_overhead_us.value = 4;
    return d;
}

} // namespace

class TestWorkloadMath : public QObject {
    Q_OBJECT
private slots:
    void parameters() {
        const auto p = countParameters(small().model);
        // per layer: 4h^2 + 2hf + 2h = 4*1024^2 + 2*1024*4096 + 2*1024
        QCOMPARE(p.perLayer(), 12584960.0);
        // total: 2 layers + untied embeddings 2*V*h + final norm h
        QCOMPARE(p.total(), 90706944.0);
    }

    void groupedQueryAttentionShrinksKv() {
        ModelShape m{"gqa", 1, 8192, 64, 8, 28672, true, 128256, 8192, std::nullopt};
        const auto p = countParameters(m);
        // Q and O: 2h^2; K and V: 2 * h * (8 * 128)
        QCOMPARE(p.attention_per_layer, 2.0 * 8192 * 8192 + 2.0 * 8192 * 1024);
        QCOMPARE(p.ffn_per_layer, 3.0 * 8192 * 28672);
    }

    // A head width set apart from hidden / heads (GPT-OSS: 64 heads of 64 and 8 KV heads on hidden 2,880):
    // Q is 64 x 64 = 4,096 wide, K and V 8 x 64 = 512; the output projection maps 4,096 back to 2,880.
    // Attention params: 2880 * (4096 + 2 * 512) + 4096 * 2880 = 26,542,080 (18,662,400 with heads of 45).
    // Scores and outputs: 4 * T * s * 4096 FLOPs. Activations of small() (h 1024, 16 heads, FFN 4h) with
    // heads of 128: Q, K, V and the attention output are 2048 wide, twice the hidden size: norm inputs 4,
    // dropout 2, QKV and FC1 inputs 4 (replicated, 10), Q K V 2 x 6 = 12, attention output 4, FFN 16: 42 sbh
    // against 34. And the attention time of the two-layer test model doubles with heads twice as wide.
    void headWidthSetApartFromHidden() {
        ModelShape oss{"oss", 1, 2880, 64, 8, 2880, true, 201088, 4096, std::nullopt};
        QCOMPARE(countParameters(oss).attention_per_layer, 18662400.0);
        oss.head_dim = 64;
        QCOMPARE(oss.queryWidth(), 4096.0);
        QCOMPARE(oss.kvWidth(), 512.0);
        QCOMPARE(countParameters(oss).attention_per_layer, 26542080.0);
        QCOMPARE(layerForwardFlops(oss, 4096).attention, 4.0 * 4096 * 4096 * 4096);
        QCOMPARE(selectiveOpsRecomputeFlops(oss, 4096, false),
                 2.0 * 4096 * (2880.0 * 512 + 4096.0 * 2880 + 2880.0 * 2880));

        Workload w = small();
        w.model.head_dim = 128;
        QCOMPARE(layerActivationBytes(w), 42.0 * 2048 * 1024);

        Device flat = handDevice();
        flat.efficiency.attention.value = 0.52;
        ResolvedScenario narrow = layerScenario(flat);
        ResolvedScenario wide = layerScenario(flat);
        wide.scenario.workload.model.head_dim = 256;
        const double overheads = 4 * 4e-6;
        const double a = stageCost(narrow, 0).attention_s - overheads;
        const double b = stageCost(wide, 0).attention_s - overheads;
        CHOREO_VERIFY_NEAR(b / a, 2.0, 1e-9);
        // Its QKV and output projections grow from 4 h^2 to h (2h + 2 * 2h) + 2h * h = 8 h^2 parameters.
        QCOMPARE(countParameters(wide.scenario.workload.model).attention_per_layer, 8.0 * 2048 * 2048);
    }

    void stepFlops() {
        Workload w = small();
        const auto f = choreo::models::stepFlops(w);
        // tokens T = 8*2048; forward = L*(2T*(4h^2+2hf) + 4T*s*h) + 2T*h*V
        QCOMPARE(f.forward, 2173253451776.0);
        QCOMPARE(f.backward, 2.0 * 2173253451776.0);
        QCOMPARE(f.recompute, 0.0);
        QCOMPARE(f.model(), 6519760355328.0);
        w.recompute = Recompute::Full; // one more forward of the layers (not the logits)
        QCOMPARE(choreo::models::stepFlops(w).recompute, 1099511627776.0);
        QCOMPARE(choreo::models::stepFlops(w).hardware(), 6519760355328.0 + 1099511627776.0);
    }

    void memoryOfOneDevice() {
        const Workload w = small();
        const auto m = memoryForStage(w, 0);
        const double params = 90706944.0;
        QCOMPARE(m.weights_GB, params * 2 / 1e9);
        QCOMPARE(m.gradients_GB, params * 4 / 1e9);
        QCOMPARE(m.optimizer_GB, params * 12 / 1e9);
        // Korthikanti et al.: 34*s*b*h bytes per layer for GPT shapes, plus the logits' 6 bytes each (fp32
        // softmax, bf16 gradient: 6*s*b*V)
        QCOMPARE(m.activations_GB, (34.0 * 2048 * 1024 * 2 + 6.0 * 2048 * 32000) / 1e9);
        // bf16 gradients (NeMo's grad_sync_dtype): half the buffer, half the data-parallel traffic.
        Workload bf16 = w;
        bf16.gradient_precision = choreo::models::Precision::Bf16;
        QCOMPARE(memoryForStage(bf16, 0).gradients_GB, params * 2 / 1e9);
        QCOMPARE(choreo::models::gradientReduceBytes(w), 4.0);
        QCOMPARE(choreo::models::gradientReduceBytes(bf16), 2.0);
        // Master-weight remainders (Apex's store_param_remainders): 2 + 4 + 4 bytes of optimizer state.
        Workload remainders = w;
        remainders.master_weights = choreo::models::MasterWeights::Remainders;
        QCOMPARE(memoryForStage(remainders, 0).optimizer_GB, params * 10 / 1e9);
        QCOMPARE(memoryForStage(remainders, 0).weights_GB, m.weights_GB);
    }

    // Per layer, by hand, for the GPT shape of small() (h 1024, 16 heads and KV heads, FFN 4096 = 4h, tp 1):
    // 34 sbh with dropout in 16-bit training (norm inputs 4, dropout masks 2, QKV and FC1 inputs 4; Q, K, V
    // 6, attention output 2, FC1 output 2 x 4 and FC2 input 2 x 4). Without dropout: 32. fp8 keeps the
    // GEMM inputs' 1-byte copies: QKV and FC1 inputs 2, FC2 input 4, plus the projection's own 1: 29 sbh.
    // NVFP4 (0.5625 B) without dropout: 4 + 1.125 + 6 + 2 + 0.5625 + 8 + 2.25 = 23.9375 sbh.
    void dropoutAndQuantisedInputs() {
        Workload w = small();
        const double sbh = 2048.0 * 1024.0;
        QCOMPARE(layerActivationBytes(w), 34.0 * sbh);
        w.model.dropout = false;
        QCOMPARE(layerActivationBytes(w), 32.0 * sbh);
        w.model.dropout = true;
        w.precision = Precision::Fp8;
        QCOMPARE(layerActivationBytes(w), 29.0 * sbh);
        w.model.dropout = false;
        w.precision = Precision::Fp4;
        QCOMPARE(layerActivationBytes(w), 23.9375 * sbh);
    }

    void parallelismSplitsMemory() {
        Workload w = small();
        w.parallel = {.tp = 2, .pp = 2, .dp = 4, .sequence_parallel = true, .zero = 1};
        w.global_batch = 16;
        // Stage 0 of 2: 1 layer split over 2 tensor ranks (norms replicated) + the input embedding / 2.
        const double params = (4.0 * 1024 * 1024 + 2.0 * 1024 * 4096) / 2 + 2 * 1024 + 32000.0 * 1024 / 2;
        QCOMPARE(parametersPerDevice(w, 0), params);
        const auto m = memoryForStage(w, 0);
        QCOMPARE(m.optimizer_GB, params * 12 / 4 / 1e9); // ZeRO-1 over dp=4
        // 2 micro-batches in flight on stage 0 of 2; with sequence parallelism everything splits by tp.
        QCOMPARE(m.activations_GB, 2.0 * 34.0 * 2048 * 1024 / 2 / 1e9);
        w.recompute = Recompute::Full; // inputs only (2sbh/t), plus one layer's full set while recomputing
        QCOMPARE(memoryForStage(w, 0).activations_GB,
                 (2.0 * 2.0 * 2048 * 1024 / 2 + 34.0 * 2048 * 1024 / 2) / 1e9);
    }

    void interleavingContextAndZero3() {
        Workload w = small();
        w.model.layers = 8;
        w.global_batch = 8;
        w.parallel = {.pp = 2, .vp = 2};
        // 4 chunks of 2 layers; device 0 holds chunks 0 (with the embedding) and 2.
        const auto p = countParameters(w.model);
        QCOMPARE(parametersPerChunk(w, 0), 2 * p.perLayer() + p.embedding);
        QCOMPARE(parametersPerDevice(w, 0), 4 * p.perLayer() + p.embedding);
        QCOMPARE(parametersPerDevice(w, 1), 4 * p.perLayer() + p.embedding + p.final_norm);
        // Interleaved warm-up on device 0: 2(pp-1) + (vp-1)pp + 1 = 5 chunks of 2 layers in flight.
        QCOMPARE(memoryForStage(w, 0).activations_GB, 5 * 2 * 34.0 * 2048 * 1024 / 1e9);
        // Context parallelism halves each device's tokens, hence its activations.
        w.parallel.cp = 2;
        QCOMPARE(memoryForStage(w, 0).activations_GB, 5 * 2 * 34.0 * 1024 * 1024 / 1e9);
        // ZeRO-3 over dp*cp = 2*2 shards weights, gradients and optimizer states alike.
        w.parallel = {.dp = 2, .cp = 2, .zero = 3};
        const auto m = memoryForStage(w, 0);
        const double params = parametersPerDevice(w, 0);
        QCOMPARE(m.weights_GB, params * 2 / 4 / 1e9);
        QCOMPARE(m.gradients_GB, params * 4 / 4 / 1e9);
        QCOMPARE(m.optimizer_GB, params * 12 / 4 / 1e9);
    }

    // DeepSpeed's ZeRO-3 of 2021 fetches module by module: for hidden 2048, FFN 8192 (plain), QKV 3 * 2048^2,
    // the projection 2048^2, up and down 2048 * 8192 parameters each (bf16: 25,165,824, 8,388,608,
    // 33,554,432, 33,554,432 bytes). With full recomputation the backward gathers all four for the
    // recomputed forward, then all but the down projection (kept) for the backward, and reduce-scatters
    // each module's gradients after its backward; without, it gathers all four once. The layered engine
    // is one step per layer: its gather, and in backward its reduce-scatter.
    void deepSpeed2021StepsByHand() {
        Device d = handDevice();
        d.efficiency.attention.value = 0.5;
        ResolvedScenario rs = layerScenario(d);
        Workload& w = rs.scenario.workload;
        w.parallel.dp = 2;
        w.parallel.zero = 3;
        w.recompute = Recompute::Full;
        const double layer = (4.0 * 2048 * 2048 + 2 * 2048 * 8192 + 2 * 2048) * 2;
        QCOMPARE(stageCost(rs, 0).zero3_layer_param_bytes, layer);
        const auto layered = stageCost(rs, 0).zero3Steps(true);
        QCOMPARE(layered.size(), std::size_t{1});
        QCOMPARE(layered[0].gather_bytes, layer);
        QCOMPARE(layered[0].reduce_bytes, stageCost(rs, 0).zero3_layer_grad_bytes);
        // Gathered parameters in memory: the layered engine holds two layers (the current and the prefetched
        // one) and one layer's gradients, beside the 3 GB runtime allowance.
        const double gradientBytes = choreo::models::trainingStateBytes(w).gradients;
        const double layerParams = 4.0 * 2048 * 2048 + 2 * 2048 * 8192;
        QCOMPARE(memoryForStage(w, 0).buffers_GB, 3.0 + layerParams * (2 * 2 + gradientBytes) / 1e9);

        w.zero3_engine = Zero3Engine::DeepSpeed2021;
        const StageCost c = stageCost(rs, 0);
        const std::array<double, 4> bytes = {25165824.0, 8388608.0, 33554432.0, 33554432.0};
        // DeepSpeed's hooks hold a module and the next one (up and down, the largest pair) and the largest
        // module's gradients: 2 x 2048 x 8192 parameters in bf16, 2048 x 8192 gradients.
        QCOMPARE(memoryForStage(w, 0).buffers_GB,
                 3.0 + (2.0 * bytes[2] + 2048.0 * 8192 * gradientBytes) / 1e9);
        const auto& forward = c.zero3Steps(false);
        QCOMPARE(forward.size(), std::size_t{4});
        double shares = 0.0;
        for (std::size_t k = 0; k < 4; ++k) {
            QCOMPARE(forward[k].gather_bytes, bytes[k]);
            QCOMPARE(forward[k].reduce_bytes, 0.0);
            shares += forward[k].compute_share;
        }
        QVERIFY2(std::fabs(shares - 1.0) < 1e-12, qPrintable(QString::number(shares, 'g', 17)));
        // QKV carries the attention core: more time per parameter than the projection.
        QVERIFY(forward[0].compute_share / 3.0 > forward[1].compute_share);
        const auto& backward = c.zero3Steps(true);
        QCOMPARE(backward.size(), std::size_t{8});
        const double gradient = gradientReduceBytes(w) / 2.0; // per bf16 byte
        const std::array<double, 8> gathered = {bytes[0], bytes[1], bytes[2], bytes[3],
                                                0.0,      bytes[2], bytes[1], bytes[0]};
        const std::array<double, 8> reduced = {0.0,
                                               0.0,
                                               0.0,
                                               0.0,
                                               bytes[3] * gradient,
                                               bytes[2] * gradient,
                                               bytes[1] * gradient,
                                               bytes[0] * gradient};
        shares = 0.0;
        for (std::size_t i = 0; i < 8; ++i) {
            QCOMPARE(backward[i].gather_bytes, gathered[i]);
            QCOMPARE(backward[i].reduce_bytes, reduced[i]);
            shares += backward[i].compute_share;
        }
        QVERIFY(std::fabs(shares - 1.0) < 1e-12);
        // The recomputed forward's steps take the recomputation's share of the backward.
        const double recomputed = backward[0].compute_share + backward[1].compute_share +
                                  backward[2].compute_share + backward[3].compute_share;
        QVERIFY(std::fabs(recomputed - c.recompute_s / c.backward_s) < 1e-12);

        w.recompute = Recompute::None;
        const auto plain = stageCost(rs, 0).zero3Steps(true);
        QCOMPARE(plain.size(), std::size_t{4});
        QCOMPARE(plain[0].gather_bytes, bytes[3]);
        QCOMPARE(plain[3].gather_bytes, bytes[0]);
    }

    void unevenPipelineStages() {
        Workload w = small();
        w.model.layers = 126;
        w.parallel.pp = 16;
        w.global_batch = 16;
        std::int64_t total = 0;
        for (std::int64_t c = 0; c < 16; ++c) {
            total += layersInChunk(w, c);
            QCOMPARE(layersInChunk(w, c), c == 0 || c == 15 ? std::int64_t(7) : std::int64_t(8));
        }
        QCOMPARE(total, std::int64_t(126));
        w.model.layers = 13; // 4 chunks of 4, deficit 3: chunks 0, 3 and 1 give up a layer
        w.parallel.pp = 4;
        QCOMPARE(layersInChunk(w, 0), std::int64_t(3));
        QCOMPARE(layersInChunk(w, 1), std::int64_t(3));
        QCOMPARE(layersInChunk(w, 2), std::int64_t(4));
        QCOMPARE(layersInChunk(w, 3), std::int64_t(3));
        // Megatron-Core's embedding and loss counted as layers: 126 layers over pp 16 x vp 8 = 128 chunks,
        // the first holding only the embedding, the last only the output layer and the loss.
        w.model.layers = 126;
        w.parallel.pp = 16;
        w.parallel.vp = 8;
        total = 0;
        for (std::int64_t c = 0; c < 128; ++c) {
            total += layersInChunk(w, c);
            QCOMPARE(layersInChunk(w, c), c == 0 || c == 127 ? std::int64_t(0) : std::int64_t(1));
        }
        QCOMPARE(total, std::int64_t(126));
        QVERIFY(parametersPerChunk(w, 0) > 0.0);   // the embedding
        QVERIFY(parametersPerChunk(w, 127) > 0.0); // the output layer and the final norm
    }

    // A GEMM on a device of 1000 TFLOP/s bf16 and 2 TB/s, 4 us per kernel:
    //   8192^3: 2*8192^3 = 1.0995e12 FLOP at 0.8 * 1e15 -> 1.3744e-3 s, + 4e-6 = 1.3784e-3 s (compute-bound;
    //   bytes 3*8192^2*2 = 4.03e8 at 0.9 * 2e12 -> 2.24e-4 s).
    //   With gemm_half_gflop = 100: fraction 0.8 * 1099.5 / (1099.5 + 100) = 0.733306 -> 1.49939e-3 + 4e-6 s.
    //   fp8 at 2000 TFLOP/s with gemm_by_precision fp8 = 0.5: 1.0995e12 / 1e15 = 1.0995e-3 + 4e-6 s.
    //   A thin GEMM 8192 x 8192 x 64 is memory-bound: (2*8192*64 + 8192^2) * 2 B = 1.3631e8 B at 1.8e12 B/s
    //   = 7.5730e-5 s, + 4e-6 s (compute 8.59e9 FLOP / 8e14 = 1.07e-5 s).
    void gemmTimeByHand() {
        Device d = handDevice();
        d.peak_tflops[Precision::Fp8].value = 2000;
        const double n = 8192;
        QVERIFY(qAbs(gemmTime(d, Precision::Bf16, n, n, n) - 1.37839e-3) < 1e-8);
        QVERIFY(qAbs(gemmTime(d, Precision::Bf16, n, n, 64) - 7.97305e-5) < 1e-9);
        d.efficiency.gemm_half_gflop.value = 100;
        QVERIFY(qAbs(d.efficiency.gemmFraction(Precision::Bf16, 2 * n * n * n) - 0.733306) < 1e-6);
        QVERIFY(qAbs(gemmTime(d, Precision::Bf16, n, n, n) - 1.50339e-3) < 1e-8);
        d.efficiency.gemm_half_gflop.value = 0;
        d.efficiency.gemm_by_precision[Precision::Fp8].value = 0.5;
        QVERIFY(qAbs(gemmTime(d, Precision::Fp8, n, n, n) - 1.10351e-3) < 1e-8);
    }

    // Fused attention's size curve, by hand: with attention 0.52 and attention_half_gflop 40, a call of
    // 2 b h s^2 d = 2 * 1 * 8 * 2048^2 * 128 = 8.58993e9 forward FLOPs runs at 0.52 * 8.58993 / (8.58993 +
    // 40) = 0.0919278 of peak; 16 heads at 4096 tokens (6.87195e10 FLOP) at 0.52 * 68.7195 / 108.7195 =
    // 0.328682. Without a half size the fraction is flat. In a layer (below: tp 1, 16 heads of 128, 4096
    // tokens, one sequence) the forward attention costs 6.87195e10 / (0.328682 * 1e15) + 4e-6 s, its bytes
    // taking less.
    void attentionCurveByHand() {
        DeviceEfficiency e;
        e.attention.value = 0.52;
        QCOMPARE(e.attentionFraction(8.58993e9), 0.52);
        e.attention_half_gflop.value = 40;
        QVERIFY(qAbs(e.attentionFraction(2.0 * 8 * 2048.0 * 2048.0 * 128) - 0.0919278) < 1e-6);
        QVERIFY(qAbs(e.attentionFraction(2.0 * 16 * 4096.0 * 4096.0 * 128) - 0.328682) < 1e-6);
        QCOMPARE(e.attentionFraction(0.0), 0.52);
        // In the step model (2 layers, compute-bound): the attention time without its 4 kernel overheads
        // grows by 0.52 / 0.328682.
        Device flat = handDevice();
        flat.efficiency.attention.value = 0.52;
        Device curved = flat;
        curved.efficiency.attention_half_gflop.value = 40;
        const double overheads = 4 * 4e-6;
        const double a = stageCost(layerScenario(flat), 0).attention_s - overheads;
        const double b = stageCost(layerScenario(curved), 0).attention_s - overheads;
        QVERIFY2(qAbs(b / a - 0.52 / 0.328682) < 1e-4, std::to_string(b / a).c_str());
        QVERIFY(qAbs(a - 2 * 3.5 * 6.87195e10 / 0.52e15) < 1e-8);
    }

    // FlashAttention-2 takes the device's own FlashAttention-2 curve where the catalog has one: flat 0.28
    // against fused 0.52, the two layers' attention (less their 4 kernel overheads) takes 0.52 / 0.28 as
    // long. A device without one (the A100, where FlashAttention-2 is the fused kernel) runs it as fused.
    void flashAttention2ByHand() {
        Device d = handDevice();
        d.efficiency.attention.value = 0.52;
        ResolvedScenario fused = layerScenario(d);
        ResolvedScenario flash2 = layerScenario(d);
        flash2.scenario.workload.attention = AttentionKernel::Flash2;
        const double overheads = 4 * 4e-6;
        const double a = stageCost(fused, 0).attention_s - overheads;
        QCOMPARE(stageCost(flash2, 0).attention_s - overheads, a);
        d.efficiency.attention_flash2 = {0.28, "test", ""};
        const double b = stageCost(flash2, 0).attention_s - overheads;
        CHOREO_VERIFY_NEAR(b / a, 0.52 / 0.28, 1e-9);
        QCOMPARE(stageCost(fused, 0).attention_s - overheads, a);
        // Its size curve: 0.28 * F / (F + 25.9 GFLOP).
        d.efficiency.attention_flash2_half_gflop = {25.9, "test", ""};
        CHOREO_VERIFY_NEAR(d.efficiency.attentionFraction(25.9e9, true), 0.14, 1e-12);
        QCOMPARE(d.efficiency.attentionFraction(25.9e9, false), 0.52);
    }

    // Context parallelism runs attention as one call per ring step, each doing 1/cp of the work, and the
    // size curve applies to one call. The layer above at 8,192 tokens with cp 2: each device holds 4,096
    // tokens whose queries see all 8,192 keys, 2 * 4096 * 8192 * 2048 = 1.37439e11 forward FLOPs a layer,
    // in 2 calls of 6.87195e10 at 0.328682 of peak (not one call at 0.52 * 137.439 / 177.439 = 0.402774);
    // 2 layers, forward and backward (3.5 x), 2 calls each: 8 kernel overheads.
    void contextParallelAttentionByHand() {
        Device curved = handDevice();
        curved.efficiency.attention.value = 0.52;
        curved.efficiency.attention_half_gflop.value = 40;
        ResolvedScenario rs = layerScenario(curved);
        rs.scenario.workload.model.seq_len = 8192;
        rs.scenario.workload.parallel.cp = 2;
        rs.scenario.workload.parallel.dp = 1;
        const double overheads = 8 * 4e-6;
        const double expected = 2 * 3.5 * 1.37439e11 / (0.328682 * 1e15);
        const double got = stageCost(rs, 0).attention_s - overheads;
        QVERIFY2(qAbs(got - expected) < 1e-6 * expected,
                 (std::to_string(got) + " " + std::to_string(expected)).c_str());
    }

    // Gradient accumulation in separate kernels, by hand: the two-layer model below (hidden 2048, FFN
    // 8192, vocabulary 32000, one chunk holding both embeddings) has 2 * (4 * 2048^2 + 2 * 2048 * 8192 +
    // 2 * 2048) + 2 * 32000 * 2048 + 2048 = 231,745,536 parameters. Each backward reads the bf16 gradient
    // (2 B) and the fp32 buffer (4 B) and writes the buffer (4 B): 2,317,455,360 B at 0.9 * 2 TB/s =
    // 1.287475e-3 s, plus 15 kernel overheads (6 tensors a layer, the embedding, the final norm and the
    // output layer) of 4 us: 1.347475e-3 s more backward than with fused accumulation, nothing in forward.
    void separateGradientAccumulationByHand() {
        Device d = handDevice();
        d.efficiency.attention.value = 0.5;
        ResolvedScenario fused = layerScenario(d);
        QCOMPARE(parametersPerChunk(fused.workload(), 0), 231745536.0);
        ResolvedScenario separate = fused;
        separate.scenario.workload.gradient_accumulation = GradientAccumulation::Separate;
        const StageCost a = stageCost(fused, 0), b = stageCost(separate, 0);
        QCOMPARE(b.forward_s, a.forward_s);
        CHOREO_VERIFY_NEAR(b.backward_s - a.backward_s, 1.3474752e-3, 1e-10);
        QVERIFY(qAbs(b.memory_bound_s - a.memory_bound_s - 1.3474752e-3) < 1e-10);
        // fp16 training keeps fp16 gradients: 2 + 2 + 2 B per parameter.
        separate.scenario.workload.precision = Precision::Fp16;
        fused.scenario.workload.precision = Precision::Fp16;
        d.peak_tflops[Precision::Fp16].value = 1000;
        QVERIFY(qAbs(stageCost(separate, 0).backward_s - stageCost(fused, 0).backward_s -
                     (231745536.0 * 6 / 1.8e12 + 15 * 4e-6)) < 1e-10);
    }

    // fp8 current scaling, by hand: every cast first reads its 16-bit input once more for the amax, and
    // launches an amax and a scale kernel of its own. The two-layer model (4096 tokens, hidden 2048, FFN
    // 8192, tp 1) casts the inputs of QKV (h), the projection (h), the FFN up (h) and down (f) projections:
    // 4096 x 14,336 x 2 B = 117,440,512 B more a layer forward, at 0.9 * 2 TB/s = 6.5244729e-5 s, plus
    // 8 x 4 us of kernels: 9.7244729e-5 s a layer forward, twice that backward (2 x memFwd), over two
    // layers 5.8346837e-4 s of memory-bound time, a third of it in forward. bf16 training is unchanged.
    void fp8CurrentScalingByHand() {
        Device d = handDevice();
        d.efficiency.attention.value = 0.5;
        d.peak_tflops[Precision::Fp8].value = 2000;
        ResolvedScenario delayed = layerScenario(d);
        delayed.scenario.workload.precision = Precision::Fp8;
        ResolvedScenario current = delayed;
        current.scenario.workload.fp8_recipe = Fp8Recipe::Current;
        const StageCost a = stageCost(delayed, 0), b = stageCost(current, 0);
        CHOREO_VERIFY_NEAR(b.memory_bound_s - a.memory_bound_s, 5.8346837e-4, 1e-10);
        QVERIFY(qAbs(b.forward_s - a.forward_s - 5.8346837e-4 / 3) < 1e-10);
        QCOMPARE(b.gemm_s, a.gemm_s);
        ResolvedScenario bf16 = layerScenario(d), bf16Current = bf16;
        bf16Current.scenario.workload.fp8_recipe = Fp8Recipe::Current;
        QCOMPARE(stageCost(bf16Current, 0).memory_bound_s, stageCost(bf16, 0).memory_bound_s);
    }

    // NVFP4 (fp4 training), by hand, against fp8 under current scaling on the two-layer model: attention, the
    // logits and the element-wise work stay in bf16 in both (the same attention time); every cast writes
    // 4-bit values with an 8-bit scale per 16 elements, 0.5625 B instead of fp8's 1 B, after the same amax
    // pass: 4096 x 14,336 x 0.4375 B = 25,690,112 B less a layer forward, at 0.9 * 2 TB/s = 1.4272284e-5 s,
    // three times that a layer (forward and twice in backward), 8.5633707e-5 s over two layers. With no fp4
    // entry of its own, an fp4 GEMM runs at the fp8 fraction of the fp4 peak.
    void nvfp4ByHand() {
        Device d = handDevice();
        d.efficiency.attention.value = 0.5;
        d.peak_tflops[Precision::Fp8].value = 2000;
        d.peak_tflops[Precision::Fp4].value = 4000;
        d.efficiency.gemm_by_precision[Precision::Fp8].value = 0.6;
        QCOMPARE(d.efficiency.gemmAt(Precision::Fp4).value, 0.6);
        QCOMPARE(d.efficiency.gemmAt(Precision::Bf16).value, 0.8);
        ResolvedScenario fp8 = layerScenario(d);
        fp8.scenario.workload.recompute = Recompute::None;
        fp8.scenario.workload.precision = Precision::Fp8;
        fp8.scenario.workload.fp8_recipe = Fp8Recipe::Current;
        ResolvedScenario fp4 = fp8;
        fp4.scenario.workload.precision = Precision::Fp4;
        const StageCost a = stageCost(fp8, 0), b = stageCost(fp4, 0);
        QCOMPARE(b.attention_s, a.attention_s);
        CHOREO_VERIFY_NEAR(a.memory_bound_s - b.memory_bound_s, 8.5633707e-5, 1e-10);
        // The fp8 recipe setting does not change fp4's costs.
        ResolvedScenario fp4Delayed = fp4;
        fp4Delayed.scenario.workload.fp8_recipe = Fp8Recipe::Delayed;
        QCOMPARE(stageCost(fp4Delayed, 0).memory_bound_s, b.memory_bound_s);
        // Layer GEMMs at twice the peak and the same fraction, compute-bound: half the time; the bf16 logits
        // GEMM is the same in both.
        QVERIFY(b.gemm_s < a.gemm_s);
    }

    // torchtitan's op-level selective recomputation, by hand, on the two-layer model (4096 tokens, hidden
    // 2048, 16 query and 16 KV heads, FFN 8192 ungated, tp 1): its matmuls in order are Q, K, V, the output
    // projection, up, down; the second, fourth and sixth are recomputed: K and the projection (2 x 4096 x
    // 2048 x 2048 = 3.4359738e10 FLOP each, at 0.8 x 1000 TFLOP/s 4.2949673e-5 s, + 4 us) and down
    // (1.3743895e11 FLOP, 1.7179869e-4 s + 4 us): 2.6969804e-4 s a layer, 5.3939608e-4 s over two, as GEMM
    // time in the backward; every element-wise kernel is recomputed too, attention is not.
    void torchtitanOpLevelRecomputeByHand() {
        Device d = handDevice();
        d.efficiency.attention.value = 0.5;
        const ResolvedScenario none = layerScenario(d);
        ResolvedScenario ops = none;
        ops.scenario.workload.recompute = Recompute::SelectiveOps;
        const StageCost a = stageCost(none, 0), b = stageCost(ops, 0);
        QCOMPARE(b.forward_s, a.forward_s);
        QCOMPARE(b.attention_s, a.attention_s);
        CHOREO_VERIFY_NEAR(b.gemm_s - a.gemm_s, 5.3939608e-4, 1e-10);
        const double elementWise = b.memory_bound_s - a.memory_bound_s; // one forward's, per layer, x 2
        QVERIFY(elementWise > 0.0);
        // The rest of the backward's growth is the recomputed element-wise forward.
        QVERIFY(qAbs(b.backward_s - a.backward_s - (b.gemm_s - a.gemm_s) - elementWise) < 1e-12);
        QVERIFY(qAbs(b.recompute_s - (b.backward_s - a.backward_s)) < 1e-12);
        // The same matmuls in the step's FLOPs: 2 layers x 2 x 32,768 tokens x (2 x 2048^2 + 2048 x 8192).
        const auto flops = choreo::models::stepFlops(ops.workload());
        QCOMPARE(flops.recompute, 2.0 * 2.0 * 32768.0 * (2.0 * 2048.0 * 2048.0 + 2048.0 * 8192.0));
        QCOMPARE(toString(Recompute::SelectiveOps), std::string("selective-ops"));
        // With routed experts (8 of FFN 1024, top 2, the first layer dense): the MoE layer recomputes K, the
        // projection, its two experts (2 x 2 x 2048 x 1024, ungated) and the router (2048 x 8).
        Workload moe = ops.workload();
        moe.model.moe = MoeShape{8, 2, 1024, 0, 1};
        QCOMPARE(choreo::models::stepFlops(moe).recompute,
                 2.0 * 32768.0 * (2.0 * 2048.0 * 2048.0 + 2048.0 * 8192.0) +
                     2.0 * 32768.0 * (2.0 * 2048.0 * 2048.0 + 2.0 * 2.0 * 2048.0 * 1024.0 + 2048.0 * 8.0));
    }

    // Megatron-Core's --recompute-modules, by hand, on the two-layer model (4096 tokens, hidden 2048, FFN
    // 8192 ungated, tp 1). The norms instead of the attention core: two norms a layer, each reading and
    // writing 4096 x 2048 x 2 B (67,108,864 B in all at 0.9 x 2 TB/s = 3.7282702e-5 s) and two kernels (8
    // us): 4.5282702e-5 s a layer. The dense MLP: up and down, 2 x 4096 x 8192 x 2048 FLOP each at 0.8 x 1000
    // TFLOP/s (1.7179869e-4 s + 4 us each), and its activation reading and writing 4096 x 8192 x 2 B
    // (7.4565404e-5 s + 4 us): GEMMs 3.5159738e-4 s, memory-bound 7.8565404e-5 s a layer. Nothing of the
    // attention core is recomputed.
    void megatronRecomputeModulesByHand() {
        Device d = handDevice();
        d.efficiency.attention.value = 0.5;
        const ResolvedScenario none = layerScenario(d);
        ResolvedScenario modules = none;
        Workload& w = modules.scenario.workload;
        w.recompute = Recompute::Selective;
        w.recompute_modules = {false, true, true, false, false, false};
        const StageCost a = stageCost(none, 0), b = stageCost(modules, 0);
        QCOMPARE(b.forward_s, a.forward_s);
        QCOMPARE(b.attention_s, a.attention_s);
        CHOREO_VERIFY_NEAR(b.gemm_s - a.gemm_s, 2.0 * 3.5159738e-4, 1e-10);
        CHOREO_VERIFY_NEAR(b.memory_bound_s - a.memory_bound_s, 2.0 * (4.5282702e-5 + 7.8565404e-5), 1e-10);
        QVERIFY(qAbs(b.recompute_s - (b.backward_s - a.backward_s)) < 1e-12);
        // The default module, the attention core, is Megatron-LM's selective: the same cost as before.
        ResolvedScenario core = none;
        core.scenario.workload.recompute = Recompute::Selective;
        const StageCost c = stageCost(core, 0);
        QCOMPARE(c.gemm_s, a.gemm_s);
        QVERIFY(c.attention_s > a.attention_s);
        // The FLOPs: the two MLPs again, 2 x 2 x 32,768 tokens x 2 x 2048 x 8192.
        QCOMPARE(choreo::models::stepFlops(w).recompute, 2.0 * 2.0 * 32768.0 * 2.0 * 2048.0 * 8192.0);
        // The activations a layer keeps: without the norms' 16-bit outputs (2 x 2 B x sbh) and the MLP's
        // intermediates (2 + 2 B x sbf, ungated), sbh = 4096 x 2048, sbf = 4096 x 8192.
        CHOREO_VERIFY_NEAR(layerActivationBytes(none.workload()) - layerActivationBytes(w),
                           4.0 * 4096.0 * 2048.0 + 4.0 * 4096.0 * 8192.0, 1.0);
        // The MoE layer recomputed: its dispatch and combine run again in the backward, its routed tokens'
        // intermediates are not kept, and its router and experts are in the FLOPs again (8 experts of FFN
        // 1024, top 2, the first layer dense, ep 2).
        ResolvedScenario moe = none;
        Workload& m = moe.scenario.workload;
        m.model.moe = MoeShape{8, 2, 1024, 0, 1};
        m.parallel.ep = 2;
        m.recompute = Recompute::Selective;
        m.recompute_modules = {false, false, false, true, false, false};
        ResolvedScenario moeKept = moe;
        moeKept.scenario.workload.recompute = Recompute::None;
        moeKept.scenario.workload.recompute_modules = {};
        const StageCost e = stageCost(moe, 0), f = stageCost(moeKept, 0);
        QCOMPARE(f.ep_collectives_backward, 2);
        QCOMPARE(e.ep_collectives_backward, 4);
        QVERIFY(e.recompute_s > 0.0 && e.gemm_s > f.gemm_s);
        QVERIFY(layerActivationBytes(m) < layerActivationBytes(moeKept.workload()));
        QCOMPARE(choreo::models::stepFlops(m).recompute,
                 2.0 * 32768.0 * (2.0 * 2.0 * 2048.0 * 1024.0 + 2048.0 * 8.0));
    }

    // DeepEP's dispatch against an all-to-all of every token-expert pair, by hand: 128 experts, top 8, ep 32
    // over 4 nodes of 8 (4 experts a device, 32 a node). A device holds one of a token's experts with
    // probability 1 - C(124, 8) / C(128, 8) = 1 - 0.77001969 = 0.22998031, a node with 1 - C(96, 8) /
    // C(128, 8) = 0.90725273. Per same-node peer: 4 nodes x 0.22998031 tokens (its own and those forwarded
    // from each other node) against 8 / 32, 3.6796850 times as much over the scale-up fabric; per other-node
    // peer: 3 nodes x 0.90725273 tokens over the 24 of them against 8 / 32, 0.45362637 of the network bytes.
    // Inside one node (ep 8, 16 experts a device): 0.66741961 of the bytes, a token sent once a device.
    void deepEpDispatchByHand() {
        Workload w = small();
        w.model.moe = MoeShape{128, 8, 1024, 0, 0};
        w.parallel.ep = 32;
        QCOMPARE(expertDispatchScale(w, 8).same_node, 1.0); // the all-to-all dispatcher
        w.ep_dispatcher = EpDispatcher::DeepEp;
        const AllToAllScale across = expertDispatchScale(w, 8);
        CHOREO_VERIFY_NEAR(across.same_node, 3.6796850, 1e-7);
        CHOREO_VERIFY_NEAR(across.other_node, 0.45362637, 1e-8);
        w.parallel.ep = 8;
        const AllToAllScale inside = expertDispatchScale(w, 8);
        CHOREO_VERIFY_NEAR(inside.same_node, 0.66741961, 1e-8);
        QCOMPARE(inside.other_node, 1.0);
        // Top 1 sends each token to one device whatever the dispatcher.
        w.model.moe->top_k = 1;
        CHOREO_VERIFY_NEAR(expertDispatchScale(w, 8).same_node, 1.0, 1e-12);
    }

    // The fp32 cross-entropy over the vocabulary, by hand: 38 bytes a logit forward (cast, max, subtract,
    // exp, sum, divide) and 14 backward (scale, cast back). Doubling the vocabulary of the two-layer model
    // from 32,000 to 64,000 adds 4096 tokens x 32,000 logits x 52 B = 6,815,744,000 B at 0.9 * 2 TB/s =
    // 3.786524e-3 s of memory-bound time (the kernel overheads do not change), 38/52 of it in forward.
    void crossEntropyByHand() {
        Device d = handDevice();
        d.efficiency.attention.value = 0.5;
        const ResolvedScenario base = layerScenario(d);
        ResolvedScenario wide = base;
        wide.scenario.workload.model.vocab = 64000;
        const StageCost a = stageCost(base, 0), b = stageCost(wide, 0);
        CHOREO_VERIFY_NEAR(b.memory_bound_s - a.memory_bound_s, 3.786524e-3, 1e-9);
        const double logitsGemm = b.gemm_s / 3.0 - a.gemm_s / 3.0; // forward logits GEMM, the rest cancels
        QVERIFY(qAbs(b.forward_s - a.forward_s - logitsGemm - 3.786524e-3 * 38 / 52) < 1e-9);
    }

    // Wave quantization on an A100 (108 SMs), by hand:
    //   6912 x 2048 (the NVIDIA guide's example): 27 x 16 = 432 tiles of 256 x 128 = 4 full waves -> 1.
    //   2048 x 2304: 256 x 128 tiles 8 x 18 = 144 -> 2 waves, 4,718,592 / (2 * 108 * 32,768) = 0.6667;
    //   128 x 128 tiles 16 x 18 = 288 -> 3 waves, 4,718,592 / (3 * 108 * 16,384) = 0.8889, the best.
    //   1792 x 1792: 98 tiles of 256 x 128 in one wave, 3,211,264 / (108 * 32,768) = 0.9074.
    // A GEMM 2048 x 2304 x 2304 on the device below with 108 SMs: 2.17433e10 FLOP at
    // 0.8 * 0.888889 * 1e15 = 3.05765e-5 s (compute-bound), + 4e-6 s.
    void waveQuantizationByHand() {
        QCOMPARE(gemmWaveUtilization(108, 6912, 2048), 1.0);
        QVERIFY(qAbs(gemmWaveUtilization(108, 2048, 2304) - 8.0 / 9.0) < 1e-12);
        QVERIFY(qAbs(gemmWaveUtilization(108, 1792, 1792) - 3211264.0 / (108.0 * 32768.0)) < 1e-12);
        QCOMPARE(gemmWaveUtilization(0, 2048, 2304), 1.0); // no compute units: no wave model
        Device d = handDevice();
        QVERIFY(qAbs(gemmTime(d, Precision::Bf16, 2048, 2304, 2304) - (2.17432719e10 / 8e14 + 4e-6)) < 1e-9);
        d.compute_units = {108, "TEST", ""};
        QVERIFY(qAbs(gemmTime(d, Precision::Bf16, 2048, 2304, 2304) - 3.45765e-5) < 1e-9);
    }

    // Mixtral 8x7B: 46.7B parameters, 12.9B active (Mistral AI's figures). By hand: attention
    // 4096 * (4096 + 2 * 1024) + 4096^2 = 41,943,040; an expert 3 * 4096 * 14336 = 176,160,768; router
    // 4096 * 8; norms 2 * 4096; per layer with all 8 experts and 32 layers plus 2 * 32000 * 4096 + 4096:
    // 46,702,792,704 total; with 2 experts: 12,879,925,248 active.
    // With tp 2, ep 4, pp 2, chunk 0 holds 16 layers: attention / 2, norms, 8 / 4 experts / 2, the router,
    // and the embedding / 2: 3,220,307,968.
    void mixtureOfExperts() {
        Workload w = small();
        w.model = {"mixtral", 32, 4096, 32, 8, 14336, true, 32000, 4096, MoeShape{8, 2, 14336, 0, 0}};
        const auto p = countParameters(w.model);
        QCOMPARE(p.total(), 46702792704.0);
        QCOMPARE(p.active(), 12879925248.0);
        w.parallel = {.tp = 2, .pp = 2, .dp = 4, .ep = 4};
        QCOMPARE(parametersPerChunk(w, 0), 3220307968.0);
        // FLOPs follow the active parameters: 2 * tokens * active matrices per layer.
        const auto moe = moeLayerForwardFlops(w.model, 1.0);
        QCOMPARE(moe.gemm, 2.0 * (41943040.0 + 2 * 176160768.0 + 32768.0));
        // Dense first layers have no experts.
        w.model.moe->dense_layers = 3;
        QCOMPARE(moeLayersInChunk(w, 0), std::int64_t(13));
        QCOMPARE(moeLayersInChunk(w, 1), std::int64_t(16));
        QCOMPARE(countParameters(w.model).moe_layers, std::int64_t(29));
    }

    // Expert tensor parallelism 1 (Megatron-Core's MoE parallel folding): the Mixtral above with tp 2,
    // pp 2, dp 4, ep 4 and etp 1. Chunk 0's 16 layers keep attention / 2, the norms, the router and 8 / 4
    // whole experts: 16 * (20,971,520 + 8,192 + 32,768 + 2 * 176,160,768) = 5,973,344,256, plus the
    // embedding / 2 (65,536,000): 6,038,880,256, of which the experts are 5,637,144,576. ZeRO-1 shards the
    // experts' optimizer states over the expert data-parallel group, tp * dp / (etp * ep) = 2 devices, the
    // rest over dp = 4: (401,735,680 / 4 + 5,637,144,576 / 2) * 12 B = 35.028074496 GB. With etp = tp the
    // experts are 2,818,572,288 of 3,220,307,968 and their group is 2 * 4 / (2 * 4) = 1: not sharded,
    // (401,735,680 / 4 + 2,818,572,288) * 12 B = 35.028074496 GB again.
    void expertTensorParallelByHand() {
        Workload w = small();
        w.model = {"mixtral", 32, 4096, 32, 8, 14336, true, 32000, 4096, MoeShape{8, 2, 14336, 0, 0}};
        w.parallel = {.tp = 2, .pp = 2, .dp = 4, .sequence_parallel = true, .ep = 4, .etp = 1, .zero = 1};
        QCOMPARE(w.parallel.expertTp(), std::int64_t(1));
        QCOMPARE(w.parallel.expertDataParallelGroup(), std::int64_t(2));
        QCOMPARE(parametersPerChunk(w, 0), 6038880256.0);
        QCOMPARE(expertParametersPerChunk(w, 0), 5637144576.0);
        CHOREO_VERIFY_NEAR(memoryForStage(w, 0).optimizer_GB, 35.028074496, 1e-9);
        w.parallel.etp = 0;
        QCOMPARE(w.parallel.expertDataParallelGroup(), std::int64_t(1));
        QCOMPARE(expertParametersPerChunk(w, 0), 2818572288.0);
        QCOMPARE(parametersPerChunk(w, 0), 3220307968.0);
        CHOREO_VERIFY_NEAR(memoryForStage(w, 0).optimizer_GB, 35.028074496, 1e-9);
    }

    // The expert GEMMs of one MoE layer at their shapes, on the hand device: the layer scenario's 4,096
    // tokens, 8 experts of FFN 1,024 (plain), top 2, tp 2, ep 4. With etp = tp the tensor group's
    // 4,096 x 2 routed tokens go to the device's 2 experts, 4,096 each, through matrices split in two:
    // 2 x (gemm(4096, 512, 2048) + gemm(4096, 2048, 512)). With etp 1 the device routes its own 2,048
    // tokens (sequence parallel) x 2, 2,048 an expert, through whole matrices: 2 x (gemm(2048, 1024, 2048)
    // + gemm(2048, 2048, 1024)). Forward and backward 3 x, 2 layers. Permuting tokens to and from expert
    // order reads and writes 4 x routed x hidden x 2 B: 4 x 4,096 x 2,048 x 2 B = 67,108,864 B fewer with
    // etp 1, 3.72827e-5 s at 1.8 TB/s, x 3 x 2 layers: 2.236962e-4 s.
    void expertTensorParallelStepByHand() {
        Device d = handDevice();
        d.efficiency.attention.value = 0.5;
        ResolvedScenario split = layerScenario(d);
        Workload& w = split.scenario.workload;
        w.model.moe = MoeShape{8, 2, 1024, 0, 0};
        w.parallel = {.tp = 2, .dp = 4, .sequence_parallel = true, .ep = 4};
        ResolvedScenario folded = split;
        folded.scenario.workload.parallel.etp = 1;
        const StageCost a = stageCost(split, 0), b = stageCost(folded, 0);
        auto g = [&](double m, double n, double k) { return gemmTime(d, Precision::Bf16, m, n, k); };
        const double splitExperts = 2 * (g(4096, 512, 2048) + g(4096, 2048, 512));
        const double wholeExperts = 2 * (g(2048, 1024, 2048) + g(2048, 2048, 1024));
        CHOREO_VERIFY_NEAR(b.gemm_s - a.gemm_s, 2 * 3 * (wholeExperts - splitExperts), 1e-12);
        QVERIFY(wholeExperts != splitExperts); // the shapes differ in their memory-bound share
        CHOREO_VERIFY_NEAR(a.memory_bound_s - b.memory_bound_s, 2.236962e-4, 1e-9);
        QCOMPARE(b.ep_bytes, a.ep_bytes); // each device sends its own tokens either way
        // Tensor collectives: two a layer and the logits' one, 5; with whole experts and no shared expert
        // the MoE layers' FFN has none: 3.
        QCOMPARE(a.tp_collectives_forward, 5);
        QCOMPARE(b.tp_collectives_forward, 3);
        // Expert gradients: 8 x 2 x 2048 x 1024 = 33,554,432 expert parameters a layer. Split (etp 2), a
        // device holds 1/8 of them and each has one copy (2 x 4 / (2 x 4) = 1): none reduced. Whole
        // (etp 1), a device holds 1/4, 2 layers: 16,777,216, with 2 copies, reduced as a ring of 2 against
        // the data-parallel ring of 4: x (1/2) / (3/4), at 4 B: 44,739,242.67 B more.
        CHOREO_VERIFY_NEAR(b.grad_bytes - a.grad_bytes, 16777216.0 * 2.0 / 3.0 * 4.0, 1e-3);
    }

    // Transformer Engine's windows (layer_window_map): 40 of 80 layers, w_k = 2(k + 1) - 1, so window 0 is
    // layer 1 alone and every later one two layers; 92 of 126 (Megatron-Bridge's GB200 Llama 3.1 405B
    // recipe): 126 // 92 = 1 with 34 over, w_k = 2k + 1 for k < 34, then w_k = k + 34: window 0 one layer,
    // 33 windows of two, 58 of one; they cover layers 1 .. 125. The wait: each copy less its window's time.
    // The combined 1F1B's four phases, each the larger of a computation and half of the other operation's
    // all-to-alls: forward attention 1 | backward combine 1 (of 2), backward MLP 4 | forward dispatch 3 (of
    // 6), forward MLP 2 | backward dispatch 1, backward attention 3 | forward combine 3: 1 + 4 + 2 + 3 = 10,
    // against 1 + 2 + 3 + 4 + 6 + 2 = 18 in turn. With all-to-alls of 10 each, they set every phase: 20.
    void pairedPhasesByHand() {
        QCOMPARE(pairedSeconds(1.0, 2.0, 3.0, 4.0, 6.0, 2.0), 10.0);
        QCOMPARE(pairedSeconds(1.0, 1.0, 1.0, 1.0, 10.0, 10.0), 20.0);
        QCOMPARE(pairedSeconds(1.0, 2.0, 3.0, 4.0, 0.0, 0.0), 10.0); // nothing to hide: the computation
    }

    void activationOffloadWindowsByHand() {
        std::vector<std::int64_t> forty(40, 2);
        forty[0] = 1;
        QCOMPARE(offloadWindows(40, 80), forty);
        std::vector<std::int64_t> ninetyTwo(92, 1);
        for (std::size_t k = 1; k <= 33; ++k)
            ninetyTwo[k] = 2;
        QCOMPARE(offloadWindows(92, 126), ninetyTwo);
        QCOMPARE(offloadWindows(1, 3), std::vector<std::int64_t>{2});
        QVERIFY(offloadWindows(0, 80).empty());
        QVERIFY(offloadWindows(80, 80).empty());
        // copies of 3 s against windows of 1, 2 and 2 layers of 1 s: 2 + 1 + 1 s of waiting.
        QCOMPARE(offloadWaitSeconds({1, 2, 2}, 3.0, 1.0), 4.0);
        QCOMPARE(offloadWaitSeconds({1, 2, 2}, 0.5, 1.0), 0.0);
        QCOMPARE(offloadWaitSeconds({1, 2, 2}, 1.5, 1.0), 0.5); // only the one-layer window waits
    }

    // The attention test model (34 sbh of activations a layer: norm inputs 4, dropout masks 2, QKV and FC1
    // inputs 4, Q K V 6, attention output 2, FFN 16; sbh = 4096 x 2048) offloading 1 of its 3 layers over a
    // 1 GB/s host link: one window of two layers, so the forward waits the copy less two layers' forward and
    // the backward the copy less two layers' backward, a layer's time being the 3-layer model's less the
    // 2-layer one's.
    void activationOffloadStepByHand() {
        Device d = handDevice();
        d.efficiency.attention.value = 0.5;
        d.host_link_GBps.value = 1.0;
        ResolvedScenario two = layerScenario(d);
        ResolvedScenario three = layerScenario(d);
        three.scenario.workload.model.layers = 3;
        const double bytes = 34.0 * 4096 * 2048;
        QCOMPARE(layerActivationBytes(three.scenario.workload), bytes);
        const StageCost base2 = stageCost(two, 0), base3 = stageCost(three, 0);
        ResolvedScenario offloading = three;
        offloading.scenario.workload.activation_offload_layers = 1;
        const StageCost off = stageCost(offloading, 0);
        const double copy = bytes / 1e9;
        const double layerFwd = base3.forward_s - base2.forward_s;
        const double layerBwd = base3.backward_s - base2.backward_s;
        CHOREO_VERIFY_NEAR(off.forward_s - base3.forward_s, copy - 2.0 * layerFwd, 1e-12);
        CHOREO_VERIFY_NEAR(off.backward_s - base3.backward_s, copy - 2.0 * layerBwd, 1e-12);
        CHOREO_VERIFY_NEAR(off.offload_wait_s, 2.0 * copy - 2.0 * (layerFwd + layerBwd), 1e-12);
        QCOMPARE(off.gemm_s, base3.gemm_s); // the computation itself is unchanged
        // A host link fast enough hides every copy.
        d.host_link_GBps.value = 1e6;
        QCOMPARE(stageCost(offloading, 0).forward_s, base3.forward_s);
        QCOMPARE(stageCost(offloading, 0).offload_wait_s, 0.0);
    }

    // Offloading 2 of 4 layers keeps 2 layers' activations on the device, and either the layer whose copy
    // runs or the logits (6 bytes each), never both: the last copy to the host ends with the last layer,
    // before the logits, and the first reload starts after their gradient is gone. With small()'s 32,000
    // logits a token (393 MB) above a layer's 34 sbh (71 MB), two layers less; with a vocabulary of 100 the
    // layer in flight counts instead, and the logits go.
    void activationOffloadMemoryByHand() {
        Workload w = small();
        w.model.layers = 4;
        const double layer = layerActivationBytes(w);
        QCOMPARE(layer, 34.0 * 2048 * 1024);
        const MemoryBreakdown before = memoryForStage(w, 0);
        w.activation_offload_layers = 2;
        const MemoryBreakdown after = memoryForStage(w, 0);
        CHOREO_VERIFY_NEAR(before.activations_GB - after.activations_GB, 2.0 * layer / 1e9, 1e-12);
        QCOMPARE(after.weights_GB, before.weights_GB);
        w.model.vocab = 100;
        const double logits = 6.0 * 2048 * 100;
        CHOREO_VERIFY_NEAR(memoryForStage(w, 0).activations_GB, 3.0 * layer / 1e9, 1e-12);
        w.activation_offload_layers = 0;
        CHOREO_VERIFY_NEAR(memoryForStage(w, 0).activations_GB, (4.0 * layer + logits) / 1e9, 1e-12);
    }

    // Every window count covers layers 1 .. L-1, whatever N.
    void activationOffloadWindowsCoverTheLayers() {
        for (std::int64_t layers = 2; layers <= 130; ++layers)
            for (std::int64_t offloaded = 1; offloaded < layers; ++offloaded) {
                const auto windows = offloadWindows(offloaded, layers);
                QCOMPARE(static_cast<std::int64_t>(windows.size()), offloaded);
                std::int64_t sum = 0;
                for (const std::int64_t window : windows) {
                    QVERIFY(window >= 1);
                    sum += window;
                }
                QCOMPARE(sum, layers - 1);
            }
    }

    void peakIsTheWorstStage() {
        Workload w = small();
        w.parallel = {.pp = 2};
        const auto peak = peakMemory(w);
        QVERIFY(peak.total() >= memoryForStage(w, 0).total());
        QVERIFY(peak.total() >= memoryForStage(w, 1).total());
    }
};

QTEST_APPLESS_MAIN(TestWorkloadMath)
#include "tst_workloadmath.moc"
