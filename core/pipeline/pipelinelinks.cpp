// The shared links as lines of a pipeline's recurrence (pipelinelines.h): the order each
// served its transfers in a loaded run, their structure against the ranks', and the long run's
// busy intervals.
#include "model/scheduletraits.h"
#include "pipeline/pipelinelines.h"

#include <algorithm>
#include <limits>
#include <memory>

namespace archipelago::core::detail::lines {

namespace {

OpKey keyOf(const Served& t, int m, bool twoDirections)
{
    const int direction = twoDirections && t.microBatch >= m / 2 ? 1 : 0;
    return {t.backward ? PipelineOpKind::Backward : PipelineOpKind::Forward,
            t.boundary,
            direction,
            t.microBatch - direction * (m / 2),
            false,
            false};
}

// The lines of a loaded run: its ranks, then every shared link that served something (a link
// as a line in the order it served: a transfer begins once its data is ready and the link has
// served the one before, a max-plus recurrence like a rank's as long as that order holds).
// `line` maps a resource to its line, -1 for one that served nothing.
Lines loadedKeys(const CompiledShape& s, const std::vector<std::vector<Served>>& served,
                 bool twoDirections, std::vector<int>& line)
{
    Lines k = keys(s.orders, s.m, twoDirections);
    line.assign(served.size(), -1);
    for (std::size_t i = 0; i < served.size(); ++i) {
        if (served[i].empty())
            continue;
        line[i] = static_cast<int>(k.size());
        k.emplace_back();
        for (const Served& t : served[i])
            k.back().push_back(keyOf(t, s.m, twoDirections));
    }
    return k;
}

// The structure of a loaded pipeline from the served orders of its runs of m0 and m1: its
// ranks' ops read the transfers the links served, each transfer its producer. `line1` is set
// to the lines of m1's links.
Structure analyseLoaded(const Lines& k0, const std::vector<int>& line0, const CompiledShape& s1,
                        const std::vector<std::vector<Served>>& served1, std::vector<int>& line1,
                        const SlotLoads& slots, int step, bool twoDirections)
{
    const Lines k1 = loadedKeys(s1, served1, twoDirections, line1);
    if (line0 != line1 || k0.size() != k1.size())
        return {};
    const int m = s1.m;
    // Where each served transfer is on its line, per slot and micro-batch.
    std::vector<int> posOf(slots.resource.size() * static_cast<std::size_t>(m), -1);
    for (std::size_t i = 0; i < served1.size(); ++i)
        for (std::size_t q = 0; q < served1[i].size(); ++q) {
            const Served& t = served1[i][q];
            posOf[(2 * static_cast<std::size_t>(t.boundary) + (t.backward ? 1 : 0)) *
                      static_cast<std::size_t>(m) +
                  static_cast<std::size_t>(t.microBatch)] = static_cast<int>(q);
        }
    const OpPlaces at = placesOf(s1.orders, s1.p, s1.v, m);
    std::vector<Input> inputs;
    rankInputs(
        s1.orders, at, m,
        [&](int boundary, bool backward, int microBatch) {
            const std::size_t k = 2 * static_cast<std::size_t>(boundary) + (backward ? 1 : 0);
            const int res = slots.resource[k];
            if (res < 0)
                return std::pair<int, int>(-1, 0);
            return std::pair<int, int>(
                line1[static_cast<std::size_t>(res)],
                posOf[k * static_cast<std::size_t>(m) + static_cast<std::size_t>(microBatch)]);
        },
        inputs);
    for (std::size_t i = 0; i < served1.size(); ++i)
        for (std::size_t q = 0; q < served1[i].size(); ++q) {
            const Served& t = served1[i][q];
            const auto cell =
                static_cast<std::size_t>((t.boundary + (t.backward ? 1 : 0)) * m + t.microBatch);
            const int producer = t.backward ? at.backwardAt[cell] : at.forwardAt[cell];
            const int rank = at.rankOf[static_cast<std::size_t>(producer)];
            inputs.push_back({line1[i], static_cast<int>(q), rank,
                              producer - s1.orders.begin[static_cast<std::size_t>(rank)]});
        }
    for (const Input& in : inputs)
        if (in.fromLine < 0 || in.fromPos < 0)
            return {};
    return analyseLines(k0, k1, step, inputs, static_cast<std::size_t>(s1.p));
}

} // namespace

SlotLoads slotLoads(const PipelineSpec& spec)
{
    SlotLoads s;
    const auto slots = 2 * static_cast<std::size_t>(spec.stages * spec.virtualStages);
    s.resource.assign(slots, -1);
    s.serviceS.assign(slots, 0.0);
    for (const PipelineLoad& l : spec.loads) {
        const std::size_t k = 2 * static_cast<std::size_t>(l.boundary) + (l.backward ? 1 : 0);
        if (s.resource[k] >= 0)
            return {};
        s.resource[k] = l.resource;
        s.serviceS[k] = l.serviceS;
    }
    return s;
}

std::vector<std::vector<Served>> servedOrders(const CompiledShape& shape, const SlotLoads& slots,
                                              std::size_t resources)
{
    std::vector<std::vector<Served>> out(resources);
    for (const ReplayOp& e : shape.loadedReplay) {
        if (!(e.flags & ReplayOp::Serve))
            continue;
        const bool backward = e.kind == PipelineOpKind::Backward;
        const int res = slots.resource[2 * static_cast<std::size_t>(e.chunk) + (backward ? 1 : 0)];
        out[static_cast<std::size_t>(res)].push_back({e.chunk, backward, e.cell % shape.m});
    }
    return out;
}

const CachedLoadedStructure& loadedStructureFor(const PipelineSpec& spec0,
                                                const PipelineSpec& spec1, const SlotLoads& slots,
                                                std::vector<std::vector<Served>> served0,
                                                const std::vector<std::vector<Served>>& served1,
                                                int step)
{
    thread_local std::vector<CachedLoadedStructure> cache;
    std::vector<int> extras(static_cast<std::size_t>(spec0.stages));
    for (int r = 0; r < spec0.stages; ++r)
        extras[static_cast<std::size_t>(r)] = dciExtraMicroBatches(spec0, r);
    for (const CachedLoadedStructure& c : cache)
        if (c.schedule == spec0.schedule && c.p == spec0.stages && c.v == spec0.virtualStages &&
            c.m0 == spec0.microBatches && c.m1 == spec1.microBatches && c.extras == extras &&
            c.slotResource == slots.resource && c.served0 == served0 && c.served1 == served1)
            return c;
    const bool twoDirections = scheduleTraits(spec0.schedule).modelCopies == 2;
    CachedLoadedStructure c{spec0.schedule,
                            spec0.stages,
                            spec0.virtualStages,
                            spec0.microBatches,
                            spec1.microBatches,
                            std::move(extras),
                            slots.resource,
                            std::move(served0),
                            served1,
                            {},
                            {}};
    // The shapes of m0 and m1, cached by their runs (or built again: each lookup may drop
    // another shape, so each is looked up when it is used).
    std::vector<int> line0;
    Lines k0;
    {
        std::unique_ptr<CompiledShape> owned0;
        k0 = loadedKeys(scratch().shapeFor(spec0, owned0), c.served0, twoDirections, line0);
    }
    std::unique_ptr<CompiledShape> owned1;
    c.structure = analyseLoaded(k0, line0, scratch().shapeFor(spec1, owned1), c.served1, c.line1,
                                slots, step, twoDirections);
    if (cache.size() >= 8)
        cache.erase(cache.begin());
    cache.push_back(std::move(c));
    return cache.back();
}

double readyOf(const Served& t, int m)
{
    const SimulatorScratch& scr = scratch();
    return t.backward
               ? scr.backwardEnd[static_cast<std::size_t>((t.boundary + 1) * m + t.microBatch)]
               : scr.forwardEnd[static_cast<std::size_t>(t.boundary * m + t.microBatch)];
}

double arrivalOf(const Served& t, int m)
{
    const SimulatorScratch& scr = scratch();
    const auto cell = static_cast<std::size_t>(t.boundary * m + t.microBatch);
    return t.backward ? scr.gradientAt[cell] : scr.activationAt[cell];
}

void extendUsage(PipelineResourceUsage& u, const std::vector<Served>& served, int m1,
                 const SlotLoads& slots, int insertAt, int period, double lambda,
                 std::int64_t groups, double tolerance)
{
    std::vector<double> begin(served.size());
    std::vector<double> service(served.size());
    double free = 0.0;
    for (std::size_t q = 0; q < served.size(); ++q) {
        const Served& t = served[q];
        service[q] =
            slots.serviceS[2 * static_cast<std::size_t>(t.boundary) + (t.backward ? 1 : 0)];
        begin[q] = std::max(readyOf(t, m1), free);
        free = begin[q] + service[q];
    }
    auto& spans = u.busyIntervals;
    spans.clear();
    spans.reserve(served.size() +
                  static_cast<std::size_t>(groups) * static_cast<std::size_t>(period));
    const auto add = [&spans, tolerance](double b, double s) {
        if (s <= 0.0)
            return;
        if (!spans.empty() && spans.back().second >= b - tolerance)
            spans.back().second = b + s;
        else
            spans.emplace_back(b, b + s);
    };
    const auto at = static_cast<std::size_t>(insertAt);
    const auto len = static_cast<std::size_t>(period);
    double periodWork = 0.0;
    for (std::size_t q = 0; q < at; ++q)
        add(begin[q], service[q]);
    for (std::int64_t k = 0; k <= groups; ++k)
        for (std::size_t q = at; q < at + len; ++q) {
            add(begin[q] + static_cast<double>(k) * lambda, service[q]);
            if (k == 0 && service[q] > 0.0)
                periodWork += service[q];
        }
    const double shift = static_cast<double>(groups) * lambda;
    for (std::size_t q = at + len; q < served.size(); ++q)
        add(begin[q] + shift, service[q]);
    u.busyS += static_cast<double>(groups) * periodWork;
}

} // namespace archipelago::core::detail::lines
