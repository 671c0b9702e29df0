#include "propertyeditor/diagnostictext.h"

#include "model/scenariolimits.h"

#include "common/format.h"

#include <QCoreApplication>
#include <QLocale>
#include <QRegularExpression>
#include <QStringList>

#include <algorithm>
#include <limits>
#include <vector>

namespace archipelago::views {

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("PropertyEditor", text);
}

QString num(std::int64_t n)
{
    return formatCount(n);
}

// "1, 2, 4 or 8".
QString choices(const std::vector<std::int64_t>& values)
{
    QStringList texts;
    for (std::int64_t v : values)
        texts << num(v);
    if (texts.size() <= 1)
        return texts.join(QString());
    const QString last = texts.takeLast();
    return tr("%1 or %2").arg(texts.join(QStringLiteral(", ")), last);
}

// The smallest scale-up domain among the datacenters (8 without any).
int smallestDomain(const core::Scenario& s)
{
    int domain = 0;
    for (const core::Datacenter& dc : s.topology.datacenters) {
        const int d = core::scaleUpDomainGpus(dc);
        if (d > 0 && (domain == 0 || d < domain))
            domain = d;
    }
    return domain > 0 ? domain : 8;
}

// Multiples of `step` around `value`, for "e.g. 2,032 or 2,048".
QString nearbyMultiples(std::int64_t value, std::int64_t step, std::int64_t maximum)
{
    if (step <= 0)
        return {};
    const std::int64_t below = value / step * step;
    std::vector<std::int64_t> near;
    if (below >= step)
        near.push_back(std::min(below, maximum / step * step));
    if (below + step <= maximum)
        near.push_back(below + step); // never past what the field takes
    if (near.empty() || near.front() < step)
        return {};
    return choices(near);
}

// Snake_case names of the file format spelled out, for messages not recognised.
QString spelledOut(QString text)
{
    static const std::pair<const char*, const char*> names[] = {
        {"global_batch", "global batch"},
        {"micro_batch", "micro-batch"},
        {"kv_heads", "KV heads"},
        {"moe.expert_ffn_hidden", "expert FFN hidden size"},
        {"expert_ffn_hidden", "expert FFN hidden size"},
        {"ffn_hidden", "FFN hidden size"},
        {"seq_len", "sequence length"},
        {"virtual_stages", "virtual stages"},
        {"first_dense_layers", "leading dense layers"},
        {"layers_per_stage", "layers per stage"},
        {"placement.layers_per_stage", "layers per stage"},
        {"dp_replicas", "DP replicas"},
        {"stage_datacenters", "stage datacenters"},
        {"workload.moe.experts", "experts"},
        {"Gbps_per_wavelength", "rate per wavelength"},
        {"distance_km", "distance"},
    };
    for (const auto& [from, to] : names)
        text.replace(QLatin1String(from), QLatin1String(to));
    static const QRegularExpression degree(QStringLiteral("\\b(tp|cp|pp|ep|dp)\\b"));
    QString out;
    qsizetype last = 0;
    for (auto it = degree.globalMatch(text); it.hasNext();) {
        const QRegularExpressionMatch m = it.next();
        out += text.mid(last, m.capturedStart() - last) + m.captured(1).toUpper();
        last = m.capturedEnd();
    }
    out += text.mid(last);
    out.replace(QLatin1String(" * "), QStringLiteral(" × "));
    out.replace(QLatin1String(" = "), QStringLiteral(" "));
    if (!out.isEmpty())
        out[0] = out[0].toUpper();
    if (!out.endsWith(QLatin1Char('.')))
        out += QLatin1Char('.');
    return out;
}

std::int64_t captured(const QRegularExpressionMatch& m, int n)
{
    return m.captured(n).toLongLong();
}

} // namespace

