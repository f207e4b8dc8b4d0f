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
constexpr int kMaxExperts = 100000;

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
    , modelName_(new QLineEdit)
    , gated_(new QCheckBox(tr("gated (SwiGLU)")))
    , dropout_(new QCheckBox(tr("dropout")))
    , pool_(new QComboBox)
    , tokens_(formfields::numberSpin(0.1, 1e7, 1, u" B"_s))
    , precision_(new QComboBox)
    , recompute_(new QComboBox)
    , gradients_(new QComboBox)
    , sequenceParallel_(new QCheckBox(tr("sequence parallel")))
    , overlapTp_(new QCheckBox(tr("overlap TP communication")))
    , overlapGather_(new QCheckBox(tr("overlap parameter gather")))
    , overlapGrad_(new QCheckBox(tr("overlap gradient reduction")))
    , overlapExpert_(new QCheckBox(tr("overlap expert all-to-all")))
    , zero_(new QComboBox)
    , moe_(new QGroupBox(tr("Mixture of Experts")))
    , attention_(new QComboBox)
    , accumulation_(new QComboBox) {
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
    dropout_->setObjectName(u"dropoutCheck"_s);
    dropout_->setToolTip(tr("Hidden and attention dropout in training: its masks are kept for the backward "
                            "(GPT-3; off for Llama, Mixtral, DeepSeek-V3)"));
    pool_->setObjectName(u"trainingPoolCombo"_s);
    tokens_->setObjectName(u"tokensSpin"_s);
    tokens_->setToolTip(tr("Tokens to train, in billions"));
    precision_->setObjectName(u"precisionCombo"_s);
    recompute_->setObjectName(u"recomputeCombo"_s);
    sequenceParallel_->setObjectName(u"sequenceParallelCheck"_s);
    zero_->setObjectName(u"zeroCombo"_s);
    for (auto p :
         {models::Precision::Bf16, models::Precision::Fp16, models::Precision::Fp8, models::Precision::Fp4})
        precision_->addItem(QString::fromStdString(models::toString(p)), static_cast<int>(p));
    gradients_->setObjectName(u"gradientPrecisionCombo"_s);
    for (auto p : {models::Precision::Fp32, models::Precision::Bf16, models::Precision::Fp16})
        gradients_->addItem(QString::fromStdString(models::toString(p)), static_cast<int>(p));
    gradients_->setToolTip(tr("Precision of the gradient buffer and its data-parallel reduction: fp32 as "
                              "Megatron-LM (fp16 training: fp16), bf16 as NeMo's distributed Adam with "
                              "grad_sync_dtype bf16"));
    for (auto r : {models::Recompute::None, models::Recompute::Selective, models::Recompute::Full,
                   models::Recompute::SelectiveOps})
        recompute_->addItem(QString::fromStdString(models::toString(r)), static_cast<int>(r));
    // As narrow as the other fields: the form must keep its 440-pixel column.
    for (QComboBox* box : {attention_, accumulation_}) {
        box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        box->setMinimumContentsLength(8);
    }
    attention_->setObjectName(u"attentionCombo"_s);
    attention_->addItem(tr("fused (best kernel)"), static_cast<int>(models::AttentionKernel::Fused));
    attention_->addItem(tr("unfused (scores in memory)"), static_cast<int>(models::AttentionKernel::Unfused));
    attention_->addItem(tr("FlashAttention-2"), static_cast<int>(models::AttentionKernel::Flash2));
    attention_->setToolTip(
        tr("Fused: scores never leave the chip, the device's best kernel. Unfused: the b × "
           "heads × s × s scores are written and read back, as Megatron-LM did before "
           "2022. FlashAttention-2: fused, with the kernels PyTorch's SDPA runs by default, "
           "slower on Hopper"));
    accumulation_->setObjectName(u"accumulationCombo"_s);
    accumulation_->addItem(tr("fused"), static_cast<int>(models::GradientAccumulation::Fused));
    accumulation_->addItem(tr("separate"), static_cast<int>(models::GradientAccumulation::Separate));
    accumulation_->setToolTip(
        tr("How each micro-batch's weight gradients reach the gradient buffer. Fused: the "
           "weight-gradient GEMM accumulates into it (Megatron-LM since 2022, NeMo). "
           "Separate: an add kernel per parameter tensor reads the gradient and the "
           "buffer and writes the buffer (PyTorch autograd, Megatron-LM of 2021)"));
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
    {
        QSpinBox* headDim = bindCount(
            u"headDimSpin"_s, u"workload.model.head_dim"_s, 100000, EditHeadDim, tr("Change head width"),
            [](models::Scenario& s) -> std::int64_t& { return s.workload.model.head_dim; });
        headDim->setMinimum(0);
        headDim->setSpecialValueText(tr("hidden / heads"));
        headDim->setToolTip(
            tr("Width of one attention head, where the model sets it apart from hidden / heads "
               "(Qwen3: 128, GPT-OSS: 64)"));
        model.add(tr("Head width"), headDim);
    }
    model.add(tr("FFN hidden"),
              bindCount(u"ffnHiddenSpin"_s, u"workload.model.ffn_hidden"_s, 10000000, EditFfnHidden,
                        tr("Change FFN size"),
                        [](models::Scenario& s) -> std::int64_t& { return s.workload.model.ffn_hidden; }));
    model.add(QString(), gated_);
    model.add(QString(), dropout_);
    model.add(tr("Vocabulary"), bindCount(u"vocabSpin"_s, u"workload.model.vocab"_s, 100000000, EditVocab,
                                          tr("Change vocabulary"), [](models::Scenario& s) -> std::int64_t& {
                                              return s.workload.model.vocab;
                                          }));
    model.add(tr("Sequence"),
              bindCount(u"seqLenSpin"_s, u"workload.model.seq_len"_s, 100000000, EditSeqLen,
                        tr("Change sequence length"),
                        [](models::Scenario& s) -> std::int64_t& { return s.workload.model.seq_len; }));
    // Mixture of Experts: a checkable group, so "dense" is one click away and the fields keep their place.
    moe_->setObjectName(u"moeGroup"_s);
    moe_->setCheckable(true);
    moe_->setToolTip(tr("Layers after the first dense ones route each token to top-k of the experts"));
    auto* moeGrid = new QGridLayout(moe_);
    FormGrid moeForm(moeGrid);
    moeForm.add(tr("Experts"), bindMoe(u"moeExpertsSpin"_s, u"experts"_s, 1, kMaxExperts, EditMoeExperts,
                                       tr("Change experts"), &models::MoeShape::experts));
    moeForm.add(tr("Top-k"), bindMoe(u"moeTopKSpin"_s, u"top_k"_s, 1, kMaxExperts, EditMoeTopK,
                                     tr("Change experts per token"), &models::MoeShape::top_k));
    moeForm.add(tr("Expert FFN"),
                bindMoe(u"moeExpertFfnSpin"_s, u"expert_ffn_hidden"_s, 1, 10000000, EditMoeExpertFfnHidden,
                        tr("Change expert FFN size"), &models::MoeShape::expert_ffn_hidden));
    moeForm.add(tr("Shared"),
                bindMoe(u"moeSharedSpin"_s, u"shared_experts"_s, 0, kMaxExperts, EditMoeSharedExperts,
                        tr("Change shared experts"), &models::MoeShape::shared_experts));
    moeForm.add(tr("Dense layers"),
                bindMoe(u"moeDenseLayersSpin"_s, u"dense_layers"_s, 0, 10000, EditMoeDenseLayers,
                        tr("Change dense layers"), &models::MoeShape::dense_layers));
    mark(u"workload.model.moe"_s, moe_, true);
    model.addWide(QString(), moe_);
    mark(u"workload.model.name"_s, modelName_);
    mark(u"workload.model.ffn_gated"_s, gated_);
    mark(u"workload.model.dropout"_s, dropout_);

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
    training.add(tr("Gradients"), gradients_);
    training.add(tr("Recompute"), recompute_);
    training.add(tr("Attention"), attention_);
    training.add(tr("Grad. accumulation"), accumulation_);
    {
        QSpinBox* offload = bindCount(
            u"offloadLayersSpin"_s, u"workload.activation_offload_layers"_s, 100000, EditActivationOffload,
            tr("Change offloaded layers"),
            [](models::Scenario& s) -> std::int64_t& { return s.workload.activation_offload_layers; });
        offload->setMinimum(0);
        offload->setSpecialValueText(tr("none"));
        offload->setToolTip(tr("Layers whose activations go to host memory during the forward and come back "
                               "for the backward (Megatron-Core's CPU offloading; needs PP 1 and no "
                               "recomputation)"));
        training.add(tr("Offloaded layers"), offload);
    }
    mark(u"workload.pool"_s, pool_);
    mark(u"workload.tokens_to_train"_s, tokens_);
    mark(u"workload.precision"_s, precision_);
    mark(u"workload.gradient_precision"_s, gradients_);
    mark(u"workload.recompute"_s, recompute_);
    mark(u"workload.attention"_s, attention_);
    mark(u"workload.gradient_accumulation"_s, accumulation_);

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
    parallel.add(tr("EP"),
                 bindCount(u"epSpin"_s, u"workload.parallel.ep"_s, 100000, EditEp,
                           tr("Change expert parallelism"),
                           [](models::Scenario& s) -> std::int64_t& { return s.workload.parallel.ep; }));
    {
        QSpinBox* etp = bindCount(
            u"etpSpin"_s, u"workload.parallel.etp"_s, 4096, EditEtp, tr("Change expert tensor parallelism"),
            [](models::Scenario& s) -> std::int64_t& { return s.workload.parallel.etp; });
        etp->setMinimum(0);
        etp->setSpecialValueText(tr("= TP"));
        parallel.add(tr("Expert TP"), etp);
    }
    parallel.add(tr("ZeRO"), zero_);
    parallel.add(QString(), sequenceParallel_);
    parallel.add(QString(), overlapTp_);
    parallel.add(QString(), overlapGather_);
    parallel.add(QString(), overlapGrad_);
    parallel.add(QString(), overlapExpert_);
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
    tip(u"epSpin"_s,
        tr("Expert parallelism (MoE only): each MoE layer's experts split over ep devices, "
           "taken from the data- and context-parallel ranks (and the tensor ranks when Expert TP "
           "is below TP)"));
    tip(u"etpSpin"_s, tr("Expert tensor parallelism (MoE only): each routed expert's matrices split over etp "
                         "of the tp tensor ranks; 1 folds the tensor ranks into expert ranks (Megatron-Core "
                         "--expert-tensor-parallel-size)"));
    mark(u"workload.parallel.sequence_parallel"_s, sequenceParallel_);
    overlapTp_->setObjectName(u"overlapTpCheck"_s);
    overlapTp_->setToolTip(
        tr("Tensor-parallel collectives pipelined with the GEMMs they feed (Megatron-Core "
           "--tp-comm-overlap, NeMo ub_tp_comm_overlap): only the last of 4 splits waits"));
    overlapGather_->setObjectName(u"overlapGatherCheck"_s);
    overlapGather_->setToolTip(tr("ZeRO 1/2: the parameter all-gather runs beside the next step's first "
                                  "forward instead of after the optimizer (--overlap-param-gather)"));
    mark(u"workload.overlap.tp_comm"_s, overlapTp_);
    mark(u"workload.overlap.param_gather"_s, overlapGather_);
    overlapGrad_->setObjectName(u"overlapGradCheck"_s);
    overlapGrad_->setToolTip(
        tr("Data-parallel gradient reduction in buckets during the last backward (PyTorch "
           "DDP, Megatron-Core); off: after the whole backward (Megatron-LM 2021)"));
    mark(u"workload.overlap.grad_reduce"_s, overlapGrad_);
    overlapExpert_->setObjectName(u"overlapExpertCheck"_s);
    overlapExpert_->setToolTip(
        tr("MoE with expert parallelism: one micro-batch's dispatch and combine all-to-alls run beside "
           "another's computation (Megatron-Core --overlap-moe-expert-parallel-comm, combined 1F1B); "
           "with pipeline parallelism it needs interleaving"));
    mark(u"workload.overlap.ep_comm"_s, overlapExpert_);
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
    connect(dropout_, &QCheckBox::toggled, this, [this](bool on) {
        change(NoMerge, tr("Toggle dropout"), [on](models::Scenario& s) { s.workload.model.dropout = on; });
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
    bindChoice(
        precision_, tr("Change precision"),
        +[](models::Scenario& s) -> models::Precision& { return s.workload.precision; });
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
    bindChoice(
        recompute_, tr("Change recomputation"),
        +[](models::Scenario& s) -> models::Recompute& { return s.workload.recompute; });
    bindChoice(
        attention_, tr("Change attention kernel"),
        +[](models::Scenario& s) -> models::AttentionKernel& { return s.workload.attention; });
    bindChoice(
        accumulation_, tr("Change gradient accumulation"),
        +[](models::Scenario& s) -> models::GradientAccumulation& {
            return s.workload.gradient_accumulation;
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
    bindCheck(sequenceParallel_, tr("Toggle sequence parallelism"),
              [](models::Scenario& s) -> bool& { return s.workload.parallel.sequence_parallel; });
    bindCheck(overlapTp_, tr("Toggle tensor-parallel overlap"),
              [](models::Scenario& s) -> bool& { return s.workload.overlap.tp_comm; });
    bindCheck(overlapGather_, tr("Toggle parameter-gather overlap"),
              [](models::Scenario& s) -> bool& { return s.workload.overlap.param_gather; });
    bindCheck(overlapGrad_, tr("Toggle gradient-reduction overlap"),
              [](models::Scenario& s) -> bool& { return s.workload.overlap.grad_reduce; });
    bindCheck(overlapExpert_, tr("Toggle expert all-to-all overlap"),
              [](models::Scenario& s) -> bool& { return s.workload.overlap.ep_comm; });
    connect(zero_, &QComboBox::activated, this, [this] {
        change(NoMerge, tr("Change ZeRO stage"),
               [v = zero_->currentData().toInt()](models::Scenario& s) { s.workload.parallel.zero = v; });
    });
    refresh();
}

template <typename Enum>
void WorkloadEditor::bindChoice(QComboBox* box, const QString& description,
                                Enum& (*field)(models::Scenario&)) {
    connect(box, &QComboBox::activated, this, [this, box, description, field] {
        change(NoMerge, description, [field, v = box->currentData().toInt()](models::Scenario& s) {
            field(s) = static_cast<Enum>(v);
        });
    });
}

void WorkloadEditor::bindCheck(QCheckBox* box, const QString& description, BoolField field) {
    connect(box, &QCheckBox::toggled, this, [this, description, field](bool on) {
        change(NoMerge, description, [field, on](models::Scenario& s) { field(s) = on; });
    });
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

QSpinBox* WorkloadEditor::bindMoe(const QString& objectName, const QString& key, int minimum, int maximum,
                                  int mergeId, const QString& description, MoeField field) {
    QSpinBox* box = formfields::countSpin(maximum);
    box->setMinimum(minimum);
    box->setObjectName(objectName);
    mark(u"workload.model.moe."_s + key, box);
    moeFields_.emplace_back(box, field);
    connect(box, &QSpinBox::valueChanged, this, [this, mergeId, description, field](int value) {
        change(mergeId, description, [field, value](models::Scenario& s) {
            if (s.workload.model.moe)
                (*s.workload.model.moe).*field = value;
        });
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
    formfields::show(dropout_, w.model.dropout);
    formfields::show(tokens_, w.tokens_to_train / kTokensUnit);
    formfields::show(precision_, static_cast<int>(w.precision));
    formfields::show(gradients_, static_cast<int>(w.gradientPrecision()));
    formfields::show(recompute_, static_cast<int>(w.recompute));
    formfields::show(sequenceParallel_, w.parallel.sequence_parallel);
    formfields::show(overlapTp_, w.overlap.tp_comm);
    formfields::show(overlapGather_, w.overlap.param_gather);
    formfields::show(overlapGrad_, w.overlap.grad_reduce);
    formfields::show(overlapExpert_, w.overlap.ep_comm);
    formfields::show(zero_, w.parallel.zero);
    formfields::show(attention_, static_cast<int>(w.attention));
    formfields::show(accumulation_, static_cast<int>(w.gradient_accumulation));
    {
        const QSignalBlocker block(moe_);
        moe_->setChecked(w.model.moe.has_value());
    }
    // A dense model shows what switching MoE on would start from, greyed out by the unchecked group.
    const models::MoeShape shown = w.model.moe.value_or(defaultMoe(w.model));
    for (auto& [box, field] : moeFields_)
        formfields::show(box, shown.*field);
    refreshPools();
    refreshPreset();
}

} // namespace choreo::ui
