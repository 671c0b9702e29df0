// Launch settings (core/launch): every setting exists in the framework's argument list at the
// pinned release (tests/data/launch/, scripts/framework_arguments.py) with a value of its type,
// the rules Megatron-LM's arguments.py enforces hold, every rank lands in its building, and the
// written script, run by bash with a stand-in srun, hands Slurm that hostfile.
#include "clirun.h"
#include "launchfixtures.h"
#include "presetfixture.h"
#include "scenariofixtures.h"

#include "evaluation/costmodel.h"
#include "io/scenarioio.h"
#include "launch/launchbuilders.h"
#include "launch/launchimport.h"
#include "launch/launchplan.h"

#include <QTemporaryDir>
#include <QtTest>

#include <charconv>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>

using namespace archipelago;

namespace {

struct Accepted
{
    std::string type;
    std::set<std::string> choices;
};

std::map<std::string, Accepted> argumentList(core::Framework framework)
{
    const std::string path =
        std::string(ARCHIPELAGO_TEST_DATA "/launch/") + core::toString(framework) + ".txt";
    std::ifstream in(path);
    std::map<std::string, Accepted> list;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#')
            continue;
        std::istringstream words(line);
        std::string name;
        Accepted a;
        words >> name >> a.type;
        for (std::string c; words >> c;)
            a.choices.insert(c);
        list.emplace(name, a);
    }
    return list;
}

bool isInteger(const std::string& text)
{
    long long v = 0;
    const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
    return !text.empty() && r.ec == std::errc{} && r.ptr == text.data() + text.size();
}

bool isNumber(const std::string& text)
{
    double v = 0;
    const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
    return !text.empty() && r.ec == std::errc{} && r.ptr == text.data() + text.size();
}

// Why `value` is not a value of `accepted` in `framework`'s syntax; "" when it is.
std::string typeProblem(core::Framework framework, const Accepted& accepted,
                        const std::string& value)
{
    const bool megatron = framework == core::Framework::MegatronLm;
    std::string text = value;
    if (accepted.type == "switch")
        return value.empty() ? "" : "a switch takes no value";
    if (megatron && value.empty())
        return "needs a value";
    if (accepted.type == "int")
        return isInteger(value) ? "" : "not an integer";
    if (accepted.type == "float")
        return isNumber(value) ? "" : "not a number";
    if (accepted.type == "bool") {
        const bool python = framework == core::Framework::Nemo;
        const bool ok =
            python ? value == "True" || value == "False" : value == "true" || value == "false";
        return ok ? "" : "not a boolean literal";
    }
    if (accepted.type == "list")
        return megatron || (value.starts_with('[') && value.ends_with(']')) ? "" : "not a list";
    // str: quoted in NeMo's Python and TorchTitan's TOML.
    if (!megatron) {
        if (value.size() < 2 || value.front() != '"' || value.back() != '"')
            return "not a quoted string";
        text = value.substr(1, value.size() - 2);
    }
    if (!accepted.choices.empty() && !accepted.choices.contains(text))
        return "'" + text + "' is not one of its choices";
    return "";
}

core::LaunchPlan planFor(const core::Scenario& s, core::Framework framework)
{
    const core::Catalog catalog = core::effectiveCatalog(s);
    return core::launchPlan(s, catalog, core::evaluate(s, catalog), framework);
}

const core::LaunchSetting* find(const core::LaunchPlan& plan, const std::string& name)
{
    for (const core::LaunchSetting& s : plan.settings)
        if (s.name == name)
            return &s;
    return nullptr;
}

std::string readAll(const QString& path)
{
    std::ifstream in(path.toStdString());
    return std::string(std::istreambuf_iterator<char>(in), {});
}

} // namespace

class TestLaunch : public QObject
{
    Q_OBJECT

private slots:
    void everySettingIsInTheArgumentList_data();
    void everySettingIsInTheArgumentList();
    void megatronRulesHold_data();
    void megatronRulesHold();
    void ranksLandInTheirBuildings();
    void pipelineInnerToDataNumbersRanksByReplica();
    void splitShardSpreadsTpGroups();
    void unevenSplitBecomesALayout();
    void unexpressedKnobsAreListed();
    void ncclEnvironmentTakesTheLargestLink();
    void hierarchicalHintNamesTheSetting();
    void scriptHandsSlurmTheHostfile();
    void scriptRefusesTooFewNodes();
    void cliWritesAndRefuses();
};

