#include "document/recentfiles.h"

#include <QFileInfo>
#include <QSettings>

namespace archipelago::app {

namespace {

const QString kKey = QStringLiteral("recentFiles");

QStringList storedFiles()
{
    return QSettings().value(kKey).toStringList();
}

} // namespace

RecentFiles::RecentFiles(QObject* parent)
    : QObject(parent)
{}

QStringList RecentFiles::files() const
{
    QStringList existing;
    for (const QString& path : storedFiles())
        if (QFileInfo::exists(path))
            existing << path;
    return existing;
}

void RecentFiles::add(const QString& path)
{
    if (path.isEmpty() || path.startsWith(QLatin1Char(':')))
        return; // resources (built-in presets) are not files the user opened
    const QString absolute = QFileInfo(path).absoluteFilePath();
    QStringList list = storedFiles();
    list.removeAll(absolute);
    list.prepend(absolute);
    while (list.size() > kMaxFiles)
        list.removeLast();
    store(list);
}

void RecentFiles::remove(const QString& path)
{
    QStringList list = storedFiles();
    if (list.removeAll(QFileInfo(path).absoluteFilePath()) > 0)
        store(list);
}

void RecentFiles::clear()
{
    store({});
}

void RecentFiles::store(const QStringList& files)
{
    QSettings().setValue(kKey, files);
    emit changed();
}

} // namespace archipelago::app
