#include "ui/workload/serveeditor.h"

#include "models/servestageio.h"
#include "ui/editids.h"
#include "ui/formfields.h"
#include "ui/formgrid.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QGridLayout>
#include <QGroupBox>
#include <QSpinBox>
#include <QVBoxLayout>

#include <cmath>
#include <limits>

using namespace Qt::StringLiterals;

namespace choreo::ui {

namespace {

constexpr int kIntMax = std::numeric_limits<int>::max();

QComboBox* precisionCombo(bool kvCache) {
    auto* box = new QComboBox;
    if (kvCache)
        box->addItem(QObject::tr("as the weights"), -1); // 8-bit weights keep an 8-bit cache, others bf16
    for (models::Precision p : models::servePrecisions(kvCache))
        box->addItem(QString::fromStdString(models::toString(p)), static_cast<int>(p));
    return box;
}

// A count whose 0 means "not set" and reads `unsetText`.
QSpinBox* optionalCount(std::int64_t maximum, const QString& unsetText) {
    auto* box = new QSpinBox;
    box->setRange(0, static_cast<int>(std::min<std::int64_t>(maximum, kIntMax)));
    box->setSpecialValueText(unsetText);
    box->setKeyboardTracking(false);
    box->setAlignment(Qt::AlignRight);
    return box;
}

QSpinBox* parallelSpin() {
    QSpinBox* box = formfields::countSpin(static_cast<int>(models::kMaxServeParallel));
    return box;
}

// Seconds as the file holds them, milliseconds as people read SLOs.
std::optional<double> msToSeconds(const QDoubleSpinBox* box) {
    const auto ms = formfields::optionalValue(box);
    if (!ms)
        return std::nullopt;
    return *ms / 1e3;
}

} // namespace

ServeEditor::ServeEditor(Document* document, FieldMarks* marks, QWidget* parent)
    : ScenarioForm(document, marks, parent) {
    createWidgets();
    layOut();
    connectEdits();
    refresh();
}

void ServeEditor::createWidgets() {
    engine_ = new QComboBox;
    for (const auto& e : document()->catalog().engines())
        engine_->addItem(QString::fromStdString(e.name.empty() ? e.id : e.name),
                         QString::fromStdString(e.id));
    weights_ = precisionCombo(false);
    kvCache_ = precisionCombo(true);
    tp_ = parallelSpin();
    pp_ = parallelSpin();
    ep_ = parallelSpin();
    replicas_ = optionalCount(models::kMaxServeReplicas, tr("auto"));
    arrival_ = new QComboBox;
    for (auto a : {models::Arrival::Poisson, models::Arrival::Offline, models::Arrival::Trace})
        arrival_->addItem(QString::fromStdString(models::toString(a)), static_cast<int>(a));
    rate_ = formfields::numberSpin(0.0, models::kMaxRequestRate, 2, tr(" req/s"));
    duration_ = formfields::numberSpin(0.0, models::kMaxStreamSeconds, 1, tr(" s"));
    count_ = optionalCount(models::kMaxServeRequests, tr("auto"));
    seed_ = new QSpinBox;
    seed_->setRange(0, kIntMax);
    seed_->setKeyboardTracking(false);
    seed_->setAlignment(Qt::AlignRight);
    inputMean_ = formfields::numberSpin(1.0, static_cast<double>(models::kMaxRequestTokens), 0, tr(" tok"));
    outputMean_ = formfields::numberSpin(1.0, static_cast<double>(models::kMaxRequestTokens), 0, tr(" tok"));
    ttftSlo_ = formfields::optionalSpin(models::kMaxSloSeconds * 1e3, 1, tr(" ms"), tr("none"));
    tpotSlo_ = formfields::optionalSpin(models::kMaxSloSeconds * 1e3, 2, tr(" ms"), tr("none"));
    targetRate_ = formfields::optionalSpin(models::kMaxRequestRate, 2, tr(" req/s"), tr("none"));
    horizon_ = formfields::numberSpin(0.0, models::kMaxHorizonMonths, 1, tr(" mo"));

    const std::pair<QWidget*, const char*> named[] = {{engine_, "serveEngineCombo"},
                                                      {weights_, "serveWeightsCombo"},
                                                      {kvCache_, "serveKvCacheCombo"},
                                                      {tp_, "serveTpSpin"},
                                                      {pp_, "servePpSpin"},
                                                      {ep_, "serveEpSpin"},
                                                      {replicas_, "serveReplicasSpin"},
                                                      {arrival_, "serveArrivalCombo"},
                                                      {rate_, "serveRateSpin"},
                                                      {duration_, "serveDurationSpin"},
                                                      {count_, "serveCountSpin"},
                                                      {seed_, "serveSeedSpin"},
                                                      {inputMean_, "serveInputSpin"},
                                                      {outputMean_, "serveOutputSpin"},
                                                      {ttftSlo_, "serveTtftSloSpin"},
                                                      {tpotSlo_, "serveTpotSloSpin"},
                                                      {targetRate_, "serveTargetSpin"},
                                                      {horizon_, "serveHorizonSpin"}};
    // As narrow as a six-digit count: the window sizes the editor column for the training forms, and the
    // file's wide ranges (a rate up to 10^6 requests/s) would otherwise widen this form past it.
    QSpinBox reference;
    reference.setRange(1, 999999);
    const int width = reference.minimumSizeHint().width();
    for (const auto& [widget, name] : named) {
        widget->setObjectName(QString::fromLatin1(name));
        widget->setMinimumWidth(width);
        if (auto* combo = qobject_cast<QComboBox*>(widget)) {
            combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
            combo->setMinimumContentsLength(6);
        }
    }
    engine_->setToolTip(tr("The serving engine whose scheduling and defaults the replicas follow (catalog)"));
    kvCache_->setToolTip(tr("Precision of the KV cache; by default 8-bit weights keep an 8-bit cache, "
                            "others bf16"));
    replicas_->setToolTip(tr("Model replicas behind the load balancer; by default the pool's devices / "
                             "(TP x PP)"));
    count_->setToolTip(tr("Requests the stream sends; by default the rate times the duration (Poisson)"));
    seed_->setToolTip(tr("Draws of arrivals and lengths: the same seed, the same requests"));
    inputMean_->setToolTip(tr("Mean prompt length; the distribution's shape stays as the file sets it"));
    outputMean_->setToolTip(tr("Mean output length; the distribution's shape stays as the file sets it"));
    ttftSlo_->setToolTip(tr("Bound on the 99th percentile of time to first token; with an SLO, the run "
                            "searches the highest rate that meets it"));
    tpotSlo_->setToolTip(tr("Bound on the 99th percentile of time per output token"));
    targetRate_->setToolTip(tr("The devices this rate needs are reported"));
    horizon_->setToolTip(tr("Serving cost and energy over this many months (train here, serve there)"));
}

void ServeEditor::layOut() {
    auto* box = new QGroupBox(tr("Serving"));
    box->setObjectName(u"serveGroup"_s);
    FormGrid form(new QGridLayout(box));
    form.add(tr("Engine"), engine_);
    form.add(tr("Weights"), weights_);
    form.add(tr("KV cache"), kvCache_);
    form.add(tr("Replicas"), replicas_);
    form.add(tr("TP"), tp_);
    form.add(tr("PP"), pp_);
    form.add(tr("EP"), ep_);
    form.add(tr("Arrival"), arrival_);
    form.add(tr("Rate"), rate_);
    form.add(tr("Duration"), duration_);
    form.add(tr("Requests"), count_);
    form.add(tr("Seed"), seed_);
    form.add(tr("Input"), inputMean_);
    form.add(tr("Output"), outputMean_);
    form.add(tr("TTFT p99"), ttftSlo_);
    form.add(tr("TPOT p99"), tpotSlo_);
    form.add(tr("Target"), targetRate_);
    form.add(tr("Horizon"), horizon_);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(box);
}

void ServeEditor::changeStage(int mergeId, const QString& description,
                              const std::function<void(models::ServeStage&)>& mutate) {
    if (!document()->scenario().workload.serve)
        return;
    change(mergeId, description, [&mutate](models::Scenario& s) { mutate(*s.workload.serve); });
}

void ServeEditor::connectEdits() {
    auto onCombo = [this](QComboBox* box, const QString& description,
                          std::function<void(models::ServeStage&, const QVariant&)> apply) {
        connect(box, &QComboBox::activated, this, [this, box, description, apply] {
            changeStage(NoMerge, description, [&](models::ServeStage& st) { apply(st, box->currentData()); });
        });
    };
    onCombo(engine_, tr("Change serving engine"),
            [](models::ServeStage& st, const QVariant& v) { st.engine = v.toString().toStdString(); });
    onCombo(weights_, tr("Change weight precision"), [](models::ServeStage& st, const QVariant& v) {
        st.weights = static_cast<models::Precision>(v.toInt());
    });
    onCombo(kvCache_, tr("Change KV-cache precision"), [](models::ServeStage& st, const QVariant& v) {
        if (v.toInt() < 0)
            st.kv_cache.reset();
        else
            st.kv_cache = static_cast<models::Precision>(v.toInt());
    });
    onCombo(arrival_, tr("Change arrivals"), [](models::ServeStage& st, const QVariant& v) {
        st.requests.arrival = static_cast<models::Arrival>(v.toInt());
    });
    auto onCount = [this](QSpinBox* box, int mergeId, const QString& description,
                          std::function<void(models::ServeStage&, int)> apply) {
        connect(box, &QSpinBox::valueChanged, this, [this, mergeId, description, apply](int v) {
            changeStage(mergeId, description, [&](models::ServeStage& st) { apply(st, v); });
        });
    };
    onCount(tp_, EditServeTp, tr("Change serving TP"),
            [](models::ServeStage& st, int v) { st.parallel.tp = v; });
    onCount(pp_, EditServePp, tr("Change serving PP"),
            [](models::ServeStage& st, int v) { st.parallel.pp = v; });
    onCount(ep_, EditServeEp, tr("Change serving EP"),
            [](models::ServeStage& st, int v) { st.parallel.ep = v; });
    onCount(replicas_, EditServeReplicas, tr("Change replicas"), [](models::ServeStage& st, int v) {
        st.replicas = v > 0 ? std::optional<std::int64_t>(v) : std::nullopt;
    });
    onCount(count_, EditServeCount, tr("Change request count"),
            [](models::ServeStage& st, int v) { st.requests.count = v; });
    onCount(seed_, EditServeSeed, tr("Change seed"),
            [](models::ServeStage& st, int v) { st.requests.seed = v; });
    auto onNumber = [this](QDoubleSpinBox* box, int mergeId, const QString& description,
                           std::function<void(models::ServeStage&, const QDoubleSpinBox*)> apply) {
        connect(box, &QDoubleSpinBox::valueChanged, this, [this, box, mergeId, description, apply] {
            changeStage(mergeId, description, [&](models::ServeStage& st) { apply(st, box); });
        });
    };
    onNumber(rate_, EditServeRate, tr("Change request rate"),
             [](models::ServeStage& st, const QDoubleSpinBox* b) { st.requests.rate_per_s = b->value(); });
    onNumber(duration_, EditServeDuration, tr("Change stream duration"),
             [](models::ServeStage& st, const QDoubleSpinBox* b) { st.requests.duration_s = b->value(); });
    onNumber(inputMean_, EditServeInputMean, tr("Change input length"),
             [](models::ServeStage& st, const QDoubleSpinBox* b) { st.requests.input.mean = b->value(); });
    onNumber(outputMean_, EditServeOutputMean, tr("Change output length"),
             [](models::ServeStage& st, const QDoubleSpinBox* b) { st.requests.output.mean = b->value(); });
    onNumber(ttftSlo_, EditServeTtftSlo, tr("Change TTFT SLO"),
             [](models::ServeStage& st, const QDoubleSpinBox* b) { st.slo.ttft_p99_s = msToSeconds(b); });
    onNumber(tpotSlo_, EditServeTpotSlo, tr("Change TPOT SLO"),
             [](models::ServeStage& st, const QDoubleSpinBox* b) { st.slo.tpot_p99_s = msToSeconds(b); });
    onNumber(targetRate_, EditServeTargetRate, tr("Change target rate"),
             [](models::ServeStage& st, const QDoubleSpinBox* b) {
                 st.target_rate_per_s = formfields::optionalValue(b);
             });
    onNumber(horizon_, EditServeHorizon, tr("Change serving horizon"),
             [](models::ServeStage& st, const QDoubleSpinBox* b) { st.horizon_months = b->value(); });
}

void ServeEditor::markPaths(std::size_t index) {
    if (markedIndex_ == index)
        return;
    markedIndex_ = index;
    const QString stage = u"workload.stages[%1]"_s.arg(index);
    const std::pair<QWidget*, const char*> paths[] = {{engine_, ".engine"},
                                                      {weights_, ".weights"},
                                                      {kvCache_, ".kv_cache"},
                                                      {tp_, ".parallel.tp"},
                                                      {pp_, ".parallel.pp"},
                                                      {ep_, ".parallel.ep"},
                                                      {replicas_, ".replicas"},
                                                      {arrival_, ".requests.arrival"},
                                                      {rate_, ".requests.rate_per_s"},
                                                      {duration_, ".requests.duration_s"},
                                                      {count_, ".requests.count"},
                                                      {seed_, ".requests.seed"},
                                                      {inputMean_, ".requests.input_tokens"},
                                                      {outputMean_, ".requests.output_tokens"},
                                                      {ttftSlo_, ".slo.ttft_p99_s"},
                                                      {tpotSlo_, ".slo.tpot_p99_s"},
                                                      {targetRate_, ".target_rate_per_s"},
                                                      {horizon_, ".horizon_months"}};
    for (const auto& [widget, key] : paths) {
        unmark(widget); // the stage's previous place
        mark(stage + QString::fromLatin1(key), widget);
    }
}

void ServeEditor::refresh() {
    const auto& serve = document()->scenario().workload.serve;
    setVisible(serve.has_value());
    if (!serve)
        return;
    markPaths(serve->stage_index);
    formfields::show(engine_, QString::fromStdString(serve->engine));
    formfields::show(weights_, static_cast<int>(serve->weights));
    formfields::show(kvCache_, serve->kv_cache ? static_cast<int>(*serve->kv_cache) : -1);
    formfields::show(tp_, serve->parallel.tp);
    formfields::show(pp_, serve->parallel.pp);
    formfields::show(ep_, serve->parallel.ep);
    formfields::show(replicas_, serve->replicas.value_or(0));
    const auto& q = serve->requests;
    formfields::show(arrival_, static_cast<int>(q.arrival));
    formfields::show(rate_, q.rate_per_s);
    formfields::show(duration_, q.duration_s);
    formfields::show(count_, q.count);
    formfields::show(seed_, q.seed);
    formfields::show(inputMean_, q.input.mean);
    formfields::show(outputMean_, q.output.mean);
    const auto ms = [](const std::optional<double>& s) {
        return s ? std::optional<double>(*s * 1e3) : std::nullopt;
    };
    formfields::show(ttftSlo_, ms(serve->slo.ttft_p99_s));
    formfields::show(tpotSlo_, ms(serve->slo.tpot_p99_s));
    formfields::show(targetRate_, serve->target_rate_per_s);
    formfields::show(horizon_, serve->horizon_months);
    // A trace sets its own arrivals and lengths: the stream's numbers do not apply; a uniform length is
    // its min and max (the file's), and a percentile table its points, not a mean (the box shows theirs).
    const bool trace = q.arrival == models::Arrival::Trace;
    const auto meanEditable = [trace](const models::TokenLengths& l) {
        return !trace && l.shape != models::LengthShape::Uniform &&
               l.shape != models::LengthShape::Percentiles;
    };
    rate_->setEnabled(!trace);
    duration_->setEnabled(!trace);
    inputMean_->setEnabled(meanEditable(q.input));
    outputMean_->setEnabled(meanEditable(q.output));
}

} // namespace choreo::ui
