// Import (core/launch/launchimport.h): launch → import gives back the workload and parallelism
// each framework expresses, on every preset; the readers take real command lines, scripts,
// NeMo recipe YAML and TorchTitan TOML; a bad value names its setting; the CLI writes the
// scenario and says what it set and ignored.
#include "clirun.h"
#include "launchfixtures.h"
#include "presetfixture.h"

#include "evaluation/costmodel.h"
#include "io/scenarioio.h"
#include "launch/importreader.h"
#include "launch/launchimport.h"
#include "launch/launchplan.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace archipelago;

namespace {

bool unexpressed(const core::LaunchPlan& plan, const char* word)
{
    return std::any_of(
        plan.unexpressed.begin(), plan.unexpressed.end(),
        [&](const core::Unexpressed& u) { return u.knob.find(word) != std::string::npos; });
}

core::Scenario scenarioWith(const std::string& settings, core::Framework framework,
                            const core::Scenario& base)
{
    const core::ImportedSettings imported =
        core::importLaunchSettings(framework, settings, base, "test");
    for (const core::Diagnostic& d : imported.errors)
        qWarning("%s", d.toString().c_str());
    if (!imported.scenario)
        qFatal("import failed");
    return *imported.scenario;
}

} // namespace

class TestLaunchImport : public QObject
{
    Q_OBJECT

private slots:
    void launchThenImportRoundTrips_data();
    void launchThenImportRoundTrips();
    void layoutParsesAsMegatronDoes();
    void layerFrequencyAndWindow();
    void megatronCommandLine();
    void badValueNamesItsSetting();
    void parallelismAloneKeepsTheShape();
    void nemoRecipeYaml();
    void torchTitanTomlAndFlags();
    void importOverAnotherTopology();
    void cliImports();
};

void TestLaunchImport::launchThenImportRoundTrips_data()
{
    tests::addPresetFrameworkRows();
}

void TestLaunchImport::launchThenImportRoundTrips()
{
    QFETCH(QString, preset);
    QFETCH(int, framework);
    const auto f = static_cast<core::Framework>(framework);
    const core::Scenario original = tests::loadPreset(preset.toUtf8().constData());
    const core::Catalog catalog = core::effectiveCatalog(original);
    const core::LaunchPlan plan =
        core::launchPlan(original, catalog, core::evaluate(original, catalog), f);
    const std::string script = core::renderLaunchPlan(plan, "test");
    const core::ImportedSettings imported =
        core::importLaunchSettings(f, script, original, "script");
    QVERIFY(imported.errors.empty());
    QVERIFY(imported.scenario.has_value());
    const core::Scenario& back = *imported.scenario;

    // Everything the framework expresses comes back; what it cannot express is listed in the
    // plan (and kept from the scenario imported over).
    core::Workload want = original.workload;
    core::Workload got = back.workload;
    const double tokensPerIteration = static_cast<double>(want.globalBatch) * want.seqLen;
    QVERIFY(std::abs(got.trainTokens - want.trainTokens) < tokensPerIteration);
    got.trainTokens = want.trainTokens;
    QCOMPARE(got, want);
    core::Parallelism wantPar = original.parallelism;
    core::Parallelism gotPar = back.parallelism;
    if (unexpressed(plan, "ZeRO-1")) {
        QCOMPARE(gotPar.zeroStage, 2);
        gotPar.zeroStage = wantPar.zeroStage;
    }
    QCOMPARE(gotPar, wantPar);
    if (!unexpressed(plan, "schedule"))
        QCOMPARE(back.schedule, original.schedule);
    QCOMPARE(core::effectiveLayersPerStage(back), core::effectiveLayersPerStage(original));
    QCOMPARE(back.placement.shards, original.placement.shards);
    QCOMPARE(back.placement.rankOrder, original.placement.rankOrder);
    QCOMPARE(back.topology, original.topology);
}

void TestLaunchImport::layoutParsesAsMegatronDoes()
{
    // The example of parse_str_to_list's docstring:
    // [["E","t","t","t"]]+[["t","t"]]*29+[["m"],["L"]].
    const auto chunks = core::parsePipelineLayout("Ettt|(tt|)*29,m|L");
    QVERIFY(chunks.has_value());
    QCOMPARE(chunks->size(), std::size_t{32});
    QCOMPARE(chunks->front(), std::string("Ettt"));
    QCOMPARE((*chunks)[1], std::string("tt"));
    QCOMPARE((*chunks)[29], std::string("tt"));
    QCOMPARE((*chunks)[30], std::string("m"));
    QCOMPARE(chunks->back(), std::string("L"));
    QVERIFY(!core::parsePipelineLayout("Et|x|L").has_value());
}

