// The save dialog every export opens: it starts in the directory the last export went to (any
// view's; remembered in QSettings) with a suggested file name, and remembers where this one went.
#pragma once

#include <QString>

class QWidget;

namespace taillab::ui {

// The path picked, or an empty string when the user cancelled. A name typed without an
// extension gets the suggested name's (the dialog's default suffix, so that its overwrite
// question asks about the file that will be written).
QString askExportPath(QWidget* parent, const QString& title, const QString& suggestedName,
                      const QString& filter = QString());

}  // namespace taillab::ui
