#!/bin/bash
# NeMo launch settings for "DeepSeek-V3-like MoE on 2,048 H800"
# Written by Archipelago 0.1.0 for NeMo v2.4.0;
# every setting is checked against that release's argument list (Archipelago's
# tests/data/launch/).
#
# 2,048 GPUs on 256 nodes of 8 GPUs in 1 building:
#   h800-cluster: 2,048 ranks on 256 nodes (NODES_H800_CLUSTER)
#
# Submit with each building's nodes listed in its variable, in the order its ranks
# should fill them, e.g.
#   NODES_H800_CLUSTER="$(scontrol show hostnames 'node[1-256]')" ... sbatch THIS_FILE [extra args]
#SBATCH --nodes=256
#SBATCH --ntasks-per-node=8
#SBATCH --gpus-per-node=8
set -euo pipefail

# Not expressible in NeMo v2.4.0 (the job differs from the design here):
#   - schedule zb-h1: NeMo runs Megatron-Core's 1F1B (interleaved with virtual stages)
#   - FP8 dispatch: no FP8 all-to-all switch; the dispatch runs in BF16
#   - MLA dimensions (q/kv ranks 1536/512, head dims 128+64, value 128): they live in NeMo's
#     MLATransformerConfig, which the deepseek recipes set; check the recipe's values against
#     these

# Notes:
#   - checkpoint every 7 steps: set the recipe's log.ckpt.every_n_train_steps (Lightning's
#     ModelCheckpoint, outside the checked argument list)
#   - every model dimension is overridden, so the recipe only supplies the optimizer, data and
#     logging defaults of its family
#   - each GPU's task runs the recipe in its own process (NeMo-Run's --direct) and Lightning
#     takes its rank from Slurm

# ---- Buildings and the order of ranks across them
: "${NODES_H800_CLUSTER:?list the 256 nodes of h800-cluster}"
BUILDING_VARS=(NODES_H800_CLUSTER)
BUILDING_NODES=(256)
GPUS_PER_NODE=8
WORLD_SIZE=2048
# Consecutive global ranks and the building (index above) that hosts them.
RANK_RUNS=(
  "0 2048"
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

# ---- NeMo v2.4.0 overrides of the deepseek_v3 recipe (nemo llm pretrain; values are Python literals)
OVERRIDES=(
  trainer.num_nodes=256                                     # nodes of every building
  trainer.devices=8                                         # GPUs per node
  trainer.strategy.tensor_model_parallel_size=1             # TP
  trainer.strategy.pipeline_model_parallel_size=16          # PP
  trainer.strategy.context_parallel_size=1                  # CP
  trainer.strategy.expert_model_parallel_size=64            # EP
  trainer.strategy.sequence_parallel=False                  # sequence parallel
  'trainer.strategy.pipeline_model_parallel_layout="Et*3|(t*4|)*14,t*2mL"' # layers per stage (E embedding, t layer, m MTP module, L loss)
  optim.config.use_distributed_optimizer=True               # distributed optimizer
  trainer.strategy.ddp.grad_reduce_in_fp32=True             # gradient reduction precision
  trainer.plugins.grad_reduce_in_fp32=True                  # gradient reduction precision
  trainer.strategy.ddp.overlap_grad_reduce=True             # gradient reduction under backward
  trainer.strategy.ddp.overlap_param_gather=True            # parameter all-gather under forward
  'model.config.recompute_granularity="selective"'          # selective recompute
  model.config.num_layers=61                                # workload layers
  model.config.hidden_size=7168                             # workload hidden
  model.config.num_attention_heads=128                      # workload heads
  model.config.num_query_groups=128                         # workload KV heads
  model.config.ffn_hidden_size=18432                        # workload FFN hidden
  model.config.gated_linear_unit=True                       # a gated (SwiGLU) MLP
  model.config.seq_length=4096                              # workload sequence length
  model.config.vocab_size=129280                            # workload vocabulary
  model.config.share_embeddings_and_output_weights=False    # whether the output layer shares the embedding
  model.config.num_moe_experts=256                          # MoE experts
  model.config.moe_router_topk=8                            # MoE top-k
  model.config.moe_ffn_hidden_size=2048                     # expert FFN hidden
  model.config.moe_shared_expert_intermediate_size=2048     # shared experts x expert FFN hidden
  'model.config.moe_layer_freq="[0]*3+[1]*58"'              # leading dense layers
  model.config.moe_grouped_gemm=True                        # experts' GEMMs grouped
  model.config.moe_router_num_groups=8                      # nodes of the expert-parallel group
  model.config.moe_router_group_topk=4                      # MoE nodes per token
  model.config.multi_latent_attention=True                  # multi-head latent attention
  model.config.mtp_num_layers=1                             # multi-token prediction depth
  'trainer.plugins.fp8="hybrid"'                            # FP8 GEMMs
  'trainer.plugins.fp8_recipe="blockwise"'                  # FP8 scaling recipe
  data.seq_length=4096                                      # workload sequence length
  data.micro_batch_size=1                                   # micro-batch (sequences)
  data.global_batch_size=15360                              # global batch (sequences)
  trainer.max_steps=235240                                  # tokens to train / tokens per iteration
  trainer.strategy.ckpt_async_save=True                     # asynchronous checkpoints
)
srun --distribution=arbitrary --ntasks="$WORLD_SIZE" --cpu-bind=none \
  bash -c 'export RANK=$SLURM_PROCID LOCAL_RANK=$SLURM_LOCALID WORLD_SIZE=$SLURM_NTASKS; exec nemo llm pretrain --factory deepseek_v3 --yes --direct "$@"' \
  nemo "${OVERRIDES[@]}" "$@"
