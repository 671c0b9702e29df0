// The structure of a pipeline's lines (pipelinelines.h): where m1's order inserts its period
// on each line, and how far back the inserted period reads.
#include "pipeline/pipelinelines.h"

#include <algorithm>
#include <limits>

namespace archipelago::core::detail::lines {

Structure analyseLines(const Lines& k0, const Lines& k1, int step, const std::vector<Input>& inputs,
                       std::size_t firstLink)
{
    Structure st;
    const std::size_t lines = k1.size();
    st.insertAt.resize(lines);
    st.period.resize(lines);
    std::vector<std::size_t> latest(lines); // the latest insertion point each line allows
    for (std::size_t l = 0; l < lines; ++l) {
        const auto& a = k0[l];
        const auto& b = k1[l];
        if (b.size() <= a.size())
            return st;
        const std::size_t len = b.size() - a.size();
        std::size_t at = 0;
        while (at < a.size() && a[at] == b[at])
            ++at;
        // m1 = m0 with one period inserted at `at` and the rest one group later.
        for (std::size_t i = at; i < a.size(); ++i)
            if (b[i + len] != shifted(a[i], step))
                return st;
        st.insertAt[l] = static_cast<int>(at);
        st.period[l] = static_cast<int>(len);
        latest[l] = at;
    }
    if (firstLink < lines) {
        // A link's insertion point: its first element produced at or after its producer's.
        std::vector<int> producedLate(lines, std::numeric_limits<int>::max());
        for (const Input& in : inputs) {
            const auto l = static_cast<std::size_t>(in.line);
            if (l >= firstLink && in.fromPos >= st.insertAt[static_cast<std::size_t>(in.fromLine)])
                producedLate[l] = std::min(producedLate[l], in.pos);
        }
        for (std::size_t l = firstLink; l < lines; ++l) {
            const auto& a = k0[l];
            const auto& b = k1[l];
            const std::size_t len = b.size() - a.size();
            const std::size_t at = std::min(static_cast<std::size_t>(producedLate[l]), a.size());
            // Also m1 = m0 with the period inserted there: the elements from there to the
            // latest point are those of m0 one group later.
            if (at > latest[l])
                return st;
            for (std::size_t i = at; i < latest[l]; ++i)
                if (b[i + len] != shifted(a[i], step))
                    return st;
            st.insertAt[l] = static_cast<int>(at);
        }
    }
    // How many periods before its line's insertion point each input lies decides W; an
    // element before the insertion point must read nothing after it on another line, and one
    // of the inserted period nothing after that line's inserted period.
    int window = 2; // the inserted period and the one before it (the line's previous element)
    for (const Input& in : inputs) {
        const auto l = static_cast<std::size_t>(in.line);
        const auto from = static_cast<std::size_t>(in.fromLine);
        const int insert = st.insertAt[from];
        if (in.pos < st.insertAt[l]) {
            if (in.fromPos >= insert)
                return st; // the unchanged prefix would read the inserted period
            continue;
        }
        const int len = st.period[from];
        if (in.fromPos < insert)
            window = std::max(window, 1 + (insert - in.fromPos + len - 1) / len);
        else if (in.pos < st.insertAt[l] + st.period[l] && in.fromPos >= insert + len)
            return st; // the inserted period would read another line's cool-down
    }
    // The window's periods repeat structurally: each element is the one a period before it,
    // one group later.
    for (std::size_t l = 0; l < lines; ++l) {
        const int len = st.period[l];
        const int from = st.insertAt[l] - (window - 1) * len;
        if (from - len < 0)
            return st;
        for (int q = from; q < st.insertAt[l] + len; ++q)
            if (k1[l][static_cast<std::size_t>(q)] !=
                shifted(k1[l][static_cast<std::size_t>(q - len)], step))
                return st;
    }
    st.window = window;
    st.ok = true;
    return st;
}

OpPlaces placesOf(const RankOrders& o, int p, int v, int m)
{
    OpPlaces at;
    const auto cells = static_cast<std::size_t>(p * v * m);
    at.forwardAt.assign(cells, -1);
    at.backwardAt.assign(cells, -1);
    at.rankOf.resize(o.ops.size());
    for (int r = 0; r < p; ++r)
        for (int i = o.begin[static_cast<std::size_t>(r)];
             i < o.begin[static_cast<std::size_t>(r) + 1]; ++i) {
            const PipelineOp& op = o.ops[static_cast<std::size_t>(i)];
            const auto cell = static_cast<std::size_t>(op.chunk * m + op.microBatch);
            at.rankOf[static_cast<std::size_t>(i)] = r;
            if (op.kind == PipelineOpKind::Forward)
                at.forwardAt[cell] = i;
            else if (op.kind == PipelineOpKind::Backward)
                at.backwardAt[cell] = i;
        }
    return at;
}

Lines keys(const RankOrders& orders, int m, bool twoDirections)
{
    Lines out(orders.begin.size() - 1);
    for (std::size_t r = 0; r + 1 < orders.begin.size(); ++r)
        for (int i = orders.begin[r]; i < orders.begin[r + 1]; ++i)
            out[r].push_back(keyOf(orders.ops[static_cast<std::size_t>(i)], m, twoDirections));
    return out;
}

} // namespace archipelago::core::detail::lines
