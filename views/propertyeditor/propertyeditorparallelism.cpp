#include "propertyeditor/propertyeditorparallelism.h"

#include "common/format.h"
#include "propertyeditor/diagnostictext.h"
#include "propertyeditor/propertyeditorplacement.h"

#include "model/placementpresets.h"

#include <QFormLayout>
#include <QLabel>
#include <QRegularExpression>

namespace archipelago::views {

ParallelismEditor::ParallelismEditor(EditSink* sink, QWidget* parent)
    : PropertyEditorPage(sink, tr("Parallelism"), parent)
{
    using P = core::Parallelism;
    using O = core::OverlapOptions;
    QFormLayout* degrees = addSection(tr("Degrees"));
    addInt(degrees, tr("Tensor parallel TP (GPUs)"),
           tr("GPUs that split every layer's matrices; must divide the heads, KV heads and FFN "
              "size, and should fit in a scale-up domain."),
           QStringLiteral("tp"), 1, 1'024, &P::tp, true);
    addInt(degrees, tr("Context parallel CP (GPUs)"),
           tr("GPUs that split each sequence; 2 × CP must divide the sequence length."),
           QStringLiteral("cp"), 1, 1'024, &P::cp, true);
    addInt(degrees, tr("Pipeline parallel PP (stages)"),
           tr("Pipeline stages; every stage needs at least one layer."), QStringLiteral("pp"), 1,
           1'024, &P::pp, true);
    addInt(degrees, tr("Expert parallel EP (GPUs)"),
           tr("GPUs that split the experts, carved out of DP × CP; must divide the experts."),
           QStringLiteral("ep"), 1, 1'024, &P::ep, false);
    m_dp = addNote(degrees, tr("Data parallel DP (replicas)"),
                   tr("Derived: the sum of the shards' replicas, or the GPUs / (TP × CP × PP) "
                      "without shards. Never set directly."));
    addInt(degrees, tr("Virtual stages (chunks per rank)"),
           tr("Model chunks per pipeline rank for interleaved 1F1B; 1 = not interleaved."),
           QStringLiteral("virtual_stages"), 1, 64, &P::virtualStages, false);
    addInt(degrees, tr("Micro-batch (sequences)"),
           tr("Sequences per micro-batch; micro-batch × DP must divide the global batch."),
           QStringLiteral("micro_batch"), 1, 65'536, &P::microBatch, false);
    m_microBatches = addNote(degrees, tr("Micro-batches per iteration"),
                             tr("Derived: global batch / (micro-batch × DP), per pipeline."));

    QFormLayout* memory = addSection(tr("Memory"));
    addCheck(memory, tr("Sequence parallel"),
             tr("Shard LayerNorm and dropout activations over the TP group (needs TP > 1)."),
             QStringLiteral("sequence_parallel"), &P::sequenceParallel);
    addInt(memory, tr("ZeRO stage (0–3)"),
           tr("0: replicated optimizer; 1: optimizer states sharded over DP; 2: + gradients; "
              "3: + parameters."),
           QStringLiteral("zero_stage"), 0, 3, &P::zeroStage, false);
    addCheck(memory, tr("Distributed optimizer"),
             tr("Megatron's distributed optimizer: reduce-scatter gradients, all-gather "
                "parameters."),
             QStringLiteral("distributed_optimizer"), &P::distributedOptimizer);
    addInt(memory, tr("Distributed-optimizer instances"),
           tr("Megatron-Core's partial distributed optimizer: DP cut into this many instances "
              "of consecutive replicas; gradients reduce-scattered inside an instance, the "
              "shards all-reduced across instances, weights all-gathered inside. One per "
              "building keeps only the shards on the DCI; the optimizer state is sharded over "
              "one instance. Must divide DP; 1 = over the whole DP group."),
           QStringLiteral("distributed_optimizer_instances"), 1, 65'536,
           &P::distributedOptimizerInstances, false);
    m_gradReduceDtype = new ChoiceField;
    m_gradReduceDtype->setChoices(
        {{tr("fp32 (Megatron default)"), core::toString(core::GradReduceDtype::Fp32)},
         {tr("bf16"), core::toString(core::GradReduceDtype::Bf16)}});
    FieldRow* gradRow = addField(
        memory, tr("Gradient reduction precision"), m_gradReduceDtype,
        tr("Data type gradients are accumulated in and reduced across DP: fp32 "
           "(--accumulate-allreduce-grads-in-fp32, Megatron's default for bf16 models) or bf16 "
           "(--grad-reduce-in-bf16: half the bytes on the wire and in the gradient buffer)."));
    gradRow->setPointers({QStringLiteral("/parallelism/grad_reduce_dtype")});
    connect(m_gradReduceDtype, &ChoiceField::committed, this, [this, gradRow](const QString& v) {
        core::Parallelism p = scenario().parallelism;
        p.gradReduceDtype =
            core::gradReduceDtypeFromString(v.toStdString()).value_or(p.gradReduceDtype);
        propose(p, gradRow, false);
    });
    m_recompute = new ChoiceField;
    m_recompute->setChoices(
        {{tr("None"), core::toString(core::Recompute::None)},
         {tr("Selective (attention)"), core::toString(core::Recompute::Selective)},
         {tr("Full (every layer)"), core::toString(core::Recompute::Full)}});
    FieldRow* recomputeRow =
        addField(memory, tr("Activation recompute"), m_recompute,
                 tr("Recompute activations in the backward pass instead of storing them."));
    recomputeRow->setPointers({QStringLiteral("/parallelism/recompute")});
    connect(m_recompute, &ChoiceField::committed, this, [this, recomputeRow](const QString& v) {
        core::Parallelism p = scenario().parallelism;
        p.recompute = core::recomputeFromString(v.toStdString()).value_or(p.recompute);
        propose(p, recomputeRow, false);
    });

    QFormLayout* overlap = addSection(tr("Overlap with compute"));
    addCheck(overlap, tr("DP gradient reduce"), tr("Gradient reduction under the backward pass."),
             QStringLiteral("overlap/dp_grad_reduce"), nullptr, &O::dpGradReduce);
    addCheck(overlap, tr("DP parameter gather"),
             tr("Distributed-optimizer all-gather under the next forward pass."),
             QStringLiteral("overlap/dp_param_gather"), nullptr, &O::dpParamGather);
    addCheck(overlap, tr("TP communication"), tr("TP collectives overlapped with GEMMs."),
             QStringLiteral("overlap/tp_comm"), nullptr, &O::tpComm);
    addCheck(overlap, tr("CP communication"), tr("CP ring exchange overlapped with attention."),
             QStringLiteral("overlap/cp_comm"), nullptr, &O::cpComm);
    addCheck(overlap, tr("EP communication"), tr("EP all-to-all overlapped with experts."),
             QStringLiteral("overlap/ep_comm"), nullptr, &O::epComm);
    addCheck(overlap, tr("PP communication"), tr("Asynchronous PP send/receive."),
             QStringLiteral("overlap/pp_comm"), nullptr, &O::ppComm);

    QFormLayout* across = addSection(tr("Across datacenters"));
    m_syncScheme = new ChoiceField;
    m_syncScheme->setChoices(
        {{tr("Synchronous (every step)"), core::toString(core::DatacenterSync::Synchronous)},
         {tr("DiLoCo"), core::toString(core::DatacenterSync::DiLoCo)},
         {tr("Streaming DiLoCo"), core::toString(core::DatacenterSync::StreamingDiLoCo)}});
    FieldRow* schemeRow = addField(
        across, tr("Data-parallel sync"), m_syncScheme,
        tr("Where DP crosses a datacenter boundary. Synchronous: every step's gradients cross "
           "the DCI. DiLoCo (Douillard et al. 2023): each datacenter's replicas take H steps "
           "on their own, then the datacenters all-reduce the weights' change and wait for it. "
           "Streaming DiLoCo (Douillard et al. 2025): the model is synchronised in fragments in "
           "turn, each transfer hidden under the next steps. Both need more steps to reach the "
           "same loss (Charles et al. 2025), counted in the time to train with failures; a "
           "failure stops only its datacenter."));
    schemeRow->setPointers({QStringLiteral("/parallelism/datacenter_sync/scheme")});
    connect(m_syncScheme, &ChoiceField::committed, this, [this, schemeRow](const QString& v) {
        core::Parallelism p = scenario().parallelism;
        p.datacenterSync.scheme =
            core::datacenterSyncFromString(v.toStdString()).value_or(p.datacenterSync.scheme);
        propose(p, schemeRow, false);
    });
    using D = core::DatacenterSyncOptions;
    addSyncInt(across, tr("Inner steps H (steps)"),
               tr("Steps each datacenter takes between two outer steps. The scaling laws are "
                  "fitted at H = 30; INTELLECT-1 ran H = 100, DiLoCo's paper 500."),
               QStringLiteral("inner_steps"), 1, 100'000, &D::innerSteps);
    m_outerBits = new ChoiceField;
    m_outerBits->setChoices({{tr("32 (fp32)"), QStringLiteral("32")},
                             {tr("16 (bf16)"), QStringLiteral("16")},
                             {tr("8 (int8, INTELLECT-1)"), QStringLiteral("8")},
                             {tr("4 (E3M0, Streaming DiLoCo)"), QStringLiteral("4")}});
    FieldRow* bitsRow =
        addField(across, tr("Outer gradient (bits)"), m_outerBits,
                 tr("Bits per element of the weights' change sent over the DCI at each outer "
                    "step; the papers report no loss from 8 or 4 bits."));
    bitsRow->setPointers({QStringLiteral("/parallelism/datacenter_sync/outer_gradient_bits")});
    connect(m_outerBits, &ChoiceField::committed, this, [this, bitsRow](const QString& v) {
        core::Parallelism p = scenario().parallelism;
        bool ok = false;
        const int bits = v.toInt(&ok);
        if (ok)
            p.datacenterSync.outerGradientBits = bits;
        propose(p, bitsRow, false);
    });
    addSyncInt(across, tr("Fragments (streaming)"),
               tr("Pieces the model is synchronised in, one after another; 0 = one per three "
                  "layers (Streaming DiLoCo's choice)."),
               QStringLiteral("fragments"), 0, 10'000, &D::fragments);
    addSyncInt(across, tr("Overlap τ (steps)"),
               tr("Steps a fragment's transfer may take before its result is applied; 0 = it "
                  "blocks. The paper's runs use 1 and lose < 0.2% loss up to 10."),
               QStringLiteral("overlap_steps"), 0, 100'000, &D::overlapSteps);
    m_syncNote = addNote(across, tr("In effect"),
                         tr("Whether the scheme applies: only where DP crosses a datacenter."));

    QFormLayout* placement = addSection(tr("Placement"));
    m_crossing = new ChoiceField;
    m_crossingRow = addField(placement, tr("Layout across datacenters"), m_crossing,
                             tr("Which dimension crosses each datacenter boundary: PP (one "
                                "pipeline, stages split in proportion to GPUs) or DP (whole "
                                "pipelines on each side, gradients cross); by region, or per "
                                "boundary as a chain \"a ─PP─ b ─DP─ c\". Re-makes the shards."));
    m_crossingRow->setPointers({QStringLiteral("/placement/shards")});
    connect(m_crossing, &ChoiceField::committed, this, [this](const QString& value) {
        const std::size_t index = value.toUInt();
        if (index < m_crossingChoices.size())
            proposePlacement(core::pipelinesPerGroup(scenario(), m_crossingChoices[index].groups),
                             m_crossingRow);
    });
    m_rankOrder = new TextField;
    m_rankOrderRow = addField(placement, tr("Rank order (innermost first)"), m_rankOrder,
                              tr("Order of the parallel dimensions over consecutive ranks, "
                                 "innermost first (Megatron: tp, cp, ep, dp, pp)."));
    m_rankOrderRow->setPointers({QStringLiteral("/placement/rank_order")});
    connect(m_rankOrder, &TextField::committed, this, &ParallelismEditor::commitRankOrder);
    m_layersPerStage = new TextField;
    m_layersPerStageRow = addField(
        placement, tr("Layers per stage (layers)"), m_layersPerStage,
        tr("Comma-separated layers of each pipeline stage (PP entries summing to the layers); "
           "empty for an even split."));
    m_layersPerStageRow->setPointers({QStringLiteral("/placement/layers_per_stage")});
    connect(m_layersPerStage, &TextField::committed, this,
            &ParallelismEditor::commitLayersPerStage);
    m_shards = addNote(placement, tr("Shards"),
                       tr("Data-parallel replicas of the pipeline and where each stage runs; "
                          "edit them in the layout view."));
}

IntField* ParallelismEditor::intField(const QString& key) const
{
    for (const IntBinding& b : m_ints)
        if (b.key == key)
            return b.field;
    return nullptr;
}

void ParallelismEditor::addInt(QFormLayout* form, const QString& label, const QString& toolTip,
                               const QString& key, int minimum, int maximum,
                               int core::Parallelism::*member, bool adaptsPlacement)
{
    auto* field = new IntField(minimum, maximum);
    FieldRow* row = addField(form, label, field, toolTip);
    row->setPointers({QStringLiteral("/parallelism/") + key});
    m_ints.push_back({key, field, member});
    // The degrees' rules depend on the model: say which values would be accepted.
    if (key == QLatin1String("tp"))
        row->setRangeRule([this](double typed) {
            return tr("%1 is not a TP degree.\n%2")
                .arg(formatCount(static_cast<std::int64_t>(typed)), tensorParallelRule(scenario()));
        });
    else if (key == QLatin1String("pp"))
        row->setRangeRule([this](double typed) {
            return tr("PP must be a whole number from 1 to the %1 layers (every stage needs a "
                      "layer); %2 is not.")
                .arg(formatCount(scenario().workload.layers),
                     formatCount(static_cast<std::int64_t>(typed)));
        });
    connect(field, &IntField::committed, this, [this, row, member, adaptsPlacement](int value) {
        core::Parallelism p = scenario().parallelism;
        p.*member = value;
        propose(p, row, adaptsPlacement);
    });
}

void ParallelismEditor::addSyncInt(QFormLayout* form, const QString& label, const QString& toolTip,
                                   const QString& key, int minimum, int maximum,
                                   int core::DatacenterSyncOptions::*member)
{
    auto* field = new IntField(minimum, maximum);
    FieldRow* row = addField(form, label, field, toolTip);
    row->setPointers({QStringLiteral("/parallelism/datacenter_sync/") + key});
    m_syncInts.push_back({field, member});
    connect(field, &IntField::committed, this, [this, row, member](int value) {
        core::Parallelism p = scenario().parallelism;
        p.datacenterSync.*member = value;
        propose(p, row, false);
    });
}

void ParallelismEditor::addCheck(QFormLayout* form, const QString& label, const QString& toolTip,
                                 const QString& key, bool core::Parallelism::*member,
                                 bool core::OverlapOptions::*overlapMember)
{
    auto* field = new CheckField(label);
    field->setToolTip(toolTip);
    auto* row = new FieldRow(field);
    form->addRow(row);
    row->setPointers({QStringLiteral("/parallelism/") + key});
    m_checks.push_back({field, member, overlapMember});
    connect(field, &CheckField::committed, this, [this, row, member, overlapMember](bool on) {
        core::Parallelism p = scenario().parallelism;
        if (member)
            p.*member = on;
        else
            p.overlap.*overlapMember = on;
        propose(p, row, false);
    });
}

void ParallelismEditor::propose(const core::Parallelism& parallelism, FieldRow* row,
                                bool adaptsPlacement)
{
    EditProposal proposal;
    proposal.candidate = scenario();
    proposal.candidate.parallelism = parallelism;
    proposal.fields = row->pointers();
    proposal.row = row;
    proposal.adaptPlacement = adaptsPlacement;
    sink()->propose(proposal);
}

void ParallelismEditor::proposePlacement(const core::Placement& placement, FieldRow* row)
{
    EditProposal proposal;
    proposal.candidate = scenario();
    proposal.candidate.placement = placement;
    proposal.fields = row->pointers();
    proposal.row = row;
    sink()->propose(proposal);
}

void ParallelismEditor::commitRankOrder(const QString& text)
{
    core::Placement placement = scenario().placement;
    placement.rankOrder.clear();
    static const QRegularExpression separators(QStringLiteral("[\\s,;-]+"));
    for (const QString& name : text.split(separators, Qt::SkipEmptyParts)) {
        const auto dim = core::parallelDimFromString(name.trimmed().toLower().toStdString());
        if (!dim) {
            m_rankOrderRow->refuse(
                {tr("\"%1\" is not a parallel dimension: expected tp, cp, ep, dp and pp, "
                    "innermost first")
                     .arg(name)});
            return;
        }
        placement.rankOrder.push_back(*dim);
    }
    proposePlacement(placement, m_rankOrderRow);
}

void ParallelismEditor::commitLayersPerStage(const QString& text)
{
    core::Placement placement = scenario().placement;
    placement.layersPerStage.clear();
    static const QRegularExpression separators(QStringLiteral("[\\s,;]+"));
    for (const QString& item : text.split(separators, Qt::SkipEmptyParts)) {
        bool ok = false;
        const int layers = item.toInt(&ok);
        if (!ok || layers < 1) {
            m_layersPerStageRow->refuse(
                {tr("\"%1\" is not a layer count: expected positive integers separated by "
                    "commas, or nothing for an even split")
                     .arg(item)});
            return;
        }
        placement.layersPerStage.push_back(layers);
    }
    proposePlacement(placement, m_layersPerStageRow);
}

void ParallelismEditor::loadValues()
{
    const core::Scenario& s = scenario();
    const core::Parallelism& p = s.parallelism;
    for (const IntBinding& b : m_ints)
        b.field->load(p.*(b.member));
    for (const CheckBinding& b : m_checks)
        b.field->load(b.member ? p.*(b.member) : p.overlap.*(b.overlapMember));
    m_recompute->load(QString::fromLatin1(core::toString(p.recompute)));
    m_gradReduceDtype->load(QString::fromLatin1(core::toString(p.gradReduceDtype)));
    const core::DatacenterSyncOptions& sync = p.datacenterSync;
    m_syncScheme->load(QString::fromLatin1(core::toString(sync.scheme)));
    m_outerBits->load(QString::number(sync.outerGradientBits));
    for (const SyncIntBinding& b : m_syncInts)
        b.field->load(sync.*(b.member));
    const bool synchronous = sync.scheme == core::DatacenterSync::Synchronous;
    m_syncNote->setText(synchronous ? tr("every step crosses the DCI")
                        : core::dataParallelCrossesDatacenters(s)
                            ? tr("between the datacenters DP spans")
                            : tr("no effect: DP stays in one datacenter"));
    const std::int64_t dp = core::dataParallel(s);
    m_dp->setText(dp > 0 ? tr("DP %1 (derived)").arg(formatCount(dp))
                         : tr("— (TP × CP × PP does not divide the GPUs)"));
    const std::int64_t m = dp > 0 ? core::microBatchesPerIteration(s) : 0;
    m_microBatches->setText(m > 0 ? formatCount(m) : QStringLiteral("—"));

    m_crossingChoices = crossingChoices(s);
    std::vector<std::pair<QString, QString>> crossings;
    for (std::size_t i = 0; i < m_crossingChoices.size(); ++i)
        crossings.emplace_back(m_crossingChoices[i].label, QString::number(i));
    m_crossing->setChoices(crossings);
    const int crossing = currentCrossingChoice(s, m_crossingChoices);
    m_crossing->load(crossing >= 0 ? std::optional<QString>(QString::number(crossing))
                                   : std::nullopt);
    m_crossing->setEnabled(!m_crossingChoices.empty());
    if (crossing < 0)
        m_crossing->setPlaceholderText(m_crossingChoices.empty()
                                           ? tr("nothing crosses — one datacenter")
                                           : tr("custom — %1").arg(crossingChain(s)));
    QStringList order;
    for (core::ParallelDim dim : s.placement.rankOrder)
        order << QString::fromLatin1(core::toString(dim));
    m_rankOrder->load(order.join(QStringLiteral(", ")));
    QStringList split;
    for (int layers : s.placement.layersPerStage)
        split << QString::number(layers);
    m_layersPerStage->load(split.join(QStringLiteral(", ")), tr("even split"));
    m_shards->setText(placementSummary(s));
    setTitle(tr("Parallelism: TP %1 × CP %2 × PP %3 × DP %4")
                 .arg(p.tp)
                 .arg(p.cp)
                 .arg(p.pp)
                 .arg(dp > 0 ? formatCount(dp) : QStringLiteral("?")));
}

} // namespace archipelago::views
