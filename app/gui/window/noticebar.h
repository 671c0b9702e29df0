// A message strip over the central views (after KDE's KMessageWidget): what an edit refused or
// adjusted beyond itself ("Set PP to 12: placement re-made with data parallelism across
// datacenters ..."), said where the user is looking instead of only in the status bar. It stays
// until the user closes it or the document changes again; a refusal is drawn as an error, an
// adjustment as information.
#pragma once

#include <QFrame>

class QLabel;
class QToolButton;

namespace archipelago::app {

class NoticeBar : public QFrame
{
    Q_OBJECT

public:
    enum class Kind
    {
        Refused,
        Adjusted
    };

    explicit NoticeBar(QWidget* parent = nullptr);

    void showNotice(Kind kind, const QString& text);
    // Hidden, e.g. on the next change of the document.
    void dismiss();

    // For tests and tools.
    QString text() const;
    Kind kind() const { return m_kind; }

private:
    QLabel* m_text;
    QToolButton* m_close;
    Kind m_kind = Kind::Adjusted;
};

} // namespace archipelago::app
