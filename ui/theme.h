// The window's colour theme: the system's palette, or TailLab's own light or dark one. Applied to
// the whole application (QApplication::setPalette); every view derives its colours from the
// palette (palette_colors.h, plots/chart_style.h), so a change restyles what is on screen.
#pragma once

#include <QPalette>
#include <QString>
#include <optional>

namespace taillab::ui {

enum class Theme { System, Light, Dark };

QPalette lightPalette();
QPalette darkPalette();
// Sets the application palette for `theme`. The system palette is the one the application had
// before the first call.
void applyTheme(Theme theme);
Theme currentTheme();
// "system", "light", "dark" and back; nullopt for anything else.
QString themeName(Theme theme);
std::optional<Theme> parseTheme(const QString& name);

}  // namespace taillab::ui