void TestLaunchImport::layerFrequencyAndWindow()
{
    using core::launch::leadingDenseLayers;
    using core::launch::windowLeft;
    QCOMPARE(leadingDenseLayers("([0]*3+[1]*58)"), std::optional<int>(3));
    QCOMPARE(leadingDenseLayers("[0]*1+[1]*26"), std::optional<int>(1));
    QCOMPARE(leadingDenseLayers("[0,0,1,1,1]"), std::optional<int>(2));
    QCOMPARE(leadingDenseLayers("1"), std::optional<int>(0));
    QVERIFY(!leadingDenseLayers("[1,0,1]").has_value()); // interleaved dense layers
    QVERIFY(!leadingDenseLayers("2").has_value());
    QCOMPARE(windowLeft("4096,0"), std::optional<int>(4096));
    QCOMPARE(windowLeft("(4096, 0)"), std::optional<int>(4096));
    QCOMPARE(windowLeft("[128,-1]"), std::optional<int>(128));
    QVERIFY(!windowLeft("4096").has_value());
    QVERIFY(!windowLeft("a,0").has_value());
}

void TestLaunchImport::megatronCommandLine()
{
    const core::Scenario base = tests::loadPreset("gpt3-175b-1024-a100.json");
    // A script as people write them: variables, continuations, --flag=value, comments, quotes.
    const std::string script = R"(#!/bin/bash
TP=8
PP=8   # stages
GPT_ARGS="--num-layers 96 --hidden-size 12288 --num-attention-heads 96"
torchrun --nproc_per_node 8 --nnodes 16 pretrain_gpt.py \
    --tensor-model-parallel-size $TP --pipeline-model-parallel-size=${PP} \
    $GPT_ARGS --seq-length 2048 --max-position-embeddings 2048 \
    --micro-batch-size 1 --global-batch-size 1536 --sequence-parallel \
    --use-distributed-optimizer --overlap-grad-reduce --overlap-param-gather \
    --recompute-granularity selective --lr 6.0e-5 --bf16 \
    --moe-layer-freq '([0]*2+[1]*94)' --vocab-size 51200
)";
    const core::ImportedSettings imported =
        core::importLaunchSettings(core::Framework::MegatronLm, script, base, "run.sh");
    for (const core::Diagnostic& d : imported.errors)
        qWarning("%s", d.toString().c_str());
    QVERIFY(imported.scenario.has_value());
    const core::Scenario& s = *imported.scenario;
    QCOMPARE(s.parallelism.tp, 8);
    QCOMPARE(s.parallelism.pp, 8);
    QCOMPARE(s.workload.layers, 96);
    QCOMPARE(s.workload.hidden, 12288);
    QCOMPARE(s.workload.kvHeads, 96); // no --group-query-attention
    QCOMPARE(s.workload.globalBatch, 1536);
    QCOMPARE(s.workload.activation, core::FfnActivation::Gelu);
    QVERIFY(s.workload.tiedEmbeddings); // Megatron-LM's default
    QCOMPARE(s.parallelism.zeroStage, 1);
    QVERIFY(s.parallelism.sequenceParallel);
    QCOMPARE(s.parallelism.recompute, core::Recompute::Selective);
    QCOMPARE(s.parallelism.virtualStages, 1);
    QCOMPARE(s.schedule.kind, core::ScheduleKind::OneFOneB);
    QCOMPARE(core::dataParallel(s), std::int64_t{1024 / 64});
    // --lr is no knob of the model; torchrun's own options are not listed as ignored.
    const auto& ignored = imported.ignored;
    QVERIFY(std::find(ignored.begin(), ignored.end(), "--lr 6.0e-5") != ignored.end());
    for (const std::string& i : ignored)
        QVERIFY2(!i.starts_with("--nproc_per_node"), i.c_str());
    // --moe-layer-freq without --num-experts is a dense model: read and ignored.
    QCOMPARE(s.workload.moe.experts, 0);
}