QString tensorParallelRule(const core::Scenario& s)
{
    const core::Workload& w = s.workload;
    const int domain = smallestDomain(s);
    std::vector<std::int64_t> accepted;
    for (int tp = 1; tp <= domain; ++tp) {
        if (domain % tp != 0 || w.heads % tp != 0 || w.ffnHidden % tp != 0)
            continue;
        if (w.kvHeads >= tp && w.kvHeads % tp != 0)
            continue;
        if (w.moe.enabled() && w.moe.expertFfnHidden % tp != 0)
            continue;
        accepted.push_back(tp);
    }
    if (accepted.empty())
        accepted.push_back(1);
    return tr("TP must be a whole number ≥ 1 that divides the %1 attention heads, the %2 KV "
              "heads and the FFN size %3, and fits the %4-GPU scale-up domain: %5.")
        .arg(num(w.heads), num(w.kvHeads), num(w.ffnHidden), num(domain), choices(accepted));
}

QString placeOf(const std::string& pointer, const core::Scenario& s)
{
    static const QRegularExpression indexed(
        QStringLiteral("^/topology/(datacenters|dci_links)/(\\d+)"));
    const QString p = QString::fromStdString(pointer);
    const QRegularExpressionMatch m = indexed.match(p);
    if (m.hasMatch()) {
        const auto i = static_cast<std::size_t>(m.captured(2).toULongLong());
        if (m.captured(1) == QLatin1String("datacenters") && i < s.topology.datacenters.size())
            return tr("Datacenter %1").arg(QString::fromStdString(s.topology.datacenters[i].name));
        if (i < s.topology.links.size()) {
            const core::DciLink& link = s.topology.links[i];
            const core::Datacenter* a = core::findDatacenter(s.topology, link.a);
            const core::Datacenter* b = core::findDatacenter(s.topology, link.b);
            return tr("DCI link %1↔%2")
                .arg(a ? QString::fromStdString(a->name) : QString::number(link.a),
                     b ? QString::fromStdString(b->name) : QString::number(link.b));
        }
    }
    static const std::pair<const char*, const char*> places[] = {
        {"/workload/global_batch", "Global batch"},
        {"/workload/kv_heads", "KV heads"},
        {"/workload/hidden", "Hidden size"},
        {"/workload/moe", "Mixture of experts"},
        {"/workload", "Workload"},
        {"/parallelism/tp", "TP"},
        {"/parallelism/cp", "CP"},
        {"/parallelism/pp", "PP"},
        {"/parallelism/ep", "EP"},
        {"/parallelism/virtual_stages", "Virtual stages"},
        {"/parallelism", "Parallelism"},
        {"/placement/layers_per_stage", "Layers per stage"},
        {"/placement", "Placement"},
        {"/schedule", "Schedule"},
        {"/topology/dci_links", "DCI links"},
        {"/topology", "Topology"},
    };
    for (const auto& [prefix, name] : places)
        if (p.startsWith(QLatin1String(prefix)))
            return tr(name);
    return {};
}

