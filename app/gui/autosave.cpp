#include "autosave.h"

#include "document.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFileInfo>
#include <QSaveFile>
#include <QStandardPaths>

namespace archipelago::app {

Autosave::Autosave(Document* document, QObject* parent)
    : QObject(parent)
    , m_document(document)
    , m_path(pathFor(document->fileName()))
{
    m_timer.setInterval(kDefaultIntervalMs);
    connect(&m_timer, &QTimer::timeout, this, &Autosave::saveNow);
    connect(document, &Document::fileNameChanged, this, &Autosave::onFileNameChanged);
    connect(document, &Document::modifiedChanged, this, &Autosave::onModifiedChanged);
}

void Autosave::setInterval(int milliseconds)
{
    m_timer.setInterval(milliseconds);
}

QString Autosave::pathFor(const QString& fileName)
{
    const QString folder = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) +
                           QStringLiteral("/autosave");
    const QString key =
        fileName.isEmpty()
            ? QStringLiteral("untitled")
            : QString::fromLatin1(
                  QCryptographicHash::hash(QFileInfo(fileName).absoluteFilePath().toUtf8(),
                                           QCryptographicHash::Sha1)
                      .toHex()
                      .left(16));
    return folder + QLatin1Char('/') + key + QStringLiteral(".json");
}

QString Autosave::recoverablePath(const QString& fileName)
{
    const QFileInfo copy(pathFor(fileName));
    if (!copy.exists())
        return {};
    const QFileInfo original(fileName);
    if (!fileName.isEmpty() && original.exists() && copy.lastModified() <= original.lastModified())
        return {};
    return copy.filePath();
}

bool Autosave::saveNow()
{
    if (!m_document->isModified())
        return false;
    QDir().mkpath(QFileInfo(m_path).absolutePath());
    const std::string text = m_document->serialized();
    QSaveFile file(m_path);
    return file.open(QIODevice::WriteOnly) &&
           file.write(text.data(), static_cast<qint64>(text.size())) ==
               static_cast<qint64>(text.size()) &&
           file.commit();
}

void Autosave::discard()
{
    QFile::remove(m_path);
}

void Autosave::onFileNameChanged()
{
    // Saved under a new name: the untitled (or old) copy is no longer needed.
    discard();
    m_path = pathFor(m_document->fileName());
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
