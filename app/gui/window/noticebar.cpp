#include "window/noticebar.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPalette>
#include <QToolButton>

namespace archipelago::app {

namespace {

// A light tint of `accent` over the window's base colour, readable in light and dark themes.
QColor tint(const QColor& base, const QColor& accent, double amount)
{
    return QColor::fromRgbF(
        static_cast<float>(base.redF() + (accent.redF() - base.redF()) * amount),
        static_cast<float>(base.greenF() + (accent.greenF() - base.greenF()) * amount),
        static_cast<float>(base.blueF() + (accent.blueF() - base.blueF()) * amount));
}

} // namespace

NoticeBar::NoticeBar(QWidget* parent)
    : QFrame(parent)
    , m_text(new QLabel(this))
    , m_close(new QToolButton(this))
{
    setObjectName(QStringLiteral("NoticeBar"));
    setFrameShape(QFrame::StyledPanel);
    setAutoFillBackground(true);
    m_text->setWordWrap(true);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_close->setText(QStringLiteral("✕"));
    m_close->setAutoRaise(true);
    m_close->setToolTip(tr("Close this message"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(10, 4, 4, 4);
    layout->addWidget(m_text, 1);
    layout->addWidget(m_close, 0, Qt::AlignTop);
    connect(m_close, &QToolButton::clicked, this, &NoticeBar::dismiss);
    hide();
}

void NoticeBar::showNotice(Kind kind, const QString& text)
{
    m_kind = kind;
    const QColor accent =
        kind == Kind::Refused ? QColor(0xd6, 0x27, 0x28) : QColor(0x1f, 0x77, 0xb4);
    QPalette pal = palette();
    pal.setColor(QPalette::Window, tint(pal.color(QPalette::Base), accent, 0.14));
    setPalette(pal);
    m_text->setText(text);
    show();
}

void NoticeBar::dismiss()
{
    hide();
}

QString NoticeBar::text() const
{
    return isHidden() ? QString() : m_text->text();
}

} // namespace archipelago::app
