#include "save_dialog.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QSettings>

namespace taillab::ui {

namespace {
constexpr const char* kLastDirKey = "export/lastDirectory";
}

QString askExportPath(QWidget* parent, const QString& title, const QString& suggestedName,
                      const QString& filter) {
    QSettings settings;
    const QString dir = settings.value(kLastDirKey, QDir::homePath()).toString();
    const QString path = QFileDialog::getSaveFileName(parent, title, QDir(dir).filePath(suggestedName), filter);
    if (!path.isEmpty()) settings.setValue(kLastDirKey, QFileInfo(path).absolutePath());
    return path;
}

}  // namespace taillab::ui
