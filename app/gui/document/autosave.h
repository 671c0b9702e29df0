// Work is never lost (STYLE.md "Files and errors"): while the document is modified, a copy is
// written every minute to QStandardPaths::AppDataLocation/autosave, one file per document (by
// its file name, or "untitled"). Saving, discarding or closing cleanly removes the copy, so a
// copy found at start-up that is newer than its file is what a crash left behind.
//
// A live window owns its copy: it holds a lock beside it (QLockFile, "<copy>.lock"; a lock
// whose process has died is stale and taken over), so that a second window on the same file
// neither offers the first one's copy as a crash's nor writes over it: the second window
// writes a copy of its own ("<key>-1.json", ...). A copy a crash left behind is never written
// over by a later window either, and is removed only on the user's word (recovered, or
// discarded in the prompt).
//
// Beside each copy, "<copy>.origin" names the file it belongs to (empty for untitled work), so
// that a plain start, with no file named, can offer every document a crash left behind.
#pragma once

#include <QObject>
#include <QString>
#include <QTimer>

#include <memory>
#include <vector>

class QLockFile;

namespace archipelago::app {

class Document;

class Autosave : public QObject
{
    Q_OBJECT

public:
    static constexpr int kDefaultIntervalMs = 60'000;
    // Copies per document: the first free one is taken (one per window open on the file).
    static constexpr int kMaxCopies = 16;

    explicit Autosave(Document* document, QObject* parent = nullptr);
    ~Autosave() override;

    void setInterval(int milliseconds);
    // Where copy `index` of a document with this file name (empty: untitled) goes; index 0 is
    // the first window's.
    static QString pathFor(const QString& fileName, int index = 0);
    // The first copy of `fileName` a crash left behind: newer than the file (or the file is
    // gone) and owned by no live window; or "".
    static QString recoverablePath(const QString& fileName);
    // The documents a crash left a copy of: each file's absolute path, "" for untitled work,
    // the newest copy first, each document once.
    static std::vector<QString> recoverableFiles();
    // Removes a copy and its origin note (the user's word: recovered, or discarded).
    static void removeCopy(const QString& copy);
    // The copy this window writes (its lock held).
    QString path() const { return m_path; }

    // Writes the copy now if the document is modified; returns whether a copy was written.
    bool saveNow();
    // Removes the copy of the current document (after a save, or when changes are discarded).
    void discard();

private:
    void onFileNameChanged();
    void onModifiedChanged(bool modified);
    // Releases the copy held and takes the first free one for the document's file name.
    void claim();

    Document* m_document;
    QTimer m_timer;
    QString m_path; // the copy of the current document
    std::unique_ptr<QLockFile> m_lock;
};

} // namespace archipelago::app
