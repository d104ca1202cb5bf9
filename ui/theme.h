// The window's colour theme: the system's palette, or TailLab's own light or dark one. Applied to
// the whole application (QApplication::setPalette); every view derives its colours from the
// palette (palette_colors.h, plots/chart_style.h), so a change restyles what is on screen:
// Qt hands the new palette down to every widget with a PaletteChange, on which a chart restyles
// (ChartView::changeEvent), and tables resolve their pass / fail colours when they draw
// (table_widgets.h). No widget may carry a style sheet: one stops that hand-down for the widget
// and everything inside it (a chart pane's border did, and its charts kept the old theme).
#pragma once

#include <QPalette>
#include <QStyle>
#include <QString>
#include <optional>

class QAbstractButton;

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

// Gives `button` the style's standard icon `icon` drawn in the palette's button text colour, and
// keeps it so when the palette changes (a theme switch). Fusion's media icons (play, pause, stop)
// are black whatever the palette: on a dark theme they all but vanish.
void setPaletteIcon(QAbstractButton* button, QStyle::StandardPixmap icon);

}  // namespace taillab::ui