void TestLaunchImport::badValueNamesItsSetting()
{
    const core::Scenario base = tests::loadPreset("gpt3-175b-1024-a100.json");
    const core::ImportedSettings bad = core::importLaunchSettings(
        core::Framework::MegatronLm, "--tensor-model-parallel-size eight --num-layers 96", base,
        "cmd");
    QVERIFY(!bad.scenario.has_value());
    QCOMPARE(bad.errors.size(), std::size_t{1});
    QCOMPARE(
        bad.errors[0].toString(),
        std::string("cmd: --tensor-model-parallel-size: expected an integer from 1 to 1000000000, "
                    "found 'eight'"));
    const core::ImportedSettings unclosed = core::importLaunchSettings(
        core::Framework::MegatronLm, "python pretrain_gpt.py\n--num-layers '96\n", base, "x.sh");
    QVERIFY(!unclosed.errors.empty());
    QVERIFY(unclosed.errors[0].toString().find("line 2: unclosed '") != std::string::npos);
    // A design that cannot be placed on the topology is refused with the check's reason.
    const core::ImportedSettings unplaceable = core::importLaunchSettings(
        core::Framework::MegatronLm, "--tensor-model-parallel-size 7", base, "cmd");
    QVERIFY(!unplaceable.scenario.has_value());
    QVERIFY(!unplaceable.errors.empty());
    QVERIFY(core::importLaunchSettings(core::Framework::Nemo, "echo hello", base, "cmd")
                .errors[0]
                .message.find("no NeMo settings found") != std::string::npos);
}

void TestLaunchImport::parallelismAloneKeepsTheShape()
{
    // Pasting only the parallel flags must not turn a GQA SwiGLU model into Megatron-LM's
    // default MHA GeLU one.
    const core::Scenario base = tests::loadPreset("llama3-405b-16k-h100.json");
    const core::ImportedSettings imported = core::importLaunchSettings(
        core::Framework::MegatronLm,
        "--tensor-model-parallel-size 8 --pipeline-model-parallel-size 2 "
        "--global-batch-size 2048",
        base, "cmd");
    QVERIFY(imported.scenario.has_value());
    QCOMPARE(imported.scenario->workload.kvHeads, base.workload.kvHeads);
    QCOMPARE(imported.scenario->workload.activation, core::FfnActivation::Swiglu);
    QCOMPARE(imported.scenario->workload.tiedEmbeddings, base.workload.tiedEmbeddings);
    QCOMPARE(imported.scenario->parallelism.pp, 2);
    QCOMPARE(imported.scenario->parallelism.virtualStages, 1); // Megatron-LM's default
    QVERIFY(std::any_of(imported.notes.begin(), imported.notes.end(), [](const std::string& n) {
        return n.find("model shape is kept") != std::string::npos;
    }));
}

void TestLaunchImport::nemoRecipeYaml()
{
    const core::Scenario base = tests::loadPreset("llama3-405b-16k-h100.json");
    const std::string yaml = R"(_target_: nemo.collections.llm.api.pretrain
trainer:
  _target_: nemo.lightning.pytorch.trainer.Trainer
  num_nodes: 2048
  callbacks:
  - _target_: nemo.utils.exp_manager.TimingCallback
    every_n: 10
  strategy:
    _target_: nemo.lightning.pytorch.strategies.megatron_strategy.MegatronStrategy
    tensor_model_parallel_size: 8
    pipeline_model_parallel_size: 16
    virtual_pipeline_model_parallel_size: null
    sequence_parallel: true   # with TP
    ddp:
      grad_reduce_in_fp32: false
data:
  micro_batch_size: 1
  global_batch_size: 2048
)";
    const core::Scenario s = scenarioWith(yaml, core::Framework::Nemo, base);
    QCOMPARE(s.parallelism.tp, 8);
    QCOMPARE(s.parallelism.pp, 16);
    QCOMPARE(s.parallelism.virtualStages, 1); // null: no virtual pipeline
    QCOMPARE(s.schedule.kind, core::ScheduleKind::OneFOneB);
    QVERIFY(s.parallelism.sequenceParallel);
    QCOMPARE(s.parallelism.gradReduceDtype, core::GradReduceDtype::Bf16);
    QCOMPARE(s.workload.globalBatch, 2048);
    QCOMPARE(s.workload.layers, base.workload.layers); // not in the recipe: kept
}

