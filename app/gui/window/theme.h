// The window's colour theme: System (follow the desktop's light or dark setting), Light or
// Dark, chosen in View > Theme or with --theme and kept in QSettings ("view/theme"). Qt 6.4 has
// no QStyleHints::colorScheme, so "the system is dark" is read once from the platform palette's
// window lightness and, on Linux, from GNOME's color-scheme setting and GTK_THEME. Dark applies
// the Fusion style with a dark QPalette; every view paints from the palette, so nothing else
// changes (the topology scene follows its view's PaletteChange).
#pragma once

#include <QPalette>
#include <QString>

#include <optional>

class QMenu;

namespace archipelago::app {

enum class Theme
{
    System,
    Light,
    Dark
};

QString themeName(Theme theme); // "system", "light", "dark"
std::optional<Theme> themeFromName(const QString& name);

// Whether the desktop asks for dark windows (computed once, then cached; never blocks for more
// than a fraction of a second).
bool systemPrefersDark();
// The dark palette applied by Theme::Dark (and by System on a dark desktop).
QPalette darkPalette();

// Applies `theme` to the application (call after the QApplication exists; the first call
// records the platform's own style and palette so that System can return to them).
void applyTheme(Theme theme);
Theme currentTheme();
// The theme saved in QSettings (System when none or unknown), and saving one.
Theme savedTheme();
void saveTheme(Theme theme);

// Adds View > Theme (System, Light, Dark; checkable) to `menu`: choosing one applies and saves it.
QMenu* addThemeMenu(QMenu* menu);

} // namespace archipelago::app