QString userMessage(const core::Diagnostic& d, const core::Scenario& s)
{
    const QString text = QString::fromStdString(d.message);
    struct Rule
    {
        const char* pattern;
        QString (*words)(const QRegularExpressionMatch&, const core::Scenario&);
    };
    static const Rule rules[] = {
        {"^tp = (\\d+) does not divide heads = (\\d+)",
         [](const QRegularExpressionMatch& m, const core::Scenario& sc) {
             return tr("TP %1 does not divide the %2 attention heads.\n%3")
                 .arg(num(captured(m, 1)), num(captured(m, 2)), tensorParallelRule(sc));
         }},
        {"^tp = (\\d+) does not divide kv_heads = (\\d+)",
         [](const QRegularExpressionMatch& m, const core::Scenario& sc) {
             return tr("TP %1 does not divide the %2 KV heads (each GPU of a TP group holds "
                       "whole KV groups).\n%3")
                 .arg(num(captured(m, 1)), num(captured(m, 2)), tensorParallelRule(sc));
         }},
        {"^tp = (\\d+) does not divide ffn_hidden = (\\d+)",
         [](const QRegularExpressionMatch& m, const core::Scenario& sc) {
             return tr("TP %1 does not divide the FFN size %2.\n%3")
                 .arg(num(captured(m, 1)), num(captured(m, 2)), tensorParallelRule(sc));
         }},
        {"^tp = (\\d+) does not divide moe.expert_ffn_hidden = (\\d+)",
         [](const QRegularExpressionMatch& m, const core::Scenario& sc) {
             return tr("TP %1 does not divide the expert FFN size %2.\n%3")
                 .arg(num(captured(m, 1)), num(captured(m, 2)), tensorParallelRule(sc));
         }},
        {"^tp = (\\d+) does not divide the sequence per CP rank \\((\\d+)\\)",
         [](const QRegularExpressionMatch& m, const core::Scenario&) {
             return tr("With sequence parallelism, TP %1 must divide the %2 tokens each CP rank "
                       "holds: choose a TP that divides %2, or turn sequence parallelism off.")
                 .arg(num(captured(m, 1)), num(captured(m, 2)));
         }},
        {"^tp \\* cp \\* pp = (\\d+) \\* (\\d+) \\* (\\d+) does not divide the (\\d+) GPUs of "
         "datacenter (.*?) \\(",
         [](const QRegularExpressionMatch& m, const core::Scenario&) {
             const std::int64_t product = captured(m, 1) * captured(m, 2) * captured(m, 3);
             return tr("One model replica needs TP × CP × PP = %1 × %2 × %3 = %4 GPUs, which "
                       "does not divide the %5 GPUs of datacenter %6. Choose degrees whose "
                       "product divides %5 (the job runs in the first datacenter until the "
                       "placement spreads it).")
                 .arg(num(captured(m, 1)), num(captured(m, 2)), num(captured(m, 3)), num(product),
                      num(captured(m, 4)), m.captured(5));
         }},
        {"^tp \\* cp \\* pp \\* dp = [\\d *]+?(?: = (\\d+)| \\(overflow\\)), but the topology "
         "holds (\\d+) GPUs",
         [](const QRegularExpressionMatch& m, const core::Scenario&) {
             return m.captured(1).isEmpty()
                        ? tr("The degrees need more GPUs than the %1 the datacenters hold.")
                              .arg(num(captured(m, 2)))
                        : tr("The degrees need %1 GPUs (TP × CP × PP × DP), but the datacenters "
                             "hold %2: lower a degree or add pods.")
                              .arg(num(captured(m, 1)), num(captured(m, 2)));
         }},
        {"^global_batch = (\\d+) is not divisible by micro_batch \\* dp = (\\d+) \\* (\\d+)",
         [](const QRegularExpressionMatch& m, const core::Scenario&) {
             const std::int64_t step = captured(m, 2) * captured(m, 3);
             const QString near =
                 nearbyMultiples(captured(m, 1), step, core::limits::kGlobalBatch.max);
             return tr("The global batch must be a multiple of micro-batch %1 × DP %2 = %3 "
                       "sequences; %4 is not%5. Set TP, CP and PP first if DP is not final yet: "
                       "the batch follows DP.")
                 .arg(num(captured(m, 2)), num(captured(m, 3)), num(step), num(captured(m, 1)),
                      near.isEmpty() ? QString() : QStringLiteral(" (e.g. %1)").arg(near));
         }},
        {"^pp = (\\d+) exceeds the (\\d+) layers",
         [](const QRegularExpressionMatch& m, const core::Scenario&) {
             return tr("PP %1 is more than the %2 layers: every pipeline stage needs at least "
                       "one layer, so PP must be from 1 to %2.")
                 .arg(num(captured(m, 1)), num(captured(m, 2)));
         }},
        {"^seq_len = (\\d+) is not divisible by 2 \\* cp = (\\d+)",
         [](const QRegularExpressionMatch& m, const core::Scenario&) {
             return tr("CP splits each sequence into 2 × CP = %2 chunks, which must divide the "
                       "sequence length of %1 tokens: choose a CP with 2 × CP dividing %1.")
                 .arg(num(captured(m, 1)), num(captured(m, 2)));
         }},
        {"^ep = (\\d+) does not divide experts = (\\d+)",
         [](const QRegularExpressionMatch& m, const core::Scenario&) {
             return tr("EP %1 does not divide the %2 experts: EP must divide the number of "
                       "experts.")
                 .arg(num(captured(m, 1)), num(captured(m, 2)));
         }},
        {"^ep = (\\d+) does not divide dp \\* cp = (\\d+) \\* (\\d+)",
         [](const QRegularExpressionMatch& m, const core::Scenario&) {
             return tr("EP %1 is carved out of DP × CP = %2 × %3 and must divide %4.")
                 .arg(num(captured(m, 1)), num(captured(m, 2)), num(captured(m, 3)),
                      num(captured(m, 2) * captured(m, 3)));
         }},
        {"^ep = (\\d+) needs a mixture-of-experts",
         [](const QRegularExpressionMatch&, const core::Scenario&) {
             return tr("EP above 1 needs a mixture-of-experts model: set Experts above 0 in the "
                       "workload, or EP to 1.");
         }},
        {"^kv_heads = (\\d+) must divide heads = (\\d+)",
         [](const QRegularExpressionMatch& m, const core::Scenario&) {
             return tr("The KV heads must divide the %2 attention heads (%1 does not): use a "
                       "divisor of %2, or %2 for plain multi-head attention.")
                 .arg(num(captured(m, 1)), num(captured(m, 2)));
         }},
        {"^hidden = (\\d+) is not divisible by heads = (\\d+)",
         [](const QRegularExpressionMatch& m, const core::Scenario&) {
             return tr("The hidden size must be a multiple of the %2 attention heads; %1 is "
                       "not (e.g. %3).")
                 .arg(num(captured(m, 1)), num(captured(m, 2)),
                      nearbyMultiples(captured(m, 1), captured(m, 2),
                                      std::numeric_limits<std::int64_t>::max()));
         }},
        {"^layers = (\\d+) is not divisible by pp \\* virtual_stages = (\\d+)",
         [](const QRegularExpressionMatch& m, const core::Scenario&) {
             return tr("The %1 layers do not split evenly into PP × virtual stages = %2 "
                       "chunks: choose degrees whose product divides %1, or give the layers "
                       "per stage.")
                 .arg(num(captured(m, 1)), num(captured(m, 2)));
         }},
        {"^virtual_stages = (\\d+) needs pp > 1",
         [](const QRegularExpressionMatch&, const core::Scenario&) {
             return tr("Virtual stages above 1 need PP above 1: interleaving splits each "
                       "pipeline rank's layers into chunks.");
         }},
        {"^expected pp = (\\d+) entries, got (\\d+)",
         [](const QRegularExpressionMatch& m, const core::Scenario&) {
             return tr("Give one layer count per pipeline stage: %1 numbers for PP %1, not %2 "
                       "(or nothing for an even split).")
                 .arg(num(captured(m, 1)), num(captured(m, 2)));
         }},
        {"^the stages hold (\\d+) layers in total, expected layers = (\\d+)",
         [](const QRegularExpressionMatch& m, const core::Scenario&) {
             return tr("The stages hold %1 layers, but the model has %2: the layer counts must "
                       "add up to %2.")
                 .arg(num(captured(m, 1)), num(captured(m, 2)));
         }},
        {"^first_dense_layers = (\\d+) leaves no MoE layer among the (\\d+)",
         [](const QRegularExpressionMatch& m, const core::Scenario&) {
             return tr("%1 leading dense layers leave no expert layer among the %2 layers: use "
                       "fewer than %2.")
                 .arg(num(captured(m, 1)), num(captured(m, 2)));
         }},
        {"^datacenter (.*?) holds (\\d+) GPUs, but the placement puts (\\d+) there",
         [](const QRegularExpressionMatch& m, const core::Scenario&) {
             return tr("Datacenter %1 holds %2 GPUs, but the placement puts %3 there: add pods "
                       "or move stages to another datacenter.")
                 .arg(m.captured(1), num(captured(m, 2)), num(captured(m, 3)));
         }},
        {"^expected at least one pod",
         [](const QRegularExpressionMatch&, const core::Scenario&) {
             return tr("A datacenter needs at least one pod.");
         }},
    };
    // Compiled once: the property editor words every diagnostic after every edit.
    static const std::vector<QRegularExpression> compiled = [] {
        std::vector<QRegularExpression> out;
        for (const Rule& rule : rules)
            out.emplace_back(QString::fromLatin1(rule.pattern));
        return out;
    }();
    for (std::size_t i = 0; i < compiled.size(); ++i) {
        const QRegularExpressionMatch m = compiled[i].match(text);
        if (m.hasMatch())
            return rules[i].words(m, s);
    }
    return spelledOut(text);
}

} // namespace archipelago::views
