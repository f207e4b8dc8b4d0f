#include "ui/workload/workloadeditor.h"

#include "ui/editids.h"
#include "ui/formfields.h"
#include "ui/formgrid.h"
#include "ui/workload/memorybar.h"

#include <QComboBox>
#include <QGridLayout>
#include <QGroupBox>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace choreo::ui {

namespace {

// What switching MoE on starts from: 8 experts, top-2, each as wide as the dense feed-forward
// (Mixtral's shape); the user edits from there.
models::MoeShape defaultMoe(const models::ModelShape& model) {
    models::MoeShape moe;
    moe.experts = 8;
    moe.top_k = 2;
    moe.expert_ffn_hidden = model.ffn_hidden > 0 ? model.ffn_hidden : 1;
    return moe;
}

} // namespace

WorkloadEditor::WorkloadEditor(Document* document, FieldMarks* marks, std::vector<ModelPreset> presets,
                               QWidget* parent)
    : ScenarioForm(document, marks, parent)
    , presets_(std::move(presets))
    , preset_(new QComboBox)
    , presetInfo_(new QLabel)
    , memory_(new MemoryBar(document))
    , suggest_(new QPushButton(tr("Suggest…")))
    , pool_(new QComboBox)
    , gradients_(new QComboBox)
    , moe_(new QGroupBox(tr("Mixture of Experts"))) {
    createPresetRow();
    pool_->setObjectName(u"trainingPoolCombo"_s);
    gradients_->setObjectName(u"gradientPrecisionCombo"_s);
    for (auto p : {models::Precision::Fp32, models::Precision::Bf16, models::Precision::Fp16})
        gradients_->addItem(QString::fromStdString(models::toString(p)), static_cast<int>(p));
    gradients_->setToolTip(tr("Precision of the gradient buffer and its data-parallel reduction: fp32 as "
                              "Megatron-LM (fp16 training: fp16), bf16 as NeMo's distributed Adam with "
                              "grad_sync_dtype bf16"));
    suggest_->setObjectName(u"suggestLayoutButton"_s);
    suggest_->setToolTip(tr("Find parallel layouts of the training pool that fit in memory, ranked by the "
                            "analytical model (Ctrl+Shift+L)"));

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(createModelBox());
    training_ = createTrainingBox();
    parallel_ = createParallelBox();
    layout->addWidget(training_);
    layout->addWidget(parallel_);

    connect(preset_, &QComboBox::activated, this, &WorkloadEditor::applyPreset);
    connect(suggest_, &QPushButton::clicked, this, &WorkloadEditor::suggestLayoutRequested);
    connectHandBoundFields();
    refresh();
}

void WorkloadEditor::createPresetRow() {
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
}

QGroupBox* WorkloadEditor::createModelBox() {
    auto* box = new QGroupBox(tr("Model"));
    FormGrid model(new QGridLayout(box));
    model.addWide(tr("Preset"), preset_);
    model.addWide(QString(), presetInfo_);
    bindGroup(model, "Model");
    // Mixture of Experts: a checkable group, so "dense" is one click away and the fields keep their place.
    moe_->setObjectName(u"moeGroup"_s);
    moe_->setCheckable(true);
    moe_->setToolTip(tr("Layers after the first dense ones route each token to top-k of the experts"));
    FormGrid moeForm(new QGridLayout(moe_));
    bindGroup(moeForm, "Mixture of Experts");
    mark(u"workload.model.moe"_s, moe_, true);
    model.addWide(QString(), moe_);
    return box;
}

QGroupBox* WorkloadEditor::createTrainingBox() {
    auto* box = new QGroupBox(tr("Training"));
    FormGrid training(new QGridLayout(box));
    training.addWide(tr("Pool"), pool_);
    bindGroup(training, "Training");
    training.add(tr("Gradients"), gradients_);
    mark(u"workload.pool"_s, pool_);
    mark(u"workload.gradient_precision"_s, gradients_);
    return box;
}

QGroupBox* WorkloadEditor::createParallelBox() {
    auto* box = new QGroupBox(tr("Parallelism"));
    FormGrid parallel(new QGridLayout(box));
    bindGroup(parallel, "Parallelism");
    bindGroup(parallel, "Communication overlap");
    parallel.add(QString(), suggest_);
    parallel.addWide(QString(), memory_);
    return box;
}

void WorkloadEditor::connectHandBoundFields() {
    connect(pool_, &QComboBox::activated, this, [this] {
        const QString name = pool_->currentData().toString();
        change(NoMerge, tr("Change training pool"), [name](models::Scenario& s) {
            if (name.isEmpty())
                s.workload.pool.reset();
            else
                s.workload.pool = name.toStdString();
        });
    });
    connect(gradients_, &QComboBox::activated, this, [this] {
        change(NoMerge, tr("Change gradient precision"),
               [v = gradients_->currentData().toInt()](models::Scenario& s) {
                   auto& w = s.workload;
                   const auto chosen = static_cast<models::Precision>(v);
                   w.gradient_precision.reset(); // the default is not written
                   if (w.gradientPrecision() != chosen)
                       w.gradient_precision = chosen;
               });
    });
    connect(moe_, &QGroupBox::toggled, this, [this](bool on) {
        change(NoMerge, on ? tr("Make the model Mixture-of-Experts") : tr("Make the model dense"),
               [on](models::Scenario& s) {
                   if (on && !s.workload.model.moe)
                       s.workload.model.moe = defaultMoe(s.workload.model);
                   else if (!on) {
                       s.workload.model.moe.reset();
                       s.workload.parallel.ep = 1; // expert parallelism means nothing for a dense model
                       s.workload.parallel.etp = 0;
                   }
               });
    });
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
    models::Scenario shown = document()->scenario();
    // A dense model shows what switching MoE on would start from, greyed out by the unchecked group.
    {
        const QSignalBlocker block(moe_);
        moe_->setChecked(shown.workload.model.moe.has_value());
    }
    if (!shown.workload.model.moe)
        shown.workload.model.moe = defaultMoe(shown.workload.model);
    showFields(shown);
    // A serving workload has no training step: its layout is the serve stage's (ServeEditor).
    const bool trains = shown.workload.kind != models::WorkloadKind::Serve;
    training_->setVisible(trains);
    parallel_->setVisible(trains);
    formfields::show(gradients_, static_cast<int>(shown.workload.gradientPrecision()));
    refreshPools();
    refreshPreset();
}

} // namespace choreo::ui
