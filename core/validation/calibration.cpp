#include "validation/calibration.h"

#include "evaluation/costmodel.h"
#include "model/diagnostic.h"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

namespace archipelago::core {

namespace {

// Largest error test_validation accepts; a candidate beyond it loses to any within it.
constexpr double kLargestBound = 0.10;
// Mean errors closer than this are a tie, broken by the largest error.
constexpr double kMeanTie = 5e-4;
// A parameter whose whole range moves no run's prediction by more than this is not identified.
constexpr double kMinSensitivity = 0.005;
// Two parameters whose effects on the runs' (log) predictions are closer than this angle's sine
// move every prediction in proportion: the runs cannot tell them apart (about 6 degrees).
constexpr double kMinIndependence = 0.1;
// A run whose prediction fails is worth this error: no candidate that loses a run can win.
constexpr double kFailedRunError = 1e3;

struct Score
{
    double mean = 1e9;
    double max = 1e9;
};

bool better(const Score& a, const Score& b)
{
    if ((a.max <= kLargestBound) != (b.max <= kLargestBound))
        return a.max <= kLargestBound;
    if (a.mean < b.mean - kMeanTie)
        return true;
    return a.mean <= b.mean + kMeanTie && a.max < b.max;
}

Score scoreOf(const std::vector<double>& errors, const std::vector<std::size_t>& subset)
{
    Score s{0.0, 0.0};
    for (const std::size_t i : subset) {
        s.mean += std::abs(errors[i]);
        s.max = std::max(s.max, std::abs(errors[i]));
    }
    s.mean /= static_cast<double>(std::max<std::size_t>(subset.size(), 1));
    return s;
}

std::string percent(double fraction)
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.2f%%", 100.0 * fraction);
    return buffer;
}

std::string number(double value)
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.4g", value);
    return buffer;
}

// Signed errors of the cases in `subset` (the others keep kFailedRunError), and their
// predictions when asked.
std::vector<double> subsetErrors(const std::vector<CalibrationCase>& cases,
                                 const std::vector<std::size_t>& subset,
                                 const EfficiencyParams& efficiency,
                                 std::vector<double>* predictedS = nullptr)
{
    std::vector<double> errors(cases.size(), kFailedRunError);
    if (predictedS)
        predictedS->assign(cases.size(), 0.0);
    tbb::parallel_for(std::size_t{0}, subset.size(), [&](std::size_t k) {
        const std::size_t i = subset[k];
        const Scenario& sc = cases[i].scenario;
        Catalog catalog = builtinCatalog().mergedWith(sc.catalogOverrides);
        for (AcceleratorSpec& a : catalog.accelerators)
            if (a.name == cases[i].accelerator)
                a.efficiency = efficiency;
        EvaluateOptions lean;
        lean.timeline = false;
        lean.warnings = false;
        lean.billOfMaterials = false;
        lean.attribution = false;
        const Evaluation ev = evaluate(sc, catalog, lean);
        if (ev.ok && ev.iterationTimeS > 0.0) {
            errors[i] = ev.iterationTimeS / cases[i].measuredS - 1.0;
            if (predictedS)
                (*predictedS)[i] = ev.iterationTimeS;
        }
    });
    return errors;
}

class Fitter
{
public:
    Fitter(const std::vector<CalibrationCase>& cases,
           const std::vector<const CalibrationParameter*>& fit, const CalibrationOptions& options,
           int totalFits)
        : m_cases(cases)
        , m_fit(fit)
        , m_options(options)
        , m_totalFits(totalFits)
    {}

    // Coordinate descent over `subset` from `start`; `fullRange`: begin with the coarse grid
    // over each parameter's whole range (else refine around `start` only).
    std::optional<EfficiencyParams> fit(const std::vector<std::size_t>& subset,
                                        const EfficiencyParams& start, bool fullRange)
    {
        EfficiencyParams best = start;
        Score bestScore = scoreOf(subsetErrors(m_cases, subset, best), subset);
        for (double refine = fullRange ? 1.0 : 0.5; refine >= 0.125; refine /= 2.0) {
            for (int round = 0; round < 4; ++round) {
                bool moved = false;
                for (const CalibrationParameter* q : m_fit) {
                    const double step = q->step * refine;
                    const double centre = best.*q->member;
                    const double lo = refine == 1.0 ? q->lo : std::max(q->lo, centre - 4 * step);
                    const double hi = refine == 1.0 ? q->hi : std::min(q->hi, centre + 4 * step);
                    const int points = static_cast<int>(std::floor((hi - lo) / step + 1e-9));
                    for (int k = 0; k <= points; ++k) {
                        EfficiencyParams p = best;
                        p.*q->member = lo + k * step;
                        const Score s = scoreOf(subsetErrors(m_cases, subset, p), subset);
                        if (better(s, bestScore)) {
                            bestScore = s;
                            best = p;
                            moved = true;
                        }
                    }
                    if (!report())
                        return std::nullopt;
                }
                if (!moved)
                    break;
            }
        }
        ++m_fitsDone;
        m_sweeps = 0;
        return best;
    }

private:
    // Progress by fits, and within a fit by parameter sweeps (about 40 per fit).
    bool report()
    {
        if (!m_options.progress)
            return true;
        m_sweeps = std::min(m_sweeps + 1, 39);
        const double fraction = (m_fitsDone + m_sweeps / 40.0) / std::max(m_totalFits, 1);
        return m_options.progress(std::min(fraction, 1.0));
    }

