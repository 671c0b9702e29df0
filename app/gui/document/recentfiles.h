// The most recently opened or saved scenario files, remembered across sessions (QSettings).
#pragma once

#include <QObject>
#include <QStringList>

namespace archipelago::app {

class RecentFiles : public QObject
{
    Q_OBJECT

public:
    static constexpr int kMaxFiles = 8;

    explicit RecentFiles(QObject* parent = nullptr);

    // Most recent first; files that no longer exist are left out.
    QStringList files() const;
    void add(const QString& path);
    void remove(const QString& path);
    void clear();

signals:
    void changed();

private:
    void store(const QStringList& files);
};

} // namespace archipelago::app