void TestLaunch::everySettingIsInTheArgumentList_data()
{
    tests::addPresetFrameworkRows();
}

void TestLaunch::everySettingIsInTheArgumentList()
{
    QFETCH(QString, preset);
    QFETCH(int, framework);
    const auto f = static_cast<core::Framework>(framework);
    const auto list = argumentList(f);
    QVERIFY2(list.size() > 100, "the argument list did not load");
    const core::Scenario s = tests::loadPreset(preset.toUtf8().constData());
    const core::LaunchPlan plan = planFor(s, f);
    QVERIFY(plan.settings.size() >= 15);
    std::set<std::string> seen;
    for (const core::LaunchSetting& setting : plan.settings) {
        QVERIFY2(seen.insert(setting.name).second, ("set twice: " + setting.name).c_str());
        const auto it = list.find(setting.name);
        QVERIFY2(it != list.end(), (setting.name + " is not in " + core::displayName(f) + ' ' +
                                    core::pinnedRelease(f) + "'s argument list")
                                       .c_str());
        const std::string problem = typeProblem(f, it->second, setting.value);
        QVERIFY2(problem.empty(), (setting.name + " " + setting.value + ": " + problem).c_str());
    }
    QVERIFY(!core::renderLaunchPlan(plan, "test").empty());
}

void TestLaunch::megatronRulesHold_data()
{
    QTest::addColumn<QString>("preset");
    for (const char* preset : tests::kLaunchPresets)
        QTest::newRow(preset) << preset;
}

// The assertions of megatron/training/arguments.py (core_v0.15.3, validate_args) that the
// scenario's knobs can reach.
void TestLaunch::megatronRulesHold()
{
    QFETCH(QString, preset);
    const core::Scenario s = tests::loadPreset(preset.toUtf8().constData());
    const core::LaunchPlan plan = planFor(s, core::Framework::MegatronLm);
    const auto has = [&](const char* name) { return find(plan, name) != nullptr; };
    if (has("--overlap-param-gather")) {
        QVERIFY(has("--use-distributed-optimizer") || has("--use-megatron-fsdp"));
        QVERIFY(has("--overlap-grad-reduce"));
    }
    if (has("--tp-comm-overlap"))
        QVERIFY(has("--sequence-parallel"));
    QVERIFY(!(has("--pipeline-model-parallel-layout") &&
              has("--num-virtual-stages-per-pipeline-rank")));
    std::string cudaConnections;
    for (const core::LaunchSetting& e : plan.environment)
        if (e.name == "CUDA_DEVICE_MAX_CONNECTIONS")
            cudaConnections = e.value;
    if (has("--use-megatron-fsdp")) {
        QCOMPARE(find(plan, "--ckpt-format") ? find(plan, "--ckpt-format")->value
                                             : std::string("fsdp_dtensor"),
                 std::string("fsdp_dtensor"));
        QVERIFY(cudaConnections != "1");
    }
    // TransformerConfig.__post_init__: an uneven first / last stage and the middle ranks each
    // divisible by the virtual stages, the middle layers by the middle ranks.
    if (has("--decoder-first-pipeline-num-layers") || has("--decoder-last-pipeline-num-layers")) {
        const int v = has("--num-virtual-stages-per-pipeline-rank")
                          ? std::stoi(find(plan, "--num-virtual-stages-per-pipeline-rank")->value)
                          : 1;
        int middleLayers = s.workload.layers;
        int middleRanks = s.parallelism.pp;
        for (const char* edge :
             {"--decoder-first-pipeline-num-layers", "--decoder-last-pipeline-num-layers"})
            if (const core::LaunchSetting* e = find(plan, edge)) {
                QCOMPARE(std::stoi(e->value) % v, 0);
                middleLayers -= std::stoi(e->value);
                --middleRanks;
            }
        QCOMPARE(middleLayers % middleRanks, 0);
        QCOMPARE(middleLayers / middleRanks % v, 0);
    }
    // The layers add up, per chunk as the scenario splits them, embedding first, loss last.
    if (const core::LaunchSetting* layout = find(plan, "--pipeline-model-parallel-layout")) {
        const std::vector<std::string> chunks =
            core::parsePipelineLayout(layout->value).value_or(std::vector<std::string>{});
        const std::vector<int> expected = core::launch::chunkLayers(s);
        QCOMPARE(chunks.size(), expected.size());
        QCOMPARE(chunks.size() % static_cast<std::size_t>(s.parallelism.pp), std::size_t{0});
        for (std::size_t i = 0; i < chunks.size(); ++i)
            QCOMPARE(static_cast<int>(std::count(chunks[i].begin(), chunks[i].end(), 't')),
                     expected[i]);
        QVERIFY(chunks.front().starts_with('E'));
        QVERIFY(chunks.back().ends_with('L'));
    }
    QCOMPARE(std::stoll(find(plan, "--global-batch-size")->value) %
                 (std::stoll(find(plan, "--micro-batch-size")->value) * core::dataParallel(s)),
             0LL);
}