    const std::vector<CalibrationCase>& m_cases;
    const std::vector<const CalibrationParameter*>& m_fit;
    const CalibrationOptions& m_options;
    int m_totalFits;
    int m_fitsDone = 0;
    int m_sweeps = 0;
};

// log(predicted at the top of the range / at the bottom) for each case, others at `start`.
std::vector<double> effect(const std::vector<CalibrationCase>& cases, const CalibrationParameter& p,
                           const EfficiencyParams& start)
{
    EfficiencyParams lo = start, hi = start;
    lo.*p.member = p.lo;
    hi.*p.member = p.hi;
    std::vector<double> atLo, atHi;
    calibrationErrors(cases, lo, &atLo);
    calibrationErrors(cases, hi, &atHi);
    std::vector<double> out(cases.size(), 0.0);
    for (std::size_t i = 0; i < cases.size(); ++i)
        if (atLo[i] > 0.0 && atHi[i] > 0.0)
            out[i] = std::log(atHi[i] / atLo[i]);
    return out;
}

// The parameters to fit, or errors saying why the runs do not identify them.
std::vector<const CalibrationParameter*> chooseParameters(const std::vector<CalibrationCase>& cases,
                                                          const EfficiencyParams& start,
                                                          const CalibrationOptions& options,
                                                          CalibrationOutcome& out)
{
    const int runs = static_cast<int>(cases.size());
    std::vector<const CalibrationParameter*> fit;
    std::set<std::string> seen;
    for (const std::string& name : options.fit) {
        const CalibrationParameter* p = findCalibrationParameter(name);
        if (!p) {
            std::string names;
            for (const CalibrationParameter& q : calibrationParameters())
                names += (names.empty() ? "" : ", ") + std::string(q.name);
            out.errors.push_back("unknown parameter \"" + name + "\" (expected one of " + names +
                                 ")");
            continue;
        }
        if (seen.insert(name).second)
            fit.push_back(p);
    }
    if (!out.errors.empty())
        return {};
    if (runs < 2) {
        out.errors.push_back(
            std::to_string(runs) +
            " measured run identifies no parameter with a leave-one-out check: measure at least "
            "two runs of different sizes or shapes");
        return {};
    }
    // The default set keeps what the runs identify; a parameter asked for by name is refused.
    const bool chosen = fit.empty();
    if (chosen) {
        fit.push_back(findCalibrationParameter("gemm_peak"));
        fit.push_back(findCalibrationParameter("memory_bound"));
    }
    if (static_cast<int>(fit.size()) > runs) {
        out.errors.push_back("fitting " + std::to_string(fit.size()) +
                             " parameters needs at least as many runs; there are " +
                             std::to_string(runs) + ": fit at most " + std::to_string(runs));
        return {};
    }
    // Identification: what each parameter's whole range does to the runs' predictions, and
    // whether that effect is more than a multiple of an earlier parameter's (Gram-Schmidt).
    std::vector<std::vector<double>> basis;
    std::vector<const CalibrationParameter*> kept;
    const auto refuse = [&](const CalibrationParameter* p, std::string why) {
        if (chosen)
            out.notes.push_back(std::string(p->name) + " not fitted: " + why);
        else
            out.errors.push_back(std::string(p->name) + ": " + why);
    };
    for (const CalibrationParameter* p : fit) {
        std::vector<double> v = effect(cases, *p, start);
        double largest = 0.0;
        for (const double x : v)
            largest = std::max(largest, std::abs(x));
        if (largest < kMinSensitivity) {
            refuse(p, "no run's predicted time moves by more than " + percent(std::expm1(largest)) +
                          " over its whole range " + number(p->lo) + ".." + number(p->hi) + " (" +
                          p->meaning + "), so the runs do not identify it; leave it out of --fit");
            continue;
        }
        double norm2 = 0.0;
        for (const double x : v)
            norm2 += x * x;
        std::vector<double> residual = v;
        for (const std::vector<double>& b : basis) {
            double dot = 0.0;
            for (std::size_t i = 0; i < v.size(); ++i)
                dot += residual[i] * b[i];
            for (std::size_t i = 0; i < v.size(); ++i)
                residual[i] -= dot * b[i];
        }
        double res2 = 0.0;
        for (const double x : residual)
            res2 += x * x;
        if (std::sqrt(res2 / norm2) < kMinIndependence) {
            refuse(p, "it moves every run's predicted time in proportion to the parameters "
                      "before it, so these runs cannot tell them apart; fit one of them, or add "
                      "runs of other shapes");
            continue;
        }
        const double n = std::sqrt(res2);
        for (double& x : residual)
            x /= n;
        basis.push_back(std::move(residual));
        kept.push_back(p);
    }
    if (out.errors.empty() && kept.empty())
        out.errors.push_back("the runs identify none of the parameters");
    return out.errors.empty() ? kept : std::vector<const CalibrationParameter*>{};
}

} // namespace

