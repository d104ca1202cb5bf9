// Shared by the tests that switch the application's theme.
#pragma once

#include <QColor>
#include <cstdlib>

#include "theme.h"

namespace taillab::ui::test {

// Puts the application back on the system palette however the test ends.
struct SystemThemeAfter {
    ~SystemThemeAfter() { applyTheme(Theme::System); }
};

// Two colours the same within `tolerance` per channel (antialiasing, blending).
inline bool near(const QColor& a, const QColor& b, int tolerance = 6) {
    return std::abs(a.red() - b.red()) <= tolerance && std::abs(a.green() - b.green()) <= tolerance &&
           std::abs(a.blue() - b.blue()) <= tolerance;
}

}  // namespace taillab::ui::test