void TestLaunch::ranksLandInTheirBuildings()
{
    // TP 8 x CP 2 x PP 4 x DP 8 (two shards of 4 replicas: stages in a,a,a,b and a,b,b,b),
    // DP inner to PP: Megatron-LM's rank = t + 8 (c + 2 (d + 8 s)).
    const core::Scenario s = tests::multiDcScenario();
    const core::RankLayout layout = core::rankLayout(s, core::effectiveCatalog(s));
    QCOMPARE(layout.worldSize, std::int64_t{512});
    QCOMPARE(layout.gpusPerNode, 4); // the fixture catalog's hosts
    const std::vector<std::pair<core::Id, std::int64_t>> expected{
        {0, 128 + 64}, {4, 64}, {0, 64}, {4, 64 + 128}};
    QCOMPARE(layout.runs.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        QCOMPARE(layout.runs[i].datacenter, expected[i].first);
        QCOMPARE(layout.runs[i].ranks, expected[i].second);
    }
    QCOMPARE(layout.buildings.size(), std::size_t{2});
    QCOMPARE(layout.buildings[0].nodes, std::int64_t{64});
    QCOMPARE(layout.buildings[1].nodes, std::int64_t{64});
    QVERIFY(layout.notes.empty());
}

void TestLaunch::pipelineInnerToDataNumbersRanksByReplica()
{
    core::Scenario s = tests::multiDcScenario();
    s.placement.rankOrder = {core::ParallelDim::Tp, core::ParallelDim::Cp, core::ParallelDim::Ep,
                             core::ParallelDim::Pp, core::ParallelDim::Dp};
    QVERIFY(core::pipelineInnerToData(s.placement));
    // rank = t + 8 (c + 2 (s + 4 d)): each replica's four stages in turn.
    const core::RankLayout layout = core::rankLayout(s, core::effectiveCatalog(s));
    QCOMPARE(layout.runs.size(), std::size_t{16});
    QCOMPARE(layout.runs[0].datacenter, 0);
    QCOMPARE(layout.runs[0].ranks, std::int64_t{48});
    QCOMPARE(layout.runs[1].datacenter, 4);
    QCOMPARE(layout.runs[1].ranks, std::int64_t{16});
    QCOMPARE(layout.runs[9].ranks, std::int64_t{48}); // replica 4: a, then b, b, b
    const core::LaunchPlan plan = planFor(s, core::Framework::MegatronLm);
    QVERIFY(find(plan, "--use-tp-pp-dp-mapping"));
    QVERIFY(find(planFor(s, core::Framework::Nemo), "trainer.strategy.use_tp_pp_dp_mapping"));
}

