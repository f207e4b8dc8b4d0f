#include "ui/workload/workloadeditor.h"

#include "ui/editids.h"
#include "ui/formfields.h"
#include "ui/formgrid.h"
#include "ui/workload/memorybar.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QGridLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace choreo::ui {

namespace {

constexpr double kTokensUnit = 1e9; // the form edits billions of tokens

} // namespace

WorkloadEditor::WorkloadEditor(Document* document, FieldMarks* marks, std::vector<ModelPreset> presets,
                               QWidget* parent)
    : ScenarioForm(document, marks, parent)
    , presets_(std::move(presets))
    , preset_(new QComboBox)
    , presetInfo_(new QLabel)
    , memory_(new MemoryBar(document))
    , suggest_(new QPushButton(tr("Suggest…")))
    , modelName_(new QLineEdit)
    , gated_(new QCheckBox(tr("gated (SwiGLU)")))
    , pool_(new QComboBox)
    , tokens_(formfields::numberSpin(0.1, 1e7, 1, u" B"_s))
    , precision_(new QComboBox)
    , recompute_(new QComboBox)
    , sequenceParallel_(new QCheckBox(tr("sequence parallel")))
    , zero_(new QComboBox) {
    preset_->setObjectName(u"presetCombo"_s);
    preset_->addItem(tr("Custom"), QString());
    for (const auto& p : presets_) {
        preset_->addItem(QString::fromStdString(p.shape.name), QString::fromStdString(p.id));
        preset_->setItemData(
            preset_->count() - 1,
            tr("%1 (%2)").arg(QString::fromStdString(p.source), QString::fromStdString(p.as_of)),
            Qt::ToolTipRole);
    }
    presetInfo_->setObjectName(u"presetInfoLabel"_s);
    presetInfo_->setWordWrap(true);
    presetInfo_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont small = presetInfo_->font();
    small.setPointSizeF(small.pointSizeF() * 0.9);
    presetInfo_->setFont(small);
    suggest_->setObjectName(u"suggestLayoutButton"_s);
    suggest_->setToolTip(tr("Find parallel layouts of the training pool that fit in memory, ranked by the "
                            "analytical model (Ctrl+Shift+L)"));
    modelName_->setObjectName(u"modelNameEdit"_s);
    gated_->setObjectName(u"gatedCheck"_s);
    pool_->setObjectName(u"trainingPoolCombo"_s);
    tokens_->setObjectName(u"tokensSpin"_s);
    tokens_->setToolTip(tr("Tokens to train, in billions"));
    precision_->setObjectName(u"precisionCombo"_s);
    recompute_->setObjectName(u"recomputeCombo"_s);
    sequenceParallel_->setObjectName(u"sequenceParallelCheck"_s);
    zero_->setObjectName(u"zeroCombo"_s);
    for (auto p : {models::Precision::Bf16, models::Precision::Fp16, models::Precision::Fp8})
        precision_->addItem(QString::fromStdString(models::toString(p)), static_cast<int>(p));
    for (auto r : {models::Recompute::None, models::Recompute::Selective, models::Recompute::Full})
        recompute_->addItem(QString::fromStdString(models::toString(r)), static_cast<int>(r));
    zero_->addItem(tr("0 (none)"), 0);
    zero_->addItem(tr("1 (optimizer states)"), 1);
    zero_->addItem(tr("2 (+ gradients)"), 2);
    zero_->addItem(tr("3 (+ parameters)"), 3);

    // Model shape.
    auto* modelBox = new QGroupBox(tr("Model"));
    auto* modelGrid = new QGridLayout(modelBox);
    FormGrid model(modelGrid);
    model.addWide(tr("Preset"), preset_);
    model.addWide(QString(), presetInfo_);
    model.addWide(tr("Name"), modelName_);
    model.add(tr("Layers"),
              bindCount(u"layersSpin"_s, u"workload.model.layers"_s, 10000, EditLayers, tr("Change layers"),
                        [](models::Scenario& s) -> std::int64_t& { return s.workload.model.layers; }));
    model.add(tr("Hidden"), bindCount(u"hiddenSpin"_s, u"workload.model.hidden"_s, 1000000, EditHidden,
                                      tr("Change hidden size"), [](models::Scenario& s) -> std::int64_t& {
                                          return s.workload.model.hidden;
                                      }));
    model.add(tr("Heads"),
              bindCount(u"headsSpin"_s, u"workload.model.heads"_s, 100000, EditHeads, tr("Change heads"),
                        [](models::Scenario& s) -> std::int64_t& { return s.workload.model.heads; }));
    model.add(tr("KV heads"), bindCount(u"kvHeadsSpin"_s, u"workload.model.kv_heads"_s, 100000, EditKvHeads,
                                        tr("Change KV heads"), [](models::Scenario& s) -> std::int64_t& {
                                            return s.workload.model.kv_heads;
                                        }));
    model.add(tr("FFN hidden"),
              bindCount(u"ffnHiddenSpin"_s, u"workload.model.ffn_hidden"_s, 10000000, EditFfnHidden,
                        tr("Change FFN size"),
                        [](models::Scenario& s) -> std::int64_t& { return s.workload.model.ffn_hidden; }));
    model.add(QString(), gated_);
    model.add(tr("Vocabulary"), bindCount(u"vocabSpin"_s, u"workload.model.vocab"_s, 100000000, EditVocab,
                                          tr("Change vocabulary"), [](models::Scenario& s) -> std::int64_t& {
                                              return s.workload.model.vocab;
                                          }));
    model.add(tr("Sequence"),
              bindCount(u"seqLenSpin"_s, u"workload.model.seq_len"_s, 100000000, EditSeqLen,
                        tr("Change sequence length"),
                        [](models::Scenario& s) -> std::int64_t& { return s.workload.model.seq_len; }));
    mark(u"workload.model.name"_s, modelName_);
    mark(u"workload.model.ffn_gated"_s, gated_);

    // Training run.
    auto* trainingBox = new QGroupBox(tr("Training"));
    auto* trainingGrid = new QGridLayout(trainingBox);
    FormGrid training(trainingGrid);
    training.addWide(tr("Pool"), pool_);
    training.add(tr("Global batch"),
                 bindCount(u"globalBatchSpin"_s, u"workload.global_batch"_s, 100000000, EditGlobalBatch,
                           tr("Change global batch"),
                           [](models::Scenario& s) -> std::int64_t& { return s.workload.global_batch; }));
    training.add(tr("Micro-batch"),
                 bindCount(u"microBatchSpin"_s, u"workload.micro_batch"_s, 1000000, EditMicroBatch,
                           tr("Change micro-batch"),
                           [](models::Scenario& s) -> std::int64_t& { return s.workload.micro_batch; }));
    training.add(tr("Tokens"), tokens_);
    training.add(tr("Precision"), precision_);
    training.add(tr("Recompute"), recompute_);
    mark(u"workload.pool"_s, pool_);
    mark(u"workload.tokens_to_train"_s, tokens_);
    mark(u"workload.precision"_s, precision_);
    mark(u"workload.recompute"_s, recompute_);

    // Parallel layout.
    auto* parallelBox = new QGroupBox(tr("Parallelism"));
    auto* parallelGrid = new QGridLayout(parallelBox);
    FormGrid parallel(parallelGrid);
    parallel.add(tr("TP"),
                 bindCount(u"tpSpin"_s, u"workload.parallel.tp"_s, 4096, EditTp,
                           tr("Change tensor parallelism"),
                           [](models::Scenario& s) -> std::int64_t& { return s.workload.parallel.tp; }));
    parallel.add(tr("PP"),
                 bindCount(u"ppSpin"_s, u"workload.parallel.pp"_s, 4096, EditPp,
                           tr("Change pipeline parallelism"),
                           [](models::Scenario& s) -> std::int64_t& { return s.workload.parallel.pp; }));
    parallel.add(tr("DP"), bindCount(u"dpSpin"_s, u"workload.parallel.dp"_s, 10000000, EditDp,
                                     tr("Change data parallelism"), [](models::Scenario& s) -> std::int64_t& {
                                         return s.workload.parallel.dp;
                                     }));
    parallel.add(tr("CP"),
                 bindCount(u"cpSpin"_s, u"workload.parallel.cp"_s, 4096, EditCp,
                           tr("Change context parallelism"),
                           [](models::Scenario& s) -> std::int64_t& { return s.workload.parallel.cp; }));
    parallel.add(tr("VP"),
                 bindCount(u"vpSpin"_s, u"workload.parallel.vp"_s, 1024, EditVp,
                           tr("Change virtual pipeline stages"),
                           [](models::Scenario& s) -> std::int64_t& { return s.workload.parallel.vp; }));
    parallel.add(tr("ZeRO"), zero_);
    parallel.add(QString(), sequenceParallel_);
    parallel.add(QString(), suggest_);
    parallel.addWide(QString(), memory_);
    const auto tip = [this](const QString& name, const QString& text) {
        for (auto& [box, field] : counts_)
            if (box->objectName() == name)
                box->setToolTip(text);
    };
    tip(u"tpSpin"_s, tr("Tensor parallelism: each layer split over tp devices of one node"));
    tip(u"ppSpin"_s, tr("Pipeline parallelism: the layers split into pp stages (1F1B schedule)"));
    tip(u"dpSpin"_s, tr("Data parallelism: dp replicas, each on tp*pp*cp devices"));
    tip(u"cpSpin"_s, tr("Context parallelism: each sequence split over cp devices (ring attention)"));
    tip(u"vpSpin"_s, tr("Model chunks per pipeline device; more than 1 interleaves the 1F1B schedule"));
    mark(u"workload.parallel.sequence_parallel"_s, sequenceParallel_);
    mark(u"workload.parallel.zero"_s, zero_);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(modelBox);
    layout->addWidget(trainingBox);
    layout->addWidget(parallelBox);

    connect(preset_, &QComboBox::activated, this, &WorkloadEditor::applyPreset);
    connect(suggest_, &QPushButton::clicked, this, &WorkloadEditor::suggestLayoutRequested);
    connect(modelName_, &QLineEdit::textEdited, this, [this](const QString& text) {
        change(EditModelName, tr("Rename model"),
               [name = text.toStdString()](models::Scenario& s) { s.workload.model.name = name; });
    });
    connect(gated_, &QCheckBox::toggled, this, [this](bool on) {
        change(NoMerge, tr("Toggle gated FFN"),
               [on](models::Scenario& s) { s.workload.model.ffn_gated = on; });
    });
    connect(pool_, &QComboBox::activated, this, [this] {
        const QString name = pool_->currentData().toString();
        change(NoMerge, tr("Change training pool"), [name](models::Scenario& s) {
            if (name.isEmpty())
                s.workload.pool.reset();
            else
                s.workload.pool = name.toStdString();
        });
    });
    connect(tokens_, &QDoubleSpinBox::valueChanged, this, [this](double billions) {
        change(EditTokensToTrain, tr("Change tokens to train"),
               [billions](models::Scenario& s) { s.workload.tokens_to_train = billions * kTokensUnit; });
    });
    connect(precision_, &QComboBox::activated, this, [this] {
        change(NoMerge, tr("Change precision"), [v = precision_->currentData().toInt()](models::Scenario& s) {
            s.workload.precision = static_cast<models::Precision>(v);
        });
    });
    connect(recompute_, &QComboBox::activated, this, [this] {
        change(NoMerge, tr("Change recomputation"),
               [v = recompute_->currentData().toInt()](models::Scenario& s) {
                   s.workload.recompute = static_cast<models::Recompute>(v);
               });
    });
    connect(sequenceParallel_, &QCheckBox::toggled, this, [this](bool on) {
        change(NoMerge, tr("Toggle sequence parallelism"),
               [on](models::Scenario& s) { s.workload.parallel.sequence_parallel = on; });
    });
    connect(zero_, &QComboBox::activated, this, [this] {
        change(NoMerge, tr("Change ZeRO stage"),
               [v = zero_->currentData().toInt()](models::Scenario& s) { s.workload.parallel.zero = v; });
    });
    refresh();
}

