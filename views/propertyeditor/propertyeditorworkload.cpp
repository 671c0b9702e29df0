#include "propertyeditor/propertyeditorworkload.h"

#include "common/format.h"
#include "model/modelshapes.h"
#include "model/scenariolimits.h"

#include <QFormLayout>
#include <QLabel>

namespace archipelago::views {

namespace {

constexpr int kMaxDimension = 1 << 24; // 16 M: beyond any published model dimension

} // namespace

WorkloadEditor::WorkloadEditor(EditSink* sink, QWidget* parent)
    : PropertyEditorPage(sink, tr("Workload"), parent)
{
    using W = core::Workload;
    using M = core::MoeConfig;
    QFormLayout* model = addSection(tr("Model"));
    m_model = new ChoiceField;
    {
        std::vector<std::pair<QString, QString>> choices{{tr("Custom"), QStringLiteral("custom")}};
        for (const core::ModelShape& shape : core::publishedModelShapes())
            choices.emplace_back(QString::fromLatin1(shape.name), QString::fromLatin1(shape.name));
        m_model->setChoices(choices);
        for (int i = 1; i < m_model->count(); ++i)
            m_model->setItemData(
                i,
                tr("Fills the shape of %1 (layers to MoE); keeps the batch, precision and "
                   "training length. Source: %2.")
                    .arg(QString::fromLatin1(
                             core::publishedModelShapes()[static_cast<std::size_t>(i - 1)].name),
                         QString::fromLatin1(
                             core::publishedModelShapes()[static_cast<std::size_t>(i - 1)].source)),
                Qt::ToolTipRole);
    }
    m_modelRow = addField(model, tr("Model"), m_model,
                          tr("A published model shape: fills layers, hidden size, heads, KV "
                             "heads, FFN, activation, vocabulary, sequence length and the MoE "
                             "block in one step. \"Custom\" when the shape is your own."));
    m_modelRow->setPointers({QStringLiteral("/workload")});
    connect(m_model, &ChoiceField::committed, this, [this](const QString& name) {
        for (const core::ModelShape& shape : core::publishedModelShapes())
            if (name == QLatin1String(shape.name))
                propose(core::withModelShape(scenario().workload, shape), m_modelRow);
        if (name == QLatin1String("custom"))
            loadValues(); // "Custom" is what any other shape is: nothing to apply
    });
    m_name = new TextField;
    m_name->setMaxLength(core::kMaxNameChars); // what the reader takes back
    FieldRow* nameRow = addField(model, tr("Name"), m_name, tr("Name of the model (free text)."));
    nameRow->setPointers({QStringLiteral("/workload/name")});
    connect(m_name, &TextField::committed, this, [this, nameRow](const QString& name) {
        core::Workload w = scenario().workload;
        w.name = name.toStdString();
        propose(w, nameRow);
    });
    addInt(model, tr("Layers"), tr("Transformer layers (blocks), 1–10,000."),
           QStringLiteral("layers"), 1, 10'000, &W::layers);
    addInt(model, tr("Hidden size (elements)"),
           tr("Model dimension h: elements per token in the residual stream."),
           QStringLiteral("hidden"), 1, kMaxDimension, &W::hidden);
    addInt(model, tr("Attention heads"),
           tr("Query heads a; must divide the hidden size, and TP must divide it."),
           QStringLiteral("heads"), 1, 65'536, &W::heads);
    addInt(model, tr("KV heads (groups)"),
           tr("Key/value heads for grouped-query attention; equal to the heads for plain "
              "multi-head attention. Must divide the heads."),
           QStringLiteral("kv_heads"), 1, 65'536, &W::kvHeads);
    addInt(model, tr("FFN hidden size (elements)"), tr("Inner dimension of the MLP (per matrix)."),
           QStringLiteral("ffn_hidden"), 1, kMaxDimension, &W::ffnHidden);
    m_activation = new ChoiceField;
    m_activation->setChoices(
        {{tr("GeLU (2 matrices)"), core::toString(core::FfnActivation::Gelu)},
         {tr("SwiGLU (3 matrices)"), core::toString(core::FfnActivation::Swiglu)}});
    FieldRow* activationRow = addField(model, tr("FFN activation"), m_activation,
                                       tr("GeLU uses two MLP matrices, SwiGLU three."));
    activationRow->setPointers({QStringLiteral("/workload/ffn_activation")});
    connect(m_activation, &ChoiceField::committed, this,
            [this, activationRow](const QString& value) {
                core::Workload w = scenario().workload;
                w.activation =
                    core::ffnActivationFromString(value.toStdString()).value_or(w.activation);
                propose(w, activationRow);
            });
    addInt(model, tr("Vocabulary (tokens)"), tr("Vocabulary size, in tokens."),
           QStringLiteral("vocab"), 1, kMaxDimension, &W::vocab);
    addInt(model, tr("Sequence length (tokens)"), tr("Tokens per training sequence."),
           QStringLiteral("seq_len"), 1, kMaxDimension, &W::seqLen);

    QFormLayout* moe = addSection(tr("Mixture of experts"));
    addInt(moe, tr("Experts (0 = dense)"), tr("Routed experts per MoE layer; 0 for a dense model."),
           QStringLiteral("moe/experts"), 0, 65'536, nullptr, &M::experts);
    addInt(moe, tr("Experts per token (top-k)"), tr("Routed experts each token visits."),
           QStringLiteral("moe/top_k"), 1, 1'024, nullptr, &M::topK);
    addInt(moe, tr("Expert FFN hidden (elements)"), tr("Inner MLP dimension of one expert."),
           QStringLiteral("moe/expert_ffn_hidden"), 0, kMaxDimension, nullptr, &M::expertFfnHidden);
    addInt(moe, tr("Shared experts"), tr("Experts every token visits (DeepSeek: 1)."),
           QStringLiteral("moe/shared_experts"), 0, 1'024, nullptr, &M::sharedExperts);
    addInt(moe, tr("Leading dense layers"), tr("First layers that stay dense (DeepSeek-V3: 3)."),
           QStringLiteral("moe/first_dense_layers"), 0, 10'000, nullptr, &M::firstDenseLayers);

    QFormLayout* training = addSection(tr("Training"));
    addInt(training, tr("Global batch (sequences)"),
           tr("Sequences per iteration over all data-parallel replicas; must be divisible by "
              "micro-batch × DP."),
           QStringLiteral("global_batch"), 1, 10'000'000, &W::globalBatch);
    m_tokensPerIteration =
        addNote(training, tr("Tokens per iteration"), tr("Global batch × sequence length."));
    m_precision = new ChoiceField;
    m_precision->setChoices({{tr("BF16"), core::toString(core::Precision::Bf16)},
                             {tr("FP8"), core::toString(core::Precision::Fp8)}});
    FieldRow* precisionRow = addField(training, tr("Precision"), m_precision,
                                      tr("GEMM precision: sets the peak FLOP/s used."));
    precisionRow->setPointers({QStringLiteral("/workload/precision")});
    connect(m_precision, &ChoiceField::committed, this, [this, precisionRow](const QString& v) {
        core::Workload w = scenario().workload;
        w.precision = core::precisionFromString(v.toStdString()).value_or(w.precision);
        propose(w, precisionRow);
    });
    m_trainTokens = new DoubleField(0.001, 1e6, 3);
    m_trainTokens->setSuffix(tr(" T"));
    FieldRow* tokensRow = addField(training, tr("Tokens to train (trillions)"), m_trainTokens,
                                   tr("Training length in 10¹² tokens, for the time and GPU-hours "
                                      "to train."));
    tokensRow->setPointers({QStringLiteral("/workload/train_tokens")});
    connect(m_trainTokens, &DoubleField::committed, this, [this, tokensRow](double trillions) {
        core::Workload w = scenario().workload;
        w.trainTokens = trillions * 1e12;
        propose(w, tokensRow);
    });

    QFormLayout* checkpoints = addSection(tr("Checkpoints"));
    // Up to a year of training between two checkpoints.
    m_checkpointInterval = new DoubleField(0.0, 3.2e7, 0);
    m_checkpointInterval->setSuffix(tr(" s"));
    FieldRow* intervalRow =
        addField(checkpoints, tr("Interval (s, 0 = optimal)"), m_checkpointInterval,
                 tr("Training time between two checkpoints; 0 takes Daly's optimum for the "
                    "job's failure rate and checkpoint cost (docs/goodput.md)."));
    intervalRow->setPointers({QStringLiteral("/workload/checkpoint_interval_s")});
    connect(m_checkpointInterval, &DoubleField::committed, this, [this, intervalRow](double s) {
        core::Workload w = scenario().workload;
        w.checkpointIntervalS = s;
        propose(w, intervalRow);
    });
    // A box that edits one boolean of the workload.
    const auto addBool = [&](const QString& label, const QString& toolTip, const QString& key,
                             bool core::Workload::*member) {
        auto* field = new CheckField(label);
        field->setToolTip(toolTip);
        auto* row = new FieldRow(field);
        checkpoints->addRow(row);
        row->setPointers({QStringLiteral("/workload/") + key});
        connect(field, &CheckField::committed, this, [this, row, member](bool on) {
            core::Workload w = scenario().workload;
            w.*member = on;
            propose(w, row);
        });
        return field;
    };
    m_checkpointAsynchronous = addBool(
        tr("Asynchronous"),
        tr("Training waits only while each GPU copies its shard to host memory; the write to "
           "storage runs behind it. Off: training waits for the write."),
        QStringLiteral("checkpoint_asynchronous"), &core::Workload::checkpointAsynchronous);
    m_checkpointRemoteReplica = addBool(
        tr("Copy to another building"),
        tr("Each building copies its share of every checkpoint to the nearest other building's "
           "storage over the DCI, in what training leaves of the links; the next checkpoint "
           "waits for the copy (docs/goodput.md)."),
        QStringLiteral("checkpoint_remote_replica"), &core::Workload::checkpointRemoteReplica);
}

void WorkloadEditor::addInt(QFormLayout* form, const QString& label, const QString& toolTip,
                            const QString& key, int minimum, int maximum,
                            int core::Workload::*member, int core::MoeConfig::*moeMember)
{
    auto* field = new IntField(minimum, maximum);
    FieldRow* row = addField(form, label, field, toolTip);
    row->setPointers({QStringLiteral("/workload/") + key});
    m_ints.push_back({field, member, moeMember});
    connect(field, &IntField::committed, this, [this, row, member, moeMember](int value) {
        core::Workload w = scenario().workload;
        if (member)
            w.*member = value;
        else
            w.moe.*moeMember = value;
        propose(w, row);
    });
}

void WorkloadEditor::propose(const core::Workload& workload, FieldRow* row)
{
    EditProposal proposal;
    proposal.candidate = scenario();
    proposal.candidate.workload = workload;
    proposal.fields = row->pointers();
    proposal.row = row;
    // Another layer count (a published model, or the Layers field) re-splits the stages: a split
    // of the old count no longer adds up (core::repairPlacement keeps everything else).
    proposal.adaptPlacement = workload.layers != scenario().workload.layers;
    sink()->propose(proposal);
}

void WorkloadEditor::loadValues()
{
    const core::Workload& w = scenario().workload;
    setTitle(tr("Workload: %1").arg(QString::fromStdString(w.name)));
    m_name->load(QString::fromStdString(w.name));
    const core::ModelShape* shape = core::matchingModelShape(w);
    m_model->load(shape ? QString::fromLatin1(shape->name) : QStringLiteral("custom"));
    for (const IntBinding& b : m_ints) {
        b.field->load(b.member ? w.*(b.member) : w.moe.*(b.moeMember));
        // A dense model has no expert shape to edit; the expert count turns MoE on.
        if (b.moeMember && b.moeMember != &core::MoeConfig::experts)
            b.field->setEnabled(w.moe.enabled());
    }
    m_activation->load(QString::fromLatin1(core::toString(w.activation)));
    m_precision->load(QString::fromLatin1(core::toString(w.precision)));
    m_trainTokens->load(w.trainTokens / 1e12);
    m_checkpointInterval->load(w.checkpointIntervalS);
    m_checkpointAsynchronous->load(w.checkpointAsynchronous);
    m_checkpointRemoteReplica->load(w.checkpointRemoteReplica);
    m_tokensPerIteration->setText(
        tr("%1 tokens").arg(formatCount(std::int64_t{w.globalBatch} * w.seqLen)));
}

} // namespace archipelago::views
