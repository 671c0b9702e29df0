// The DCI capacity a design needs (evaluation/linksizing.h): the fewest wavelengths whose
// iteration time is within the tolerance of an unlimited link, and no fewer.
#include "evaluation/costmodel.h"
#include "evaluation/linksizing.h"
#include "io/scenarioio.h"

#include <QtTest>

using namespace archipelago::core;

namespace {

Scenario twoBuildings()
{
    LoadResult r =
        loadScenarioFile(ARCHIPELAGO_SOURCE_DIR "/presets/llama3-405b-two-buildings.json");
    if (!r.ok())
        qFatal("the two-building preset does not load");
    return *r.scenario;
}

double iterationWith(Scenario s, Id link, int wavelengths)
{
    for (DciLink& l : s.topology.links)
        if (l.id == link)
            l.wavelengths = wavelengths;
    return evaluate(s).iterationTimeS;
}

} // namespace

class TestLinkSizing : public QObject
{
    Q_OBJECT

private slots:
    void fewestWavelengthsWithinTheTolerance()
    {
        // PP crosses the campus link: a thin link lengthens every pipeline, a fat one does not.
        const Scenario s = twoBuildings();
        const Catalog catalog = effectiveCatalog(s);
        const Id link = s.topology.links.front().id;
        const LinkSizing need = wavelengthsNeeded(s, catalog, link, 0.01);
        QVERIFY(need.ok);
        QVERIFY2(need.wavelengths > 1 && need.wavelengths < 4096,
                 qPrintable(QString::number(need.wavelengths)));
        QCOMPARE(need.gbps, need.wavelengths * s.topology.links.front().gbpsPerWavelength);
        QVERIFY(need.iterationS <= need.unlimitedS * 1.01);
        // No fewer: one wavelength less is past the tolerance.
        QVERIFY(iterationWith(s, link, need.wavelengths - 1) > need.unlimitedS * 1.01);
        QCOMPARE(need.iterationS, iterationWith(s, link, need.wavelengths));
        QVERIFY(need.evaluations <= 16); // a bisection, not a scan
        // A looser tolerance never asks for more.
        const LinkSizing loose = wavelengthsNeeded(s, catalog, link, 0.10);
        QVERIFY(loose.ok && loose.wavelengths <= need.wavelengths);
    }

    void unusedLinkNeedsOne()
    {
        // A second link the placement sends nothing over (the same two buildings, parallel
        // links take one route): one wavelength is as good as any.
        Scenario s = twoBuildings();
        DciLink spare = s.topology.links.front();
        spare.id = nextLinkId(s.topology);
        spare.distanceKm = 80.0;
        s.topology.links.push_back(spare);
        const LinkSizing need = wavelengthsNeeded(s, effectiveCatalog(s), spare.id);
        QVERIFY(need.ok);
        QCOMPARE(need.wavelengths, 1);
    }

    void unknownLinkIsNotSized()
    {
        const Scenario s = twoBuildings();
        QVERIFY(!wavelengthsNeeded(s, effectiveCatalog(s), 9999).ok);
    }
};

QTEST_APPLESS_MAIN(TestLinkSizing)
#include "test_linksizing.moc"