QSpinBox* WorkloadEditor::bindCount(const QString& objectName, const QString& path, int maximum, int mergeId,
                                    const QString& description, IntField field) {
    QSpinBox* box = formfields::countSpin(maximum);
    box->setObjectName(objectName);
    mark(path, box);
    counts_.emplace_back(box, field);
    connect(box, &QSpinBox::valueChanged, this, [this, mergeId, description, field](int value) {
        change(mergeId, description, [field, value](models::Scenario& s) { field(s) = value; });
    });
    return box;
}

void WorkloadEditor::applyPreset(int index) {
    const QString id = preset_->itemData(index).toString();
    for (const auto& p : presets_) {
        if (QString::fromStdString(p.id) != id)
            continue;
        change(NoMerge, tr("Apply preset %1").arg(QString::fromStdString(p.shape.name)),
               [shape = p.shape](models::Scenario& s) { s.workload.model = shape; });
        return;
    }
    // "Custom" keeps the shape as it is: it only says that the fields are the user's own.
    refreshPreset();
}

void WorkloadEditor::refreshPreset() {
    const ModelPreset* p = findPreset(presets_, document()->scenario().workload.model);
    formfields::show(preset_, p ? QString::fromStdString(p->id) : QString());
    if (!p) {
        presetInfo_->setText(presets_.empty() ? tr("No presets loaded.")
                                              : tr("Custom shape: edit the fields, or pick a preset."));
        return;
    }
    QString text;
    if (!p->note.empty())
        text = QString::fromStdString(p->note) + u' ';
    text += tr("Source: %1 (%2).").arg(QString::fromStdString(p->source), QString::fromStdString(p->as_of));
    presetInfo_->setText(text);
    presetInfo_->setToolTip(QString::fromStdString(p->url));
}