std::vector<CalibrationCase> calibrationCases(const std::vector<PublishedRun>& runs,
                                              const Catalog& catalog, std::string& accelerator,
                                              std::vector<std::string>& notes, std::string& error)
{
    std::set<std::string> names;
    for (const PublishedRun& run : runs)
        names.insert(run.accelerator);
    if (accelerator.empty()) {
        if (names.size() != 1) {
            std::string list;
            for (const std::string& n : names)
                list += (list.empty() ? "" : ", ") + n;
            error = names.empty() ? "the file holds no run"
                                  : "the runs name several accelerators (" + list +
                                        "): choose one (--accelerator)";
            return {};
        }
        accelerator = *names.begin();
    }
    if (!catalog.accelerator(accelerator)) {
        error = "accelerator \"" + accelerator + "\" is not in the catalog";
        return {};
    }
    std::vector<CalibrationCase> cases;
    int other = 0;
    for (const PublishedRun& run : runs) {
        if (run.accelerator != accelerator) {
            ++other;
            continue;
        }
        RunScenario rs = scenarioForRun(run, catalog);
        const Evaluation ev =
            evaluate(rs.scenario, catalog.mergedWith(rs.scenario.catalogOverrides));
        if (!ev.ok || !ev.fitsInMemory || !(run.measuredIterationS > 0.0)) {
            notes.push_back(run.id + " left out: " +
                            (!ev.ok ? std::string("the model cannot evaluate it")
                             : !ev.fitsInMemory
                                 ? "it does not fit in HBM (needs " + number(ev.memoryPeakGib) +
                                       " GiB per GPU of " + number(ev.hbmGib) + ")"
                                 : std::string("no measured time")));
            continue;
        }
        cases.push_back({run.id, accelerator, std::move(rs.scenario), run.measuredIterationS});
    }
    if (other > 0)
        notes.push_back(std::to_string(other) + " run" + (other == 1 ? "" : "s") + " of other " +
                        "accelerators left out");
    if (cases.empty() && error.empty())
        error = "no run of " + accelerator + " the model can evaluate";
    return cases;
}

std::vector<double> calibrationErrors(const std::vector<CalibrationCase>& cases,
                                      const EfficiencyParams& efficiency,
                                      std::vector<double>* predictedS)
{
    std::vector<std::size_t> all(cases.size());
    for (std::size_t i = 0; i < all.size(); ++i)
        all[i] = i;
    return subsetErrors(cases, all, efficiency, predictedS);
}

