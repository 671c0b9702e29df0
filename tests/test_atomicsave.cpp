// Saves are atomic: a process killed (SIGKILL) at any moment of saving a very large scenario
// leaves the file it was saving either as it was or as the complete new version, never cut.
// The saving runs in a helper process (save_kill_helper) through the same Document::save.
#include "document/document.h"
#include "largescenario.h"

#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <string>
#include <vector>

using namespace archipelago;

namespace {

// Tens of MB once saved: serialising and writing take a good fraction of a second, so the
// kills below land in every phase of a save. Under AddressSanitizer, which makes serialising
// and parsing about ten times slower, a tenth of it takes as long (the kills are placed by the
// measured save time either way).
#if defined(__SANITIZE_ADDRESS__)
constexpr int kLinks = 6'000;
constexpr std::size_t kLeastBytes = 2u * 1024 * 1024;
#else
constexpr int kLinks = 60'000;
constexpr std::size_t kLeastBytes = 20u * 1024 * 1024;
#endif

std::string readAll(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    const QByteArray bytes = file.readAll();
    return std::string(bytes.constData(), static_cast<std::size_t>(bytes.size()));
}

} // namespace

class TestAtomicSave : public QObject
{
    Q_OBJECT

private slots:
    void killedMidSaveLeavesACompleteFile();
};

void TestAtomicSave::killedMidSaveLeavesACompleteFile()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString target = dir.filePath(QStringLiteral("large.json"));

    // The helper alternates variants 0 and 1; the file starts as variant 2.
    std::vector<std::string> versions;
    for (int variant = 0; variant < 3; ++variant) {
        const tests::LargeDocument d = tests::largeDocument(kLinks, variant);
        versions.push_back(core::serializeScenario(d.scenario, d.pins));
    }
    QVERIFY2(versions[2].size() > kLeastBytes, "the scenario is not large enough");
    QVERIFY(versions[2].size() < core::kMaxFileBytes);
    for (const std::string& version : versions) {
        const core::LoadResult load = core::parseScenario(version, "large.json");
        QVERIFY2(load.ok(),
                 load.errors.empty() ? "no scenario" : load.errors.front().message.c_str());
    }

    app::Document document;
    tests::LargeDocument initial = tests::largeDocument(kLinks, 2);
    document.reset(std::move(initial.scenario), target, std::move(initial.pins));
    QElapsedTimer timer;
    timer.start();
    QString error;
    QVERIFY2(document.save(target, &error), qPrintable(error));
    const qint64 saveMs = std::max<qint64>(50, timer.elapsed());
    QCOMPARE(readAll(target), versions[2]);

    // Kills spread over the first two saves (serialising, writing, committing) and beyond.
    const double fractions[] = {0.1, 0.3, 0.5, 0.7, 0.85, 0.95, 1.05, 1.2, 1.5, 1.8, 2.5};
    std::string previous = versions[2];
    int changed = 0;
    for (double fraction : fractions) {
        QProcess helper;
        helper.start(QStringLiteral(ARCHIPELAGO_SAVE_KILL_HELPER),
                     {target, QString::number(kLinks)});
        QVERIFY(helper.waitForStarted());
        QByteArray output;
        while (!output.contains("ready\n")) {
            QVERIFY2(helper.waitForReadyRead(60'000), "the helper did not get ready");
            output += helper.readAllStandardOutput();
        }
        QTest::qWait(static_cast<int>(fraction * static_cast<double>(saveMs)));
        helper.kill(); // SIGKILL: no handler, no destructor runs
        QVERIFY(helper.waitForFinished(10'000));
        output += helper.readAllStandardOutput();
        QVERIFY2(!output.contains("error"), output.constData());

        const std::string now = readAll(target);
        const bool complete = now == versions[0] || now == versions[1] || now == versions[2];
        QVERIFY2(complete, qPrintable(QStringLiteral("killed after %1 ms: the file is %2 bytes, "
                                                     "not one of the saved versions")
                                          .arg(fraction * static_cast<double>(saveMs))
                                          .arg(now.size())));
        QVERIFY(core::parseScenario(now, target.toStdString()).ok());
        if (now != previous)
            ++changed;
        previous = now;
    }
    qInfo("%zu bytes, saved in %lld ms; %d of %zu kills found a new version", versions[2].size(),
          static_cast<long long>(saveMs), changed, std::size(fractions));
    // The kills did not all come before the helper wrote anything.
    QVERIFY(changed > 0);
}

QTEST_GUILESS_MAIN(TestAtomicSave)
#include "test_atomicsave.moc"
