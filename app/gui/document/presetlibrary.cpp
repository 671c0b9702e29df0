#include "document/presetlibrary.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QStandardPaths>

#include <algorithm>

// Q_INIT_RESOURCE declares a function in the enclosing namespace: it must run at global scope.
// The resources of a static library are only linked in when something references them.
static void initArchipelagoResources()
{
    Q_INIT_RESOURCE(resources);
}

namespace archipelago::app {

namespace {

const QString kResourceFolder = QStringLiteral(":/presets");
const QString kDefaultAlias = QStringLiteral("default.json");

// Only the name is read here, for the menu; the scenario itself is loaded by core.
QString presetTitle(const QString& path)
{
    QFile file(path);
    if (file.size() < 4 * 1024 * 1024 && file.open(QIODevice::ReadOnly)) {
        const QJsonObject object = QJsonDocument::fromJson(file.readAll()).object();
        const QString name = object.value(QStringLiteral("name")).toString();
        if (!name.isEmpty())
            return name;
    }
    return QFileInfo(path).completeBaseName();
}

} // namespace

void PresetLibrary::initResources()
{
    static const bool done = [] {
        initArchipelagoResources();
        return true;
    }();
    Q_UNUSED(done);
}

QString PresetLibrary::defaultScenarioPath()
{
    initResources();
    return kResourceFolder + QLatin1Char('/') + kDefaultAlias;
}

QList<PresetLibrary::Preset> PresetLibrary::presets()
{
    initResources();
    QList<Preset> result;
    QSet<QString> seen;
    const QStringList filter{QStringLiteral("*.json")};
    const QDir resources(kResourceFolder);
    for (const QString& name : resources.entryList(filter, QDir::Files, QDir::Name)) {
        if (name == kDefaultAlias)
            continue; // the same file under its own name
        result.append({presetTitle(resources.filePath(name)), resources.filePath(name)});
        seen.insert(name);
    }
    // Presets installed beside the program (share/archipelago/presets of the .deb) and the
    // user's own (~/.local/share/archipelago/presets): found at run time, so no build path is
    // compiled into the binary.
    QStringList folders{QCoreApplication::applicationDirPath() +
                        QStringLiteral("/../share/archipelago/presets")};
    for (const QString& data :
         QStandardPaths::standardLocations(QStandardPaths::GenericDataLocation))
        folders.append(data + QStringLiteral("/archipelago/presets"));
    for (const QString& folder : folders) {
        const QDir dir(folder);
        for (const QString& name : dir.entryList(filter, QDir::Files, QDir::Name))
            if (!seen.contains(name)) {
                result.append({presetTitle(dir.filePath(name)), dir.filePath(name)});
                seen.insert(name);
            }
    }
    std::sort(result.begin(), result.end(),
              [](const Preset& a, const Preset& b) { return a.title < b.title; });
    return result;
}

} // namespace archipelago::app