void TestLaunch::splitShardSpreadsTpGroups()
{
    core::Scenario s = tests::multiDcScenario();
    s.placement.shards = {core::PlacementShard(8, {0, 0, 0, 0}, {0, 4}, core::ParallelDim::Tp)};
    const core::RankLayout layout = core::rankLayout(s, core::effectiveCatalog(s));
    // Every TP group of 8: ranks 0-3 in dc-a, 4-7 in dc-b.
    QCOMPARE(layout.runs.size(), std::size_t{128});
    for (const core::RankRun& run : layout.runs)
        QCOMPARE(run.ranks, std::int64_t{4});
    QCOMPARE(layout.runs[0].datacenter, 0);
    QCOMPARE(layout.runs[1].datacenter, 4);
    QCOMPARE(layout.buildings[0].ranks, std::int64_t{256});
    // Each building's ranks fill its 4-GPU nodes in order: dc-a's first node holds ranks 0-3,
    // its second 8-11.
    std::vector<std::vector<std::string>> names(2);
    for (int n = 0; n < 64; ++n) {
        names[0].push_back("a" + std::to_string(n));
        names[1].push_back("b" + std::to_string(n));
    }
    const std::vector<std::string> hosts = core::hostfileLines(layout, names);
    QCOMPARE(hosts.size(), std::size_t{512});
    QCOMPARE(hosts[0], std::string("a0"));
    QCOMPARE(hosts[4], std::string("b0"));
    QCOMPARE(hosts[8], std::string("a1"));
    QCOMPARE(hosts[12], std::string("b1"));
}

void TestLaunch::unevenSplitBecomesALayout()
{
    core::Scenario s = tests::multiDcScenario(); // layers 9, 7, 8, 8 on PP 4, v 2
    QCOMPARE(core::launch::chunkLayers(s), (std::vector<int>{5, 4, 4, 4, 4, 3, 4, 4}));
    QCOMPARE(core::launch::pipelineLayout(s), std::string("Et*5|(t*4|)*4,t*3|t*4|t*4L"));
    s.placement.layersPerStage = {7, 9, 9, 7};
    s.parallelism.virtualStages = 1;
    const core::LaunchPlan plan = planFor(s, core::Framework::MegatronLm);
    QCOMPARE(find(plan, "--decoder-first-pipeline-num-layers")->value, std::string("7"));
    QCOMPARE(find(plan, "--decoder-last-pipeline-num-layers")->value, std::string("7"));
    QVERIFY(!find(plan, "--pipeline-model-parallel-layout"));
    s.placement.layersPerStage = {8, 8, 8, 8, 8, 8, 8, 6};
    s.parallelism.pp = 8;
    s.workload.layers = 62;
    s.workload.mtpDepth = 2;
    QCOMPARE(core::launch::pipelineLayout(s), std::string("Et*8|(t*8|)*6,t*6m*2L"));
}

void TestLaunch::unexpressedKnobsAreListed()
{
    core::Scenario s = tests::multiDcScenario();
    s.schedule.kind = core::ScheduleKind::DualPipe;
    s.workload.parallelBlock = true;
    s.parallelism.datacenterSync.scheme = core::DatacenterSync::DiLoCo;
    for (core::Framework f :
         {core::Framework::MegatronLm, core::Framework::Nemo, core::Framework::TorchTitan}) {
        const core::LaunchPlan plan = planFor(s, f);
        const std::string text = core::renderLaunchPlan(plan, "test");
        for (const char* knob : {"dualpipe", "diloco", "parallel"}) {
            bool listed = false;
            for (const core::Unexpressed& u : plan.unexpressed)
                listed = listed || u.knob.find(knob) != std::string::npos;
            if (f == core::Framework::TorchTitan && std::string(knob) == "dualpipe")
                QCOMPARE(find(plan, "parallelism.pipeline_parallel_schedule")->value,
                         std::string("\"DualPipeV\""));
            else
                QVERIFY2(listed, (std::string(core::toString(f)) + " drops " + knob).c_str());
        }
        QVERIFY(text.find("# Not expressible in") != std::string::npos);
    }
}

