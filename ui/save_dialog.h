// The save dialog every export opens: it starts in the directory the last export went to (any
// view's; remembered in QSettings) with a suggested file name, and remembers where this one went.
#pragma once

#include <QString>

#include "scenario/scenario.h"

class QWidget;

namespace taillab::ui {

// The path picked, or an empty string when the user cancelled. A name typed without an
// extension gets the suggested name's (the dialog's default suffix, so that its overwrite
// question asks about the file that will be written).
QString askExportPath(QWidget* parent, const QString& title, const QString& suggestedName,
                      const QString& filter = QString());

// The path to write `toWrite` to, for a save the user aimed at `path`: `path` itself, unless the
// file there holds published figures (an `expect` block) that writing `toWrite` would lose (other
// knobs or another timeline than they were written for; keepsExpectationsOf). Then it asks, and
// offers a free "-edited" name beside it; `keepAction` says what that choice does ("save the
// edited knobs", "save the run"). Empty: the user cancelled.
QString pathKeepingPublishedFigures(QWidget* parent, const QString& path, const Scenario& toWrite,
                                    const QString& keepAction);

}  // namespace taillab::ui
