// The pipeline view: stages on their pools from the scenario, busy fractions, rates and the bottleneck
// from a result of that scenario, and its edits (a device dropped on a stage, stages added and removed),
// each one undo step.
#include "ui/document.h"
#include "ui/itemmodels/pipelinediagram.h"
#include "ui/pipeline/pipelineview.h"

#include <QTest>
#include <QUndoStack>

#include "tests/ui/testsupport.h"

using namespace Qt::StringLiterals;
using namespace choreo;
using ui::StageKind;

namespace {

models::Scenario shipped(const char* name) {
    models::Diagnostics errors;
    auto s = models::loadScenarioFile(test::assetsDir() / "scenarios" / name, errors);
    if (!s)
        qFatal("%s: %s", name, models::joinDiagnostics(errors).c_str());
    return *s;
}

// A result of the MoE offload scenario as a run would give it: the experts the bottleneck.
models::RunResult moeResult() {
    models::RunResult r;
    r.step_time_s = 8.0;
    r.pools = {{"gpus", "h100-sxm", 64, {"train"}, 0.25, 1.0, 1.0},
               {"experts", "gaudi3", 32, {"experts"}, 0.5, 1.0, 1.0}};
    r.offload = {{"experts", "experts", "scale-out network", 4.0e12, 30.0, 4.0}};
    r.bottleneck = {"experts", "experts", "expert compute", 2.0};
    return r;
}

} // namespace

