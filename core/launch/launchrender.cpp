// The launch plan as one bash script for sbatch: the buildings' node lists, the Slurm hostfile
// that puts every rank in its building (srun --distribution=arbitrary reads SLURM_HOSTFILE, one
// host per task in rank order; Slurm's srun documentation), the NCCL environment and the
// framework's settings.
#include "launch/launchbuilders.h"
#include "launch/launchplan.h"

#include "io/textfile.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <sstream>

namespace archipelago::core {

namespace {

// A word the shell passes through unchanged, else single-quoted; "${VAR}" stays expandable.
std::string shellWord(const std::string& text)
{
    if (text.empty())
        return "''";
    const bool plain = std::all_of(text.begin(), text.end(), [](unsigned char c) {
        return std::isalnum(c) ||
               std::string_view("_.,:/=+-@%").find(static_cast<char>(c)) != std::string_view::npos;
    });
    if (plain)
        return text;
    if (text.starts_with("${") && text.find_first_of("'\"`\\ ", 0) == std::string::npos)
        return "\"" + text + "\"";
    std::string out = "'";
    for (char c : text)
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

std::string padded(std::string text, std::size_t width)
{
    if (text.size() < width)
        text.append(width - text.size(), ' ');
    else
        text += ' ';
    return text;
}

std::string envName(const std::string& building)
{
    std::string name = "NODES_";
    for (unsigned char c : building)
        name += std::isalnum(c) ? static_cast<char>(std::toupper(c)) : '_';
    return name;
}

// Text safe inside a double-quoted ${VAR:?message}.
std::string plainText(const std::string& text)
{
    std::string out;
    for (unsigned char c : text)
        out += std::isalnum(c) || c == ' ' || c == '-' || c == '_' || c == '.'
                   ? static_cast<char>(c)
                   : '_';
    return out;
}

std::string withThousands(std::int64_t n)
{
    std::string digits = std::to_string(n);
    for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3)
        digits.insert(static_cast<std::size_t>(i), ",");
    return digits;
}

std::string commentText(const std::string& text)
{
    std::string out;
    for (char c : text)
        out += c == '\n' ? ' ' : c;
    return out;
}

// A comment of `first` then `text`, wrapped at 96 columns with `rest` on each further line.
void commentLines(std::ostringstream& out, const std::string& first, const std::string& rest,
                  const std::string& text)
{
    constexpr std::size_t kWidth = 96;
    std::istringstream words(commentText(text));
    std::string line = first;
    bool empty = true;
    for (std::string word; words >> word;) {
        if (!empty && line.size() + 1 + word.size() > kWidth) {
            out << line << '\n';
            line = rest;
            empty = true;
        }
        line += (empty ? "" : " ") + word;
        empty = false;
    }
    out << line << '\n';
}

void header(std::ostringstream& out, const LaunchPlan& plan, const std::string& version)
{
    const RankLayout& r = plan.ranks;
    std::int64_t nodes = 0;
    for (const BuildingNodes& b : r.buildings)
        nodes += b.nodes;
    out << "#!/bin/bash\n"
        << "# " << displayName(plan.framework) << " launch settings for \""
        << commentText(plan.scenarioName) << "\"\n"
        << "# Written by Archipelago " << version << " for " << displayName(plan.framework) << ' '
        << pinnedRelease(plan.framework) << ";\n"
        << "# every setting is checked against that release's argument list (Archipelago's\n"
        << "# tests/data/launch/).\n"
        << "#\n"
        << "# " << withThousands(r.worldSize) << " GPUs on " << withThousands(nodes) << " nodes of "
        << r.gpusPerNode << " GPUs in " << r.buildings.size()
        << (r.buildings.size() == 1 ? " building:\n" : " buildings:\n");
    for (const BuildingNodes& b : r.buildings)
        out << "#   " << commentText(b.name) << ": " << withThousands(b.ranks) << " ranks on "
            << withThousands(b.nodes) << " nodes (" << envName(b.name) << ")\n";
    out << "#\n"
        << "# Submit with each building's nodes listed in its variable, in the order its ranks\n"
        << "# should fill them, e.g.\n"
        << "#   " << envName(r.buildings.empty() ? std::string("dc") : r.buildings.front().name)
        << "=\"$(scontrol show hostnames 'node[1-"
        << (r.buildings.empty() ? 1 : r.buildings.front().nodes)
        << "]')\" ... sbatch THIS_FILE [extra args]\n"
        << "#SBATCH --nodes=" << nodes << '\n'
        << "#SBATCH --ntasks-per-node=" << r.gpusPerNode << '\n'
        << "#SBATCH --gpus-per-node=" << r.gpusPerNode << '\n'
        << "set -euo pipefail\n\n";
    if (!plan.unexpressed.empty()) {
        out << "# Not expressible in " << displayName(plan.framework) << ' '
            << pinnedRelease(plan.framework) << " (the job differs from the design here):\n";
        for (const Unexpressed& u : plan.unexpressed)
            commentLines(out, "#   - ", "#     ", u.knob + ": " + u.why);
        out << '\n';
    }
    if (!plan.notes.empty()) {
        out << "# Notes:\n";
        for (const std::string& n : plan.notes)
            commentLines(out, "#   - ", "#     ", n);
        out << '\n';
    }
}

void hostfile(std::ostringstream& out, const LaunchPlan& plan)
{
    const RankLayout& r = plan.ranks;
    std::map<Id, std::size_t> index;
    out << "# ---- Buildings and the order of ranks across them\n";
    for (std::size_t b = 0; b < r.buildings.size(); ++b) {
        index[r.buildings[b].datacenter] = b;
        out << ": \"${" << envName(r.buildings[b].name) << ":?list the " << r.buildings[b].nodes
            << " nodes of " << plainText(r.buildings[b].name) << "}\"\n";
    }
    out << "BUILDING_VARS=(";
    for (std::size_t b = 0; b < r.buildings.size(); ++b)
        out << (b ? " " : "") << envName(r.buildings[b].name);
    out << ")\nBUILDING_NODES=(";
    for (std::size_t b = 0; b < r.buildings.size(); ++b)
        out << (b ? " " : "") << r.buildings[b].nodes;
    out << ")\nGPUS_PER_NODE=" << r.gpusPerNode << "\nWORLD_SIZE=" << r.worldSize << '\n'
        << "# Consecutive global ranks and the building (index above) that hosts them.\n"
        << "RANK_RUNS=(\n";
    for (const RankRun& run : r.runs)
        out << "  \"" << index.at(run.datacenter) << ' ' << run.ranks << "\"\n";
    out << ")\n"
        << "HOSTFILE=\"${HOSTFILE:-$PWD/archipelago-hostfile.${SLURM_JOB_ID:-local}}\"\n"
        << "# One host per rank: each building's ranks fill its nodes in order, "
           "GPUS_PER_NODE to a node.\n"
        << "write_hostfile() {\n"
        << "  local dir b i count node host run fd\n"
        << "  local -a nodes fds\n"
        << "  dir=\"$(mktemp -d)\"\n"
        << "  for b in \"${!BUILDING_VARS[@]}\"; do\n"
        << "    read -r -d '' -a nodes <<< \"${!BUILDING_VARS[b]}\" || true\n"
        << "    if (( ${#nodes[@]} < BUILDING_NODES[b] )); then\n"
        << "      echo \"${BUILDING_VARS[b]} lists ${#nodes[@]} nodes; the design needs "
           "${BUILDING_NODES[b]}\" >&2\n"
        << "      return 1\n"
        << "    fi\n"
        << "    for node in \"${nodes[@]:0:BUILDING_NODES[b]}\"; do\n"
        << "      for ((i = 0; i < GPUS_PER_NODE; i++)); do echo \"$node\"; done\n"
        << "    done > \"$dir/$b\"\n"
        << "    exec {fd}< \"$dir/$b\"\n"
        << "    fds[b]=$fd\n"
        << "  done\n"
        << "  for run in \"${RANK_RUNS[@]}\"; do\n"
        << "    read -r b count <<< \"$run\"\n"
        << "    for ((i = 0; i < count; i++)); do read -r -u \"${fds[b]}\" host; echo \"$host\"; "
           "done\n"
        << "  done > \"$HOSTFILE\"\n"
        << "  rm -rf \"$dir\"\n"
        << "}\n"
        << "write_hostfile\n"
        << "export SLURM_HOSTFILE=\"$HOSTFILE\"\n"
        << "export MASTER_ADDR=\"$(head -n 1 \"$HOSTFILE\")\" "
           "MASTER_PORT=\"${MASTER_PORT:-29500}\"\n\n";
    if (!plan.environment.empty()) {
        out << "# ---- Environment (NCCL's for the links between buildings: docs/network.md, "
               "\"NCCL's connections\")\n";
        for (const LaunchSetting& e : plan.environment)
            out << padded("export " + e.name + "=" + shellWord(e.value), 44) << "# " << e.from
                << '\n';
        out << '\n';
    }
}

bool mentionsCheckpointDir(const LaunchPlan& plan)
{
    return std::any_of(plan.settings.begin(), plan.settings.end(), [](const LaunchSetting& s) {
        return s.value.find("${CHECKPOINT_DIR}") != std::string::npos;
    });
}

// srun starts one task per GPU in the hostfile's order; torch.distributed reads RANK,
// LOCAL_RANK and WORLD_SIZE from the environment (init_method env://).
const char* kSrun = "srun --distribution=arbitrary --ntasks=\"$WORLD_SIZE\" --cpu-bind=none \\\n"
                    "  bash -c 'export RANK=$SLURM_PROCID LOCAL_RANK=$SLURM_LOCALID "
                    "WORLD_SIZE=$SLURM_NTASKS; ";

void megatron(std::ostringstream& out, const LaunchPlan& plan)
{
    if (mentionsCheckpointDir(plan))
        out << ": \"${CHECKPOINT_DIR:?set CHECKPOINT_DIR to the checkpoint directory}\"\n";
    out << "# ---- Megatron-LM " << pinnedRelease(plan.framework)
        << " arguments of pretrain_gpt.py\n"
        << "ARGS=(\n";
    for (const LaunchSetting& s : plan.settings) {
        std::string word = "  " + s.name;
        if (!s.value.empty())
            word += " " + shellWord(s.value);
        out << padded(word, 52) << "# " << commentText(s.from) << '\n';
    }
    out << ")\n"
        << kSrun << "exec python pretrain_gpt.py \"$@\"' \\\n"
        << "  pretrain_gpt \"${ARGS[@]}\" \"$@\"\n";
}

void nemo(std::ostringstream& out, const LaunchPlan& plan)
{
    out << "# ---- NeMo " << pinnedRelease(plan.framework) << " overrides of the " << plan.recipe
        << " recipe (nemo llm pretrain; values are Python literals)\n"
        << "OVERRIDES=(\n";
    for (const LaunchSetting& s : plan.settings)
        out << padded("  " + shellWord(s.name + "=" + s.value), 60) << "# " << commentText(s.from)
            << '\n';
    out << ")\n"
        << kSrun << "exec nemo llm pretrain --factory " << plan.recipe
        << " --yes --direct \"$@\"' \\\n"
        << "  nemo \"${OVERRIDES[@]}\" \"$@\"\n";
}

void torchtitan(std::ostringstream& out, const LaunchPlan& plan)
{
    out << "# ---- TorchTitan " << pinnedRelease(plan.framework)
        << " job file (each key is also the flag --section.key)\n"
        << "CONFIG=\"${CONFIG:-$PWD/archipelago-job.toml}\"\n"
        << "cat > \"$CONFIG\" <<'TOML'\n";
    std::vector<std::string> sections;
    std::map<std::string, std::vector<const LaunchSetting*>> bySection;
    for (const LaunchSetting& s : plan.settings) {
        const std::size_t dot = s.name.rfind('.');
        const std::string section = s.name.substr(0, dot);
        if (!bySection.contains(section))
            sections.push_back(section);
        bySection[section].push_back(&s);
    }
    for (std::size_t i = 0; i < sections.size(); ++i) {
        out << (i ? "\n[" : "[") << sections[i] << "]\n";
        for (const LaunchSetting* s : bySection[sections[i]])
            out << padded(s->name.substr(sections[i].size() + 1) + " = " + s->value, 44) << "# "
                << commentText(s->from) << '\n';
    }
    out << "TOML\n"
        << kSrun << "exec python -m torchtitan.train --job.config_file \"$0\" \"$@\"' \\\n"
        << "  \"$CONFIG\" \"$@\"\n";
}

} // namespace

std::string renderLaunchPlan(const LaunchPlan& plan, const std::string& archipelagoVersion)
{
    std::ostringstream out;
    header(out, plan, archipelagoVersion);
    hostfile(out, plan);
    switch (plan.framework) {
    case Framework::MegatronLm:
        megatron(out, plan);
        break;
    case Framework::Nemo:
        nemo(out, plan);
        break;
    case Framework::TorchTitan:
        torchtitan(out, plan);
        break;
    }
    return out.str();
}

bool writeLaunchScript(const std::string& path, const std::string& text, std::string& error)
{
    std::error_code ec;
    const bool isNew = !std::filesystem::exists(path, ec);
    if (!writeTextFileAtomically(path, text, error))
        return false;
    if (isNew)
        std::filesystem::permissions(
            path, std::filesystem::perms::owner_exec | std::filesystem::perms::group_exec,
            std::filesystem::perm_options::add, ec);
    return true;
}

} // namespace archipelago::core