void TestLaunch::ncclEnvironmentTakesTheLargestLink()
{
    core::Scenario s = tests::multiDcScenario();
    const core::LaunchPlan plan = planFor(s, core::Framework::MegatronLm);
    std::map<std::string, std::string> env;
    for (const core::LaunchSetting& e : plan.environment)
        env[e.name] = e.value;
    QCOMPARE(env["NCCL_BUFFSIZE"], std::string("8388608"));
    QCOMPARE(env["NCCL_MIN_NCHANNELS"], std::string("8"));
    QCOMPARE(env["NCCL_NCHANNELS_PER_NET_PEER"], std::string("4"));
    QCOMPARE(env["NCCL_P2P_NET_CHUNKSIZE"], std::string("262144"));
    QCOMPARE(env["NCCL_IB_QPS_PER_CONNECTION"], std::string("4"));
    QCOMPARE(env["CUDA_DEVICE_MAX_CONNECTIONS"], std::string("1"));
    // One building: no long-haul settings.
    s.placement.shards = {core::PlacementShard(4, {0, 0, 0, 0})};
    for (const core::LaunchSetting& e : planFor(s, core::Framework::MegatronLm).environment)
        QVERIFY(!e.name.starts_with("NCCL_"));
}

// DP across buildings with one optimizer instance: each framework's note names its own setting
// for the hierarchical scheme; with one instance per building the note is gone.
void TestLaunch::hierarchicalHintNamesTheSetting()
{
    core::Scenario s = tests::loadPreset("scale-across-100k-3-regions.json");
    QVERIFY(core::dataParallelCrossesDatacenters(s));
    const std::pair<core::Framework, const char*> settings[] = {
        {core::Framework::MegatronLm, "--num-distributed-optimizer-instances"},
        {core::Framework::Nemo, "trainer.strategy.num_distributed_optimizer_instances"},
        {core::Framework::TorchTitan, "parallelism.data_parallel_replicate_degree"}};
    const auto hinted = [&](const core::LaunchPlan& plan, const char* setting) {
        return std::any_of(plan.notes.begin(), plan.notes.end(), [&](const std::string& n) {
            return n.find("one optimizer instance") != std::string::npos &&
                   n.find(setting) != std::string::npos;
        });
    };
    for (const auto& [framework, setting] : settings)
        QVERIFY2(hinted(planFor(s, framework), setting), setting);
    s.parallelism.distributedOptimizerInstances = 3;
    const core::LaunchPlan plan = planFor(s, core::Framework::MegatronLm);
    QVERIFY(!hinted(plan, "--num-distributed-optimizer-instances"));
    QCOMPARE(find(plan, "--num-distributed-optimizer-instances")->value, std::string("3"));
    QCOMPARE(
        find(planFor(s, core::Framework::TorchTitan), "parallelism.data_parallel_replicate_degree")
            ->value,
        std::string("3"));
}

void TestLaunch::scriptHandsSlurmTheHostfile()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString stub = dir.filePath("srun");
    {
        std::ofstream out(stub.toStdString());
        out << "#!/bin/bash\ncp \"$SLURM_HOSTFILE\" \"$OUT/hosts\"\n"
               "printf '%s\\n' \"$@\" > \"$OUT/args\"\necho \"$MASTER_ADDR\" > \"$OUT/master\"\n"
               "env | grep '^NCCL_' | sort > \"$OUT/env\"\n";
    }
    QFile::setPermissions(stub, QFileDevice::ReadOwner | QFileDevice::ExeOwner);
    const core::Scenario s = tests::multiDcScenario();
    const core::LaunchPlan plan = planFor(s, core::Framework::MegatronLm);
    const QString script = dir.filePath("launch.sh");
    {
        std::ofstream out(script.toStdString());
        out << core::renderLaunchPlan(plan, "test");
    }
    std::vector<std::vector<std::string>> names(2);
    std::string a, b;
    for (int n = 0; n < 64; ++n) {
        names[0].push_back("east" + std::to_string(n));
        names[1].push_back("west" + std::to_string(n));
        a += names[0].back() + (n % 5 == 4 ? "\n" : " ");
        b += names[1].back() + " ";
    }
    const std::string command = "cd '" + dir.path().toStdString() + "' && PATH='" +
                                dir.path().toStdString() + "':\"$PATH\" OUT=. " + "NODES_DC_A='" +
                                a + "' NODES_DC_B='" + b +
                                "' CHECKPOINT_DIR=/ckpt bash launch.sh --data-path /d";
    QCOMPARE(std::system(command.c_str()), 0);
    const std::vector<std::string> expected = core::hostfileLines(plan.ranks, names);
    std::string joined;
    for (const std::string& h : expected)
        joined += h + "\n";
    QCOMPARE(readAll(dir.filePath("hosts")), joined);
    QCOMPARE(readAll(dir.filePath("master")), std::string("east0\n"));
    const std::string args = readAll(dir.filePath("args"));
    QVERIFY(args.starts_with("--distribution=arbitrary\n--ntasks=512\n"));
    QVERIFY(args.find("--tensor-model-parallel-size\n8\n") != std::string::npos);
    QVERIFY(args.find("--save\n/ckpt\n") != std::string::npos);
    QVERIFY(args.ends_with("--data-path\n/d\n"));
    QVERIFY(readAll(dir.filePath("env")).find("NCCL_BUFFSIZE=8388608") != std::string::npos);
}