void WorkloadEditor::refreshPools() {
    const auto& s = document()->scenario();
    QStringList names;
    for (const auto& p : s.cluster.pools)
        names << QString::fromStdString(p.name);
    QStringList shown;
    for (int i = 1; i < pool_->count(); ++i)
        shown << pool_->itemData(i).toString();
    if (names != shown || pool_->count() == 0) {
        const QSignalBlocker block(pool_);
        pool_->clear();
        pool_->addItem(tr("first pool"), QString());
        for (const QString& name : names)
            pool_->addItem(name, name);
    }
    // A pool name that matches no pool selects nothing; the diagnostics say why.
    formfields::show(pool_, s.workload.pool ? QString::fromStdString(*s.workload.pool) : QString());
}

void WorkloadEditor::refresh() {
    models::Scenario s = document()->scenario(); // a copy: the field selectors take a mutable scenario
    for (auto& [box, field] : counts_)
        formfields::show(box, field(s));
    const auto& w = s.workload;
    formfields::show(modelName_, QString::fromStdString(w.model.name));
    formfields::show(gated_, w.model.ffn_gated);
    formfields::show(tokens_, w.tokens_to_train / kTokensUnit);
    formfields::show(precision_, static_cast<int>(w.precision));
    formfields::show(recompute_, static_cast<int>(w.recompute));
    formfields::show(sequenceParallel_, w.parallel.sequence_parallel);
    formfields::show(zero_, w.parallel.zero);
    refreshPools();
    refreshPreset();
}

} // namespace choreo::ui
