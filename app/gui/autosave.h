// Work is never lost (STYLE.md "Files and errors"): while the document is modified, a copy is
// written every minute to QStandardPaths::AppDataLocation/autosave, one file per document (by
// its file name, or "untitled"). Saving, discarding or closing cleanly removes the copy, so a
// copy found at start-up that is newer than its file is what a crash left behind.
#pragma once

#include <QObject>
#include <QString>
#include <QTimer>

namespace archipelago::app {

class Document;

class Autosave : public QObject
{
    Q_OBJECT

public:
    static constexpr int kDefaultIntervalMs = 60'000;

    explicit Autosave(Document* document, QObject* parent = nullptr);

    void setInterval(int milliseconds);
    // Where the copy of a document with this file name (empty: untitled) goes.
    static QString pathFor(const QString& fileName);
    // The copy left for `fileName` when it is newer than the file (or the file is gone), else "".
    static QString recoverablePath(const QString& fileName);

    // Writes the copy now if the document is modified; returns whether a copy was written.
    bool saveNow();
    // Removes the copy of the current document (after a save, or when changes are discarded).
    void discard();

private:
    void onFileNameChanged();
    void onModifiedChanged(bool modified);

    Document* m_document;
    QTimer m_timer;
    QString m_path; // the copy of the current document
};

} // namespace archipelago::app
