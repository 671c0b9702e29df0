// Names and one-line descriptions of scenario objects, shared by the tree, the property panel,
// the canvas and the layout view, so every view names an object the same way. Their numbers are
// format.h's.
#pragma once

#include "model/scenario.h"

#include <QString>

namespace archipelago::views {

QString datacenterName(const core::Scenario& scenario, core::Id id); // "dc-a" or "#3"
QString podSummary(const core::Pod& pod); // "16 × 128 domains × 8 GPUs = 16,384 GPUs"
QString podShape(const core::Pod& pod);   // "16 × 128 × 8-GPU domains" (a canvas card)
QString
datacenterSummary(const core::Datacenter& dc); // "16,384 × H100-SXM5-80GB, rail-optimized 3-tier"
QString fabricSummary(const core::Fabric& fabric); // "rail-optimized 3-tier, 1:1"
QString fabricShort(const core::Fabric& fabric);   // "rail-optimized · 3-tier · 2:1" (a card)
QString linkTitle(const core::Scenario& scenario, const core::DciLink& link); // "dc-a ↔ dc-b"
QString linkSummary(const core::DciLink& link);  // "16 × 400 Gb/s, 10 km"
QString linkCapacity(const core::DciLink& link); // "64 × 400G = 25.6 Tb/s"
QString workloadSummary(const core::Workload& workload);
QString parallelismSummary(const core::Scenario& scenario); // "TP 8 · CP 1 · PP 16 · DP 128 · EP 1"
QString scheduleName(core::ScheduleKind kind);              // "Interleaved 1F1B"
QString recomputeName(core::Recompute recompute);
QString transportName(core::DciTransport transport); // "RDMA/OTN", "lossy IP", "RoCE/PFC"
QString shardSummary(const core::Scenario& scenario, const core::PlacementShard& shard);
QString yesNo(bool value);
// "1 shard", "16 shards": English plurals without a translation file.
QString countOf(std::int64_t n, const QString& singular, const QString& plural);
// An oversubscription or other ratio: 1 -> "1:1", 7 -> "7:1", 1.5 -> "1.5:1".
QString ratio(double value);

} // namespace archipelago::views