void TestLaunch::scriptRefusesTooFewNodes()
{
    QTemporaryDir dir;
    const core::Scenario s = tests::multiDcScenario();
    const QString script = dir.filePath("launch.sh");
    {
        std::ofstream out(script.toStdString());
        out << core::renderLaunchPlan(planFor(s, core::Framework::TorchTitan), "test");
    }
    const std::string command = "cd '" + dir.path().toStdString() +
                                "' && NODES_DC_A='x y' NODES_DC_B='z' bash launch.sh 2> err";
    QVERIFY(std::system(command.c_str()) != 0);
    QVERIFY(readAll(dir.filePath("err")).find("NODES_DC_A lists 2 nodes; the design needs 64") !=
            std::string::npos);
    const std::string unset = "cd '" + dir.path().toStdString() + "' && bash launch.sh 2> err";
    QVERIFY(std::system(unset.c_str()) != 0);
    QVERIFY(readAll(dir.filePath("err")).find("list the 64 nodes of dc-a") != std::string::npos);
}

void TestLaunch::cliWritesAndRefuses()
{
    QTemporaryDir dir;
    const std::string out = dir.filePath("megatron.sh").toStdString();
    const std::string preset = tests::presetPath("llama3-405b-two-buildings.json");
    auto run = tests::runCli({"launch", preset, "--for", "megatron-lm", "-o", out});
    QCOMPARE(run.exitCode, 0);
    QVERIFY(run.err.find("16384 GPUs") != std::string::npos);
    QVERIFY(readAll(QString::fromStdString(out)).find("--pipeline-model-parallel-size 16") !=
            std::string::npos);
    QVERIFY(QFileInfo(QString::fromStdString(out)).isExecutable());
    run = tests::runCli({"launch", preset, "--for", "deepspeed"});
    QCOMPARE(run.exitCode, 2);
    QVERIFY(run.err.find("unknown framework 'deepspeed'") != std::string::npos);
    QCOMPARE(tests::runCli({"launch", preset}).exitCode, 2);
    run = tests::runCli({"launch", preset, "--for", "nemo", "--for", "torchtitan"});
    QCOMPARE(run.exitCode, 2);
    QVERIFY(run.err.find("--for given twice") != std::string::npos);
    QCOMPARE(tests::runCli({"launch", dir.filePath("none.json").toStdString(), "--for", "nemo"})
                 .exitCode,
             1);
    run = tests::runCli({"launch", preset, "--for", "torchtitan"});
    QCOMPARE(run.exitCode, 0);
    QVERIFY(run.out.find("[parallelism]\n") != std::string::npos);

    // A design the model says does not fit is written with the warning in the file and on
    // stderr, never silently.
    core::LoadResult loaded = core::loadScenarioFile(preset);
    core::Scenario big = *loaded.scenario;
    big.workload.hidden *= 2;
    big.workload.heads *= 2;
    big.workload.ffnHidden *= 2;
    const std::string bigPath = dir.filePath("big.json").toStdString();
    {
        std::ofstream f(bigPath);
        f << core::serializeScenario(big);
    }
    run = tests::runCli({"launch", bigPath, "--for", "megatron-lm"});
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(run.err.find("does not fit in memory") != std::string::npos, run.err.c_str());
    QVERIFY(run.out.find("#   - WARNING: the model predicts") != std::string::npos);
}

QTEST_GUILESS_MAIN(TestLaunch)
#include "test_launch.moc"
