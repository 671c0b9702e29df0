#include "window/theme.h"

#include <QActionGroup>
#include <QApplication>
#include <QMenu>
#include <QProcess>
#include <QSettings>
#include <QStandardPaths>
#include <QStyle>
#include <QStyleFactory>

namespace archipelago::app {

namespace {

const QString kSettingsKey = QStringLiteral("view/theme");
constexpr int kGsettingsTimeoutMs = 300;

struct PlatformLook
{
    bool recorded = false;
    QString styleName;
    QPalette palette;
};

PlatformLook& platformLook()
{
    static PlatformLook look;
    return look;
}

Theme& appliedTheme()
{
    static Theme theme = Theme::System;
    return theme;
}

void recordPlatformLook()
{
    PlatformLook& look = platformLook();
    if (look.recorded || !qApp)
        return;
    look.recorded = true;
    look.styleName = QApplication::style() ? QApplication::style()->name() : QString();
    look.palette = QApplication::palette();
}

// GNOME 42+: org.gnome.desktop.interface color-scheme is 'prefer-dark' on a dark desktop.
bool gnomePrefersDark()
{
#if defined(Q_OS_LINUX)
    const QString gsettings = QStandardPaths::findExecutable(QStringLiteral("gsettings"));
    if (gsettings.isEmpty())
        return false;
    QProcess process;
    process.start(gsettings, {QStringLiteral("get"), QStringLiteral("org.gnome.desktop.interface"),
                              QStringLiteral("color-scheme")});
    if (!process.waitForFinished(kGsettingsTimeoutMs)) {
        process.kill();
        process.waitForFinished(kGsettingsTimeoutMs);
        return false;
    }
    return QString::fromUtf8(process.readAllStandardOutput()).contains(QStringLiteral("dark"));
#else
    return false;
#endif
}

} // namespace

QString themeName(Theme theme)
{
    switch (theme) {
    case Theme::Light:
        return QStringLiteral("light");
    case Theme::Dark:
        return QStringLiteral("dark");
    case Theme::System:
        break;
    }
    return QStringLiteral("system");
}

std::optional<Theme> themeFromName(const QString& name)
{
    for (const Theme theme : {Theme::System, Theme::Light, Theme::Dark})
        if (name.compare(themeName(theme), Qt::CaseInsensitive) == 0)
            return theme;
    return std::nullopt;
}

bool systemPrefersDark()
{
    static const bool dark = [] {
        recordPlatformLook();
        // A platform theme that already paints dark windows (KDE, macOS, Windows).
        if (platformLook().recorded &&
            platformLook().palette.color(QPalette::Window).lightnessF() < 0.5)
            return true;
        if (qEnvironmentVariable("GTK_THEME")
                .endsWith(QStringLiteral(":dark"), Qt::CaseInsensitive))
            return true;
        return gnomePrefersDark();
    }();
    return dark;
}

QPalette darkPalette()
{
    // Fusion's dark palette as Qt's own dark themes set it: greys for surfaces, a blue highlight,
    // disabled text dimmed, links readable on the dark base.
    const QColor window(0x2b, 0x2d, 0x30);
    const QColor base(0x1e, 0x1f, 0x22);
    const QColor alternate(0x26, 0x28, 0x2b);
    const QColor text(0xdf, 0xe1, 0xe5);
    const QColor disabled(0x7f, 0x84, 0x8b);
    const QColor highlight(0x3d, 0x8e, 0xe6);
    QPalette p;
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, alternate);
    p.setColor(QPalette::ToolTipBase, QColor(0x3c, 0x3f, 0x41));
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, QColor(0x9a, 0xa0, 0xa6));
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, window);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, QColor(0xff, 0x6b, 0x6b));
    p.setColor(QPalette::Light, QColor(0x45, 0x48, 0x4c));
    p.setColor(QPalette::Midlight, QColor(0x38, 0x3a, 0x3e));
    p.setColor(QPalette::Mid, QColor(0x24, 0x25, 0x28));
    p.setColor(QPalette::Dark, QColor(0x18, 0x19, 0x1b));
    p.setColor(QPalette::Shadow, QColor(0x0c, 0x0c, 0x0d));
    p.setColor(QPalette::Highlight, highlight);
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, QColor(0x6c, 0xb6, 0xff));
    p.setColor(QPalette::LinkVisited, QColor(0xb3, 0x92, 0xf0));
    for (const QPalette::ColorRole role :
         {QPalette::WindowText, QPalette::Text, QPalette::ButtonText, QPalette::HighlightedText})
        p.setColor(QPalette::Disabled, role, disabled);
    p.setColor(QPalette::Disabled, QPalette::Highlight, QColor(0x4a, 0x4d, 0x52));
    p.setColor(QPalette::Disabled, QPalette::Base, window);
    return p;
}

void applyTheme(Theme theme)
{
    recordPlatformLook();
    appliedTheme() = theme;
    const bool dark = theme == Theme::Dark || (theme == Theme::System && systemPrefersDark());
    const PlatformLook& look = platformLook();
    if (theme == Theme::System && !dark) {
        // Back to what the platform gave us.
        if (!look.styleName.isEmpty() && QApplication::style()->name() != look.styleName)
            QApplication::setStyle(QStyleFactory::create(look.styleName));
        QApplication::setPalette(look.palette);
        return;
    }
    if (QApplication::style()->name().compare(QStringLiteral("fusion"), Qt::CaseInsensitive) != 0)
        QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    QApplication::setPalette(dark ? darkPalette() : QApplication::style()->standardPalette());
}

Theme currentTheme()
{
    return appliedTheme();
}

Theme savedTheme()
{
    return themeFromName(QSettings().value(kSettingsKey).toString()).value_or(Theme::System);
}

void saveTheme(Theme theme)
{
    QSettings().setValue(kSettingsKey, themeName(theme));
}

QMenu* addThemeMenu(QMenu* menu)
{
    QMenu* themes = menu->addMenu(QApplication::translate("Theme", "&Theme"));
    auto* group = new QActionGroup(themes);
    const struct
    {
        Theme theme;
        const char* text;
        const char* tip;
    } choices[] = {
        {Theme::System, QT_TRANSLATE_NOOP("Theme", "&System"),
         QT_TRANSLATE_NOOP("Theme", "Follow the desktop's light or dark setting")},
        {Theme::Light, QT_TRANSLATE_NOOP("Theme", "&Light"),
         QT_TRANSLATE_NOOP("Theme", "Light windows whatever the desktop")},
        {Theme::Dark, QT_TRANSLATE_NOOP("Theme", "&Dark"),
         QT_TRANSLATE_NOOP("Theme", "Dark windows whatever the desktop")},
    };
    for (const auto& choice : choices) {
        QAction* action = themes->addAction(QApplication::translate("Theme", choice.text));
        action->setObjectName(QStringLiteral("theme-") + themeName(choice.theme));
        action->setStatusTip(QApplication::translate("Theme", choice.tip));
        action->setCheckable(true);
        action->setChecked(choice.theme == currentTheme());
        group->addAction(action);
        const Theme theme = choice.theme;
        QObject::connect(action, &QAction::triggered, themes, [theme] {
            saveTheme(theme);
            applyTheme(theme);
        });
    }
    // Another window (or --theme) may have changed it since the menu was built.
    QObject::connect(themes, &QMenu::aboutToShow, themes, [group] {
        for (QAction* action : group->actions())
            action->setChecked(action->objectName() ==
                               QStringLiteral("theme-") + themeName(currentTheme()));
    });
    return themes;
}

} // namespace archipelago::app
