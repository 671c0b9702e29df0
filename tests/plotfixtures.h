// Helpers shared by the plot tests: what a stacked bar plot draws for one design point, and
// synthetic design points and timelines built in code (no cost model).
#pragma once

#include "common/evaluateddesign.h"

#include <qcustomplot.h>

#include <QColor>
#include <QString>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace archipelago::tests {

// Sum of all QCPBars values at `key`: what the stacked bars show for one design point.
inline double stackedValueAt(QCustomPlot* plot, double key)
{
    double sum = 0.0;
    for (int i = 0; i < plot->plottableCount(); ++i) {
        if (auto* bars = qobject_cast<QCPBars*>(plot->plottable(i))) {
            const auto it = bars->data()->findBegin(key, false);
            if (it != bars->data()->constEnd() && qFuzzyCompare(it->key, key))
                sum += it->value;
        }
    }
    return sum;
}

// Equal to a relative 1e-9 (absolute below 1).
inline bool near(double a, double b)
{
    return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b));
}

// A bill-of-materials line of the synthetic design points.
inline core::BomItem bomItem(const char* category, std::int64_t count, double price, double watts)
{
    core::BomItem item;
    item.item = std::string("synthetic-") + category;
    item.category = category;
    item.scope = "dc-west";
    item.count = count;
    item.unitPriceUsd = price;
    item.unitWatts = watts;
    return item;
}

// 64 GPUs in one datacenter, TP 8 and PP `pp`, a global batch of 256.
inline core::Scenario makeScenario(int pp)
{
    core::Scenario s;
    s.name = "synthetic";
    core::Datacenter dc;
    dc.id = 1;
    dc.name = "dc-west";
    dc.pods.push_back(core::Pod{1, "pod", 1, 8, 8}); // 64 GPUs
    s.topology.datacenters.push_back(dc);
    s.workload.globalBatch = 256;
    s.parallelism.tp = 8;
    s.parallelism.pp = pp;
    return s;
}

// A design point of makeScenario(pp) whose figures grow with `scale`.
inline views::EvaluatedDesign makePoint(const QString& name, QColor color, double scale, int pp = 2)
{
    views::EvaluatedDesign p{name, color, makeScenario(pp), {}};
    core::Evaluation& e = p.evaluation;
    e.ok = true;
    e.gpus = 64;
    e.breakdown = {0.30 * scale, 0.60 * scale, 0.0,  0.05 * scale, 0.0,         0.0,
                   0.02 * scale, 0.10 * scale, 0.03, 0.08 * scale, 0.01 * scale};
    const auto& b = e.breakdown;
    e.iterationTimeS = b.forwardS + b.backwardS + b.recomputeS + b.tpCommS + b.cpCommS + b.epCommS +
                       b.ppCommS + b.dpCommS + b.optimizerS + b.bubbleS + b.interferenceS +
                       b.variabilityS + b.overheadS;
    e.bubbleRatio = 0.05 * scale;
    e.idleOverCompute = 0.06 * scale;
    e.mfu = 0.41;
    e.tokensPerS = 1.0e6 / scale;
    e.memoryPeakGib = 61.0;
    e.bom = {bomItem("switch", 40, 30000.0 * scale, 1500.0), bomItem("nic", 64, 1500.0, 25.0),
             bomItem("optic", 256, 800.0, 15.0), bomItem("dci-optic", 16, 10000.0 * scale, 20.0)};
    for (const core::BomItem& item : e.bom) {
        e.networkCapexUsd += item.capexUsd();
        e.networkPowerW += item.powerW();
    }
    e.timeToTrainS = 40.0 * 86400.0 * scale;
    return p;
}

// A 1F1B-like (GPipe-timed) pipeline: p*m forward and backward blocks, a send after each block
// that has a next (forward) or previous (backward) rank; the middle boundary crosses a DCI link.
inline std::vector<core::TimelineBlock> makeTimeline(int p, int m, int v = 1)
{
    const double f = 0.002, b = 0.004, d = 0.0005;
    std::vector<core::TimelineBlock> blocks;
    const int stages = p * v;
    for (int c = 0; c < v; ++c) {
        for (int s = 0; s < p; ++s) {
            const int g = c * p + s; // global stage
            for (int i = 0; i < m; ++i) {
                const double fs = (g + i) * (f + d);
                blocks.push_back({s, c, i, core::BlockKind::Forward, fs, fs + f, false});
                if (g < stages - 1)
                    blocks.push_back(
                        {s, c, i, core::BlockKind::Send, fs + f, fs + f + d, g == p / 2 - 1});
                const double t0 = (stages - 1 + m) * (f + d);
                const double bs = t0 + ((stages - 1 - g) + i) * (b + d);
                blocks.push_back({s, c, i, core::BlockKind::Backward, bs, bs + b, false});
                if (g > 0)
                    blocks.push_back(
                        {s, c, i, core::BlockKind::Send, bs + b, bs + b + d, g == p / 2});
            }
        }
    }
    return blocks;
}

} // namespace archipelago::tests
