#include "document/autosave.h"

#include "document/document.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFileInfo>
#include <QLockFile>
#include <QSaveFile>
#include <QStandardPaths>

#include <algorithm>

namespace archipelago::app {

namespace {

// A lock beside `copy`, stale only when its process has died: QLockFile's default also takes
// over a lock older than 30 s, which would hand a live window's copy to another one.
std::unique_ptr<QLockFile> lockFor(const QString& copy)
{
    auto lock = std::make_unique<QLockFile>(copy + QStringLiteral(".lock"));
    lock->setStaleLockTime(0);
    return lock;
}

QString originPath(const QString& copy)
{
    return copy + QStringLiteral(".origin");
}

QString autosaveFolder()
{
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) +
           QStringLiteral("/autosave");
}

} // namespace

Autosave::Autosave(Document* document, QObject* parent)
    : QObject(parent)
    , m_document(document)
{
    m_timer.setInterval(kDefaultIntervalMs);
    connect(&m_timer, &QTimer::timeout, this, &Autosave::saveNow);
    connect(document, &Document::fileNameChanged, this, &Autosave::onFileNameChanged);
    connect(document, &Document::modifiedChanged, this, &Autosave::onModifiedChanged);
    claim();
}

Autosave::~Autosave() = default;

void Autosave::setInterval(int milliseconds)
{
    m_timer.setInterval(milliseconds);
}

QString Autosave::pathFor(const QString& fileName, int index)
{
    const QString folder = autosaveFolder();
    const QString key =
        fileName.isEmpty()
            ? QStringLiteral("untitled")
            : QString::fromLatin1(
                  QCryptographicHash::hash(QFileInfo(fileName).absoluteFilePath().toUtf8(),
                                           QCryptographicHash::Sha1)
                      .toHex()
                      .left(16));
    const QString suffix = index == 0 ? QString() : QStringLiteral("-%1").arg(index);
    return folder + QLatin1Char('/') + key + suffix + QStringLiteral(".json");
}

QString Autosave::recoverablePath(const QString& fileName)
{
    const QFileInfo original(fileName);
    for (int i = 0; i < kMaxCopies; ++i) {
        const QFileInfo copy(pathFor(fileName, i));
        if (!copy.exists())
            continue;
        if (!fileName.isEmpty() && original.exists() &&
            copy.lastModified() <= original.lastModified())
            continue;
        // A live window's copy is its work in progress, not a crash's leftover.
        if (lockFor(copy.filePath())->tryLock(0))
            return copy.filePath();
    }
    return {};
}

std::vector<QString> Autosave::recoverableFiles()
{
    const QFileInfoList copies =
        QDir(autosaveFolder())
            .entryInfoList({QStringLiteral("*.json")}, QDir::Files, QDir::Time); // newest first
    std::vector<QString> files;
    for (const QFileInfo& copy : copies) {
        QFile note(originPath(copy.filePath()));
        QString fileName;
        if (note.open(QIODevice::ReadOnly))
            fileName = QString::fromUtf8(note.read(4096)).trimmed();
        else if (!copy.fileName().startsWith(QStringLiteral("untitled")))
            continue; // a copy from before origin notes: offered when its file is opened
        if (std::find(files.begin(), files.end(), fileName) != files.end())
            continue;
        // The copy must be the one recoverablePath finds for that document (newer than the
        // file, owned by no live window).
        if (recoverablePath(fileName).isEmpty())
            continue;
        files.push_back(fileName);
    }
    return files;
}

void Autosave::removeCopy(const QString& copy)
{
    QFile::remove(copy);
    QFile::remove(originPath(copy));
}

void Autosave::claim()
{
    m_lock.reset();
    m_path.clear();
    const QString fileName = m_document->fileName();
    QDir().mkpath(QFileInfo(pathFor(fileName)).absolutePath());
    // The first copy that no live window holds and no crash left behind.
    for (int i = 0; i < kMaxCopies; ++i) {
        const QString candidate = pathFor(fileName, i);
        std::unique_ptr<QLockFile> lock = lockFor(candidate);
        if (!lock->tryLock(0))
            continue;
        if (QFileInfo::exists(candidate))
            continue; // a crash's copy: kept for the recovery prompt, never written over
        m_path = candidate;
        m_lock = std::move(lock);
        return;
    }
    // All taken: this window keeps no copy rather than write over another's (saveNow fails).
}

bool Autosave::saveNow()
{
    if (!m_document->isModified() || m_path.isEmpty())
        return false;
    QDir().mkpath(QFileInfo(m_path).absolutePath());
    // The origin note first: a copy is never without the name of its file.
    const QString fileName =
        m_document->isUntitled() ? QString() : QFileInfo(m_document->fileName()).absoluteFilePath();
    QSaveFile note(originPath(m_path));
    const QByteArray origin = fileName.toUtf8();
    if (!note.open(QIODevice::WriteOnly) || note.write(origin) != origin.size() || !note.commit())
        return false;
    const std::string text = m_document->serialized();
    QSaveFile file(m_path);
    return file.open(QIODevice::WriteOnly) &&
           file.write(text.data(), static_cast<qint64>(text.size())) ==
               static_cast<qint64>(text.size()) &&
           file.commit();
}

void Autosave::discard()
{
    if (!m_path.isEmpty())
        removeCopy(m_path);
}

void Autosave::onFileNameChanged()
{
    // Saved under a new name: the untitled (or old) copy is no longer needed.
    discard();
    claim();
}

void Autosave::onModifiedChanged(bool modified)
{
    if (modified) {
        if (!m_timer.isActive())
            m_timer.start();
        return;
    }
    m_timer.stop();
    discard();
}

} // namespace archipelago::app