void TestLaunchImport::torchTitanTomlAndFlags()
{
    const core::Scenario base = tests::loadPreset("llama3-405b-16k-h100.json");
    const std::string toml = R"([parallelism]
data_parallel_replicate_degree = 1
data_parallel_shard_degree = 128  # FSDP
tensor_parallel_degree = 8
pipeline_parallel_degree = 16
pipeline_parallel_schedule = "1F1B"

[activation_checkpoint]
mode = "full"

[training]
global_batch_size = 2048
seq_len = 8192
)";
    core::Scenario s = scenarioWith(toml, core::Framework::TorchTitan, base);
    QCOMPARE(s.parallelism.zeroStage, 3);
    QCOMPARE(s.parallelism.recompute, core::Recompute::Full);
    QCOMPARE(s.schedule.kind, core::ScheduleKind::OneFOneB);
    // A command-line flag overrides the file, as TorchTitan's own parser does.
    s = scenarioWith(toml + "\n# launched with\n# --activation_checkpoint.mode selective\n",
                     core::Framework::TorchTitan, base);
    QCOMPARE(s.parallelism.recompute, core::Recompute::Full); // a comment is no flag
    s = scenarioWith("python -m torchtitan.train --activation_checkpoint.mode=selective\n" + toml,
                     core::Framework::TorchTitan, base);
    QCOMPARE(s.parallelism.recompute, core::Recompute::Selective);
}

void TestLaunchImport::importOverAnotherTopology()
{
    // The two-building preset's Megatron-LM settings over the single-building 16k preset: the
    // degrees come along, the placement is re-made for that topology.
    const core::Scenario two = tests::loadPreset("llama3-405b-two-buildings.json");
    const core::Scenario one = tests::loadPreset("llama3-405b-16k-h100.json");
    const core::Catalog catalog = core::effectiveCatalog(two);
    const std::string script = core::renderLaunchPlan(
        core::launchPlan(two, catalog, core::evaluate(two, catalog), core::Framework::MegatronLm),
        "test");
    const core::Scenario s = scenarioWith(script, core::Framework::MegatronLm, one);
    QCOMPARE(s.topology, one.topology);
    QCOMPARE(s.parallelism.tp, two.parallelism.tp);
    QCOMPARE(s.parallelism.pp, two.parallelism.pp);
    QCOMPARE(core::dataParallel(s), core::dataParallel(two));
    for (core::Id dc : s.placement.shards.empty() ? std::vector<core::Id>{}
                                                  : s.placement.shards[0].stageDatacenters)
        QCOMPARE(dc, one.topology.datacenters.front().id);
}

void TestLaunchImport::cliImports()
{
    QTemporaryDir dir;
    const std::string preset = tests::presetPath("gpt3-175b-1024-a100.json");
    const std::string out = dir.filePath("imported.json").toStdString();
    auto run = tests::runCli({"import", "megatron-lm",
                              "pretrain_gpt.py --tensor-model-parallel-size 4 "
                              "--pipeline-model-parallel-size 16 --num-layers 96 --lr 1e-4",
                              "--over", preset, "-o", out});
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(run.err.find("set: TP 4, CP 1, PP 16") != std::string::npos, run.err.c_str());
    QVERIFY(run.err.find("ignored (no knob in the model): --lr 1e-4") != std::string::npos);
    const core::LoadResult loaded = core::loadScenarioFile(out);
    QVERIFY(loaded.ok());
    QCOMPARE(loaded.scenario->parallelism.tp, 4);

    // A launch script as a file, and the usage errors.
    const std::string script = dir.filePath("launch.sh").toStdString();
    QCOMPARE(tests::runCli({"launch", preset, "--for", "nemo", "-o", script}).exitCode, 0);
    run = tests::runCli({"import", "nemo", script, "--over", preset});
    QCOMPARE(run.exitCode, 0);
    QVERIFY(core::parseScenario(run.out, "stdout").ok());
    QCOMPARE(tests::runCli({"import", "megatron-lm", "--tensor-model-parallel-size 4"}).exitCode,
             2);
    QCOMPARE(tests::runCli({"import", "deepspeed", "x", "--over", preset}).exitCode, 2);
    run = tests::runCli({"import", "nemo", script, "--over", preset, "--over", preset});
    QCOMPARE(run.exitCode, 2);
    QVERIFY(run.err.find("--over given twice") != std::string::npos);
    run = tests::runCli({"import", "megatron-lm", "--num-layers x", "--over", preset});
    QCOMPARE(run.exitCode, 1);
    QVERIFY(run.err.find("--num-layers: expected an integer") != std::string::npos);
}

QTEST_GUILESS_MAIN(TestLaunchImport)
#include "test_launchimport.moc"