CalibrationOutcome calibrate(const std::vector<CalibrationCase>& cases,
                             const EfficiencyParams& start, const std::string& accelerator,
                             const CalibrationOptions& options)
{
    CalibrationOutcome out;
    const std::vector<const CalibrationParameter*> fit =
        chooseParameters(cases, start, options, out);
    if (!out.ok())
        return out;
    std::vector<double> catalogS;
    const std::vector<double> catalogErrors = calibrationErrors(cases, start, &catalogS);
    std::vector<std::size_t> all(cases.size());
    for (std::size_t i = 0; i < all.size(); ++i)
        all[i] = i;
    const Score catalogScore = scoreOf(catalogErrors, all);
    out.catalogMeanError = catalogScore.mean;
    out.catalogMaxError = catalogScore.max;

    Fitter fitter(cases, fit, options, static_cast<int>(cases.size()) + 1);
    const std::optional<EfficiencyParams> best = fitter.fit(all, start, true);
    if (!best) {
        out.errors.push_back("cancelled");
        return out;
    }
    std::vector<double> fittedS;
    const Score inSample = scoreOf(calibrationErrors(cases, *best, &fittedS), all);
    // Leave-one-out: each run predicted by the fit on the others.
    std::vector<double> looS(cases.size(), 0.0);
    double looSum = 0.0, looMax = 0.0;
    for (std::size_t held = 0; held < cases.size(); ++held) {
        std::vector<std::size_t> rest;
        for (const std::size_t i : all)
            if (i != held)
                rest.push_back(i);
        const std::optional<EfficiencyParams> p = fitter.fit(rest, *best, false);
        if (!p) {
            out.errors.push_back("cancelled");
            return out;
        }
        std::vector<double> predicted;
        const double error = subsetErrors(cases, {held}, *p, &predicted)[held];
        looS[held] = predicted[held];
        looSum += std::abs(error);
        looMax = std::max(looMax, std::abs(error));
    }
    Calibration& c = out.calibration;
    c.accelerator = accelerator;
    for (const CalibrationParameter& q : calibrationParameters())
        if (std::find(fit.begin(), fit.end(), &q) != fit.end())
            c.fitted.emplace_back(q.name, (*best).*q.member);
    c.runs = static_cast<int>(cases.size());
    c.inSampleMeanError = inSample.mean;
    c.inSampleMaxError = inSample.max;
    c.leaveOneOutMeanError = looSum / static_cast<double>(cases.size());
    c.leaveOneOutMaxError = looMax;
    for (std::size_t i = 0; i < cases.size(); ++i)
        out.rows.push_back({cases[i].id, cases[i].measuredS, catalogS[i], fittedS[i], looS[i]});
    return out;
}

std::string calibrationReport(const CalibrationOutcome& o)
{
    const auto signedPercent = [](double predicted, double measured) {
        char buffer[32];
        std::snprintf(buffer, sizeof buffer, "%+.1f%%", 100.0 * (predicted / measured - 1.0));
        return std::string(buffer);
    };
    const auto seconds = [](double s) {
        char buffer[32];
        std::snprintf(buffer, sizeof buffer, "%.3f", s);
        return std::string(buffer);
    };
    // Columns padded to their widest cell, so that the table reads in a fixed-width font.
    std::vector<std::vector<std::string>> rows = {
        {"run", "measured (s)", "catalog (s)", "fitted (s)", "leave-one-out (s)"}};
    for (const CalibrationRunRow& r : o.rows)
        rows.push_back(
            {displayText(r.id), seconds(r.measuredS),
             seconds(r.catalogS) + " " + signedPercent(r.catalogS, r.measuredS),
             seconds(r.fittedS) + " " + signedPercent(r.fittedS, r.measuredS),
             seconds(r.leaveOneOutS) + " " + signedPercent(r.leaveOneOutS, r.measuredS)});
    std::vector<std::size_t> width(rows.front().size(), 0);
    for (const std::vector<std::string>& row : rows)
        for (std::size_t k = 0; k < row.size(); ++k)
            width[k] = std::max(width[k], row[k].size());
    std::string text;
    for (const std::vector<std::string>& row : rows) {
        for (std::size_t k = 0; k < row.size(); ++k) {
            const std::string pad(width[k] - row[k].size(), ' ');
            text += k == 0 ? row[k] + pad : "  " + pad + row[k];
        }
        text += "\n";
    }
    const Calibration& c = o.calibration;
    text += "mean / largest absolute error: catalog " + percent(o.catalogMeanError) + " / " +
            percent(o.catalogMaxError) + ", fitted " + percent(c.inSampleMeanError) + " / " +
            percent(c.inSampleMaxError) + ", leave-one-out " + percent(c.leaveOneOutMeanError) +
            " / " + percent(c.leaveOneOutMaxError) + "\n";
    text += "fitted:";
    for (const auto& [name, value] : c.fitted)
        text += " " + name + " " + number(value);
    return text + "\n";
}

CalibrationOutcome calibrate(const std::vector<PublishedRun>& runs, const Catalog& catalog,
                             const std::string& accelerator, const CalibrationOptions& options)
{
    CalibrationOutcome out;
    std::string chosen = accelerator;
    std::string error;
    const std::vector<CalibrationCase> cases =
        calibrationCases(runs, catalog, chosen, out.notes, error);
    if (!error.empty()) {
        out.errors.push_back(error);
        return out;
    }
    CalibrationOutcome fitted =
        calibrate(cases, catalog.accelerator(chosen)->efficiency, chosen, options);
    fitted.notes.insert(fitted.notes.begin(), out.notes.begin(), out.notes.end());
    return fitted;
}

} // namespace archipelago::core
