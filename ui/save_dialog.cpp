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
    QFileDialog dialog(parent, title, QDir(dir).filePath(suggestedName), filter);
    dialog.setAcceptMode(QFileDialog::AcceptSave);
    dialog.setFileMode(QFileDialog::AnyFile);
    dialog.setDefaultSuffix(QFileInfo(suggestedName).suffix());
    if (dialog.exec() != QDialog::Accepted || dialog.selectedFiles().isEmpty()) return {};
    const QString path = dialog.selectedFiles().constFirst();
    settings.setValue(kLastDirKey, QFileInfo(path).absolutePath());
    return path;
}

}  // namespace taillab::ui