class TestPipeline : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        catalog_ = test::loadCatalog();
        QVERIFY(catalog_);
    }

    void stagesOnTheirPools() {
        const auto d = ui::pipelineDiagram(shipped("hybrid-moe-offload.json"), nullptr);
        QCOMPARE(d.pools.size(), std::size_t(2));
        QCOMPARE(d.pools[0].stages.size(), std::size_t(1));
        QCOMPARE(d.pools[0].stages[0].kind, StageKind::Train);
        QCOMPARE(d.pools[1].stages[0].kind, StageKind::Experts);
        QCOMPARE(d.arrows.size(), std::size_t(1)); // train to experts, no rate before a run
        QCOMPARE(d.arrows[0].from, 0);
        QCOMPARE(d.arrows[0].to, 1);
        QVERIFY(d.arrows[0].label.isEmpty());
        QVERIFY(!d.pools[0].utilisation);
        // The data stage on the training nodes' host CPUs: drawn on the training pool, no arrow.
        models::Scenario text = shipped("hybrid-multimodal.json");
        text.workload.data->pool.reset();
        const auto host = ui::pipelineDiagram(text, nullptr);
        QCOMPARE(host.pools[0].stages.size(), std::size_t(2));
        QCOMPARE(host.pools[0].stages[1].where, u"host CPUs"_s);
        QVERIFY(host.arrows.empty());
    }

    void resultGivesRatesAndTheBottleneck() {
        const models::RunResult r = moeResult();
        const auto d = ui::pipelineDiagram(shipped("hybrid-moe-offload.json"), &r);
        QCOMPARE(*d.pools[0].utilisation, 0.25);
        QCOMPARE(*d.pools[1].utilisation, 0.5);
        QVERIFY(d.pools[1].stages[0].bottleneck);
        QVERIFY(!d.pools[0].stages[0].bottleneck);
        QCOMPARE(d.arrows[0].label, u"250 GB/s each way"_s); // 4 TB a step, half each way, over 8 s
        QCOMPARE(d.bottleneck, u"experts on experts (expert compute)"_s);
        // How the traffic between the pools was timed, as the result says.
        QCOMPARE(d.traffic, u"experts in closed form"_s);
        models::RunResult flows = r;
        flows.offload[0].simulated = true;
        flows.data_stage = models::DataStageTimes{};
        flows.data_stage->simulated = true;
        QCOMPARE(ui::pipelineDiagram(shipped("hybrid-moe-offload.json"), &flows).traffic,
                 u"data as flows beside the step, experts as flows beside the step"_s);
    }

    void deviceDroppedOnAStageMakesItsPool() {
        ui::Document doc(*catalog_, shipped("hybrid-moe-offload.json"));
        ui::PipelineView view(&doc);
        view.resize(900, 400);
        ui::PipelineCanvas* canvas = view.canvas();
        canvas->resize(900, 300);
        const auto hits = canvas->stageHits();
        QCOMPARE(hits.size(), std::size_t(2));
        QCOMPARE(hits[1].kind, StageKind::Experts);
        QString error;
        // A CPU cannot run experts: refused, nothing changes.
        QVERIFY(!canvas->dropDevice(u"epyc-9654"_s, hits[1].rect.center(), error));
        QVERIFY(error.contains(u"accelerators"_s));
        QCOMPARE(doc.undoStack()->count(), 0);
        // Gaudi 2 takes the experts: a new pool, the stage moved to it, one undo step.
        QVERIFY2(canvas->dropDevice(u"gaudi2"_s, hits[1].rect.center(), error), qPrintable(error));
        QCOMPARE(doc.undoStack()->count(), 1);
        const auto& s = doc.scenario();
        QCOMPARE(s.cluster.pools.size(), std::size_t(3));
        QCOMPARE(s.cluster.pools[2].device, std::string("gaudi2"));
        QCOMPARE(*s.workload.offloaded(models::OffloadTarget::Experts)->pool, s.cluster.pools[2].name);
        QCOMPARE(canvas->diagram().pools[2].stages[0].kind, StageKind::Experts); // redrawn from the document
        doc.undoStack()->undo();
        QCOMPARE(doc.scenario(), shipped("hybrid-moe-offload.json"));
        // Off any stage: nothing.
        QVERIFY(!canvas->dropDevice(u"gaudi2"_s, QPoint(1, 1), error));
    }

    void trainingStageMovesWithTheCount() {
        models::Scenario s = shipped("hybrid-multimodal.json");
        QString error;
        auto moved = ui::placeStageOnNewPool(s, StageKind::Train, *catalog_->find("h200-sxm"), error);
        QVERIFY2(moved, qPrintable(error));
        QCOMPARE(moved->trainingPool()->device, std::string("h200-sxm"));
        QCOMPARE(moved->trainingPool()->count, std::int64_t(64));
        QVERIFY(!ui::placeStageOnNewPool(s, StageKind::Data, *catalog_->find("h100-sxm"), error));
        QVERIFY(error.contains(u"CPUs"_s));
    }

    void stagesAddAndRemoveAsOneUndoStepEach() {
        const models::Scenario original = shipped("hybrid-multimodal.json");
        ui::Document doc(*catalog_, original);
        ui::PipelineView view(&doc);
        QString error;
        QVERIFY(!view.addStage(StageKind::Data, error)); // it has one
        QVERIFY(error.contains(u"already"_s));
        QVERIFY2(view.addStage(StageKind::Optimizer, error), qPrintable(error));
        QCOMPARE(doc.undoStack()->count(), 1);
        const auto* optimizer = doc.scenario().workload.offloaded(models::OffloadTarget::Optimizer);
        QVERIFY(optimizer && !optimizer->pool);           // on the host CPUs
        QCOMPARE(optimizer->stage_index, std::size_t(1)); // after the data stage
        QVERIFY(doc.isValid());                           // H100 hosts: two Xeon 8480C per eight GPUs
        QVERIFY2(view.removeStage(StageKind::Data, error), qPrintable(error));
        QVERIFY(!doc.scenario().workload.data);
        QVERIFY(!view.removeStage(StageKind::Train, error));
        doc.undoStack()->undo();
        doc.undoStack()->undo();
        QCOMPARE(doc.scenario(), original);
    }

    // The embedding table joins the data stage's CPU pool; a GPU dropped on it is refused, a CPU makes it
    // a pool of its own.
    void embeddingsOnTheDataStagesCpus() {
        const models::Scenario original = shipped("hybrid-multimodal.json");
        ui::Document doc(*catalog_, original);
        ui::PipelineView view(&doc);
        QString error;
        QVERIFY2(view.addStage(StageKind::Embeddings, error), qPrintable(error));
        QCOMPARE(doc.undoStack()->count(), 1);
        const auto* table = doc.scenario().workload.offloaded(models::OffloadTarget::Embeddings);
        QVERIFY(table && table->pool);
        QCOMPARE(*table->pool, std::string("preprocess"));
        QVERIFY(doc.isValid());
        const auto d = ui::pipelineDiagram(doc.scenario(), nullptr);
        QCOMPARE(d.pools[1].stages.size(), std::size_t(2));
        QCOMPARE(d.pools[1].stages[1].kind, StageKind::Embeddings);
        // Each arrow beside its own stage, so that two between the same pools do not overlap.
        QCOMPARE(d.arrows.size(), std::size_t(2));
        QCOMPARE(d.arrows[0].row, 0);
        QCOMPARE(d.arrows[1].row, 1);
        QCOMPARE(d.arrows[1].from, 0); // from the training pool to the table's
        QVERIFY(!view.addStage(StageKind::Embeddings, error));
        QVERIFY(error.contains(u"already"_s));
        QVERIFY(!ui::placeStageOnNewPool(doc.scenario(), StageKind::Embeddings, *catalog_->find("h100-sxm"),
                                         error));
        QVERIFY(error.contains(u"CPUs"_s));
        auto moved = ui::placeStageOnNewPool(doc.scenario(), StageKind::Embeddings,
                                             *catalog_->find("epyc-9654"), error);
        QVERIFY2(moved, qPrintable(error));
        QCOMPARE(*moved->workload.offloaded(models::OffloadTarget::Embeddings)->pool,
                 moved->cluster.pools.back().name);
        doc.undoStack()->undo();
        QCOMPARE(doc.scenario(), original);
    }

    void evalOnItsOwnPool() {
        QString error;
        auto s = ui::addStage(shipped("hybrid-multimodal.json"), StageKind::Eval, error);
        QVERIFY2(s, qPrintable(error));
        QCOMPARE(ui::pipelineDiagram(*s, nullptr).pools[0].stages.back().kind, StageKind::Eval);
        auto moved = ui::placeStageOnNewPool(*s, StageKind::Eval, *catalog_->find("l40s"), error);
        QVERIFY2(moved, qPrintable(error));
        const auto d = ui::pipelineDiagram(*moved, nullptr);
        QCOMPARE(d.pools.size(), std::size_t(3));
        QCOMPARE(d.pools[2].stages[0].kind, StageKind::Eval);
        QCOMPARE(d.arrows.back().label, u"weights every 1000 steps"_s);
        QVERIFY(!ui::placeStageOnNewPool(*s, StageKind::Eval, *catalog_->find("epyc-9654"), error));
    }

private:
    std::optional<models::Catalog> catalog_;
};

QTEST_MAIN(TestPipeline)
#include "tst_pipeline.moc"
