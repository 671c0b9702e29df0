#!/bin/bash
# TorchTitan launch settings for "~1T dense model on 98,304 H100 in three regions"
# Written by Archipelago 0.1.0 for TorchTitan v0.2.2;
# every setting is checked against that release's argument list (Archipelago's
# tests/data/launch/).
#
# 98,304 GPUs on 12,288 nodes of 8 GPUs in 3 buildings:
#   dc-a: 32,768 ranks on 4,096 nodes (NODES_DC_A)
#   dc-b: 32,768 ranks on 4,096 nodes (NODES_DC_B)
#   dc-c: 32,768 ranks on 4,096 nodes (NODES_DC_C)
#
# Submit with each building's nodes listed in its variable, in the order its ranks
# should fill them, e.g.
#   NODES_DC_A="$(scontrol show hostnames 'node[1-4096]')" ... sbatch THIS_FILE [extra args]
#SBATCH --nodes=12288
#SBATCH --ntasks-per-node=8
#SBATCH --gpus-per-node=8
set -euo pipefail

# Not expressible in TorchTitan v0.2.2 (the job differs from the design here):
#   - model dimensions (128 layers, hidden 25600, 160 heads (8 KV), FFN 83200, vocabulary
#     128256): TorchTitan takes them from a flavor registered in Python
#     (torchtitan/models/<name>/__init__.py); register "archipelago" with these
#   - ZeRO-1 (distributed optimizer): TorchTitan shards with FSDP2, whose nearest is ZeRO-2:
#     gradients sharded too (less memory, a reduce-scatter instead of an all-reduce)

# ---- Buildings and the order of ranks across them
: "${NODES_DC_A:?list the 4096 nodes of dc-a}"
: "${NODES_DC_B:?list the 4096 nodes of dc-b}"
: "${NODES_DC_C:?list the 4096 nodes of dc-c}"
BUILDING_VARS=(NODES_DC_A NODES_DC_B NODES_DC_C)
BUILDING_NODES=(4096 4096 4096)
GPUS_PER_NODE=8
WORLD_SIZE=98304
# Consecutive global ranks and the building (index above) that hosts them.
RANK_RUNS=(
  "0 2048"
  "1 2048"
  "2 2048"
  "0 2048"
  "1 2048"
  "2 2048"
  "0 2048"
  "1 2048"
  "2 2048"
  "0 2048"
  "1 2048"
  "2 2048"
  "0 2048"
  "1 2048"
  "2 2048"
  "0 2048"
  "1 2048"
  "2 2048"
  "0 2048"
  "1 2048"
  "2 2048"
  "0 2048"
  "1 2048"
  "2 2048"
  "0 2048"
  "1 2048"
  "2 2048"
  "0 2048"
  "1 2048"
  "2 2048"
  "0 2048"
  "1 2048"
  "2 2048"
  "0 2048"
  "1 2048"
  "2 2048"
  "0 2048"
  "1 2048"
  "2 2048"
  "0 2048"
  "1 2048"
  "2 2048"
  "0 2048"
  "1 2048"
  "2 2048"
  "0 2048"
  "1 2048"
  "2 2048"
)
HOSTFILE="${HOSTFILE:-$PWD/archipelago-hostfile.${SLURM_JOB_ID:-local}}"
# One host per rank: each building's ranks fill its nodes in order, GPUS_PER_NODE to a node.
write_hostfile() {
  local dir b i count node host run fd
  local -a nodes fds
  dir="$(mktemp -d)"
  for b in "${!BUILDING_VARS[@]}"; do
    read -r -d '' -a nodes <<< "${!BUILDING_VARS[b]}" || true
    if (( ${#nodes[@]} < BUILDING_NODES[b] )); then
      echo "${BUILDING_VARS[b]} lists ${#nodes[@]} nodes; the design needs ${BUILDING_NODES[b]}" >&2
      return 1
    fi
    for node in "${nodes[@]:0:BUILDING_NODES[b]}"; do
      for ((i = 0; i < GPUS_PER_NODE; i++)); do echo "$node"; done
    done > "$dir/$b"
    exec {fd}< "$dir/$b"
    fds[b]=$fd
  done
  for run in "${RANK_RUNS[@]}"; do
    read -r b count <<< "$run"
    for ((i = 0; i < count; i++)); do read -r -u "${fds[b]}" host; echo "$host"; done
  done > "$HOSTFILE"
  rm -rf "$dir"
}
write_hostfile
export SLURM_HOSTFILE="$HOSTFILE"
export MASTER_ADDR="$(head -n 1 "$HOSTFILE")" MASTER_PORT="${MASTER_PORT:-29500}"

# ---- TorchTitan v0.2.2 job file (each key is also the flag --section.key)
CONFIG="${CONFIG:-$PWD/archipelago-job.toml}"
cat > "$CONFIG" <<'TOML'
[model]
name = "llama3"                             # the model family
flavor = "archipelago"                      # a flavor with the workload's dimensions

[training]
local_batch_size = 16                       # sequences per DP rank per step
global_batch_size = 12288                   # global batch (sequences)
seq_len = 8192                              # workload sequence length
steps = 198683                              # tokens to train / tokens per iteration
mixed_precision_param = "bfloat16"          # BF16 compute

[checkpoint]
enable = true                               # checkpoints
interval = 1                                # Daly's optimal checkpoint interval, in steps
async_mode = "async"                        # asynchronous checkpoints

[parallelism]
data_parallel_replicate_degree = 1          # DP replicas (DDP / HSDP)
data_parallel_shard_degree = 768            # DP shards (FSDP2)
fsdp_reshard_after_forward = "never"        # weights stay gathered until backward ends (ZeRO-2)
tensor_parallel_degree = 8                  # TP
context_parallel_degree = 1                 # CP
pipeline_parallel_degree = 16               # PP
expert_parallel_degree = 1                  # EP
pipeline_parallel_schedule = "Interleaved1F1B" # pipeline schedule
pipeline_parallel_microbatch_size = 1       # micro-batch (sequences)
pipeline_parallel_layers_per_stage = 2      # layers per model chunk (stages per rank follow)

[activation_checkpoint]
mode = "full"                               # full recompute
TOML
srun --distribution=arbitrary --ntasks="$WORLD_SIZE" --cpu-bind=none \
  bash -c 'export RANK=$SLURM_PROCID LOCAL_RANK=$SLURM_LOCALID WORLD_SIZE=$SLURM_NTASKS; exec python -m torchtitan.train --job.config_file "$0" "$@"' \
  "$CONFIG" "$@"
