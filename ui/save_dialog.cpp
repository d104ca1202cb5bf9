#include "save_dialog.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QStyle>
#include <exception>

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

QString pathKeepingPublishedFigures(QWidget* parent, const QString& path, const Scenario& toWrite,
                                    const QString& keepAction) {
    if (!QFileInfo::exists(path)) return path;
    Scenario there;
    try {
        there = loadScenarioFile(path.toStdString());
    } catch (const std::exception&) {
        return path;  // not a scenario we can read: nothing published to lose
    }
    if (keepsExpectationsOf(toWrite, there)) return path;
    const QFileInfo info(path);
    // A name no file has yet: the box's default must not replace an earlier edited copy unasked.
    QString editedPath = info.dir().filePath(info.completeBaseName() + "-edited.json");
    for (int n = 2; QFileInfo::exists(editedPath); ++n)
        editedPath =
            info.dir().filePath(info.completeBaseName() + QString("-edited-%1.json").arg(n));
    // The question first, then what is at stake and the way out. Each button says what it does;
    // where the platform puts icons on a box's buttons, each has one (a red cross on Cancel alone
    // made it look the dangerous choice).
    const QString editedName = QFileInfo(editedPath).fileName();
    QMessageBox box(QMessageBox::Warning, QObject::tr("Save Scenario As"),
                    "<b>" + QObject::tr("Replace %1 and drop its published figures?")
                                .arg(info.fileName().toHtmlEscaped()) + "</b>",
                    QMessageBox::NoButton, parent);
    box.setTextFormat(Qt::RichText);
    box.setInformativeText(
        QObject::tr("%1 holds the published figures this scenario is checked against (its "
                    "expect block). They hold for the knobs and timeline they were written for, "
                    "so a save with others leaves them out for good.\n\nTo keep them, %2 as %3.")
            .arg(info.fileName(), keepAction, editedName));
    box.setObjectName("keepExpectationsBox");
    QPushButton* edited =
        box.addButton(QObject::tr("Save as %1").arg(editedName), QMessageBox::AcceptRole);
    edited->setObjectName("saveAsEdited");
    QPushButton* replace = box.addButton(QObject::tr("Replace, dropping the figures"),
                                         QMessageBox::DestructiveRole);
    replace->setObjectName("replaceDroppingExpectations");
    box.addButton(QMessageBox::Cancel);
    if (box.style()->styleHint(QStyle::SH_DialogButtonBox_ButtonsHaveIcons, nullptr, &box)) {
        edited->setIcon(box.style()->standardIcon(QStyle::SP_DialogSaveButton));
        replace->setIcon(box.style()->standardIcon(QStyle::SP_DialogDiscardButton));
    }
    box.setDefaultButton(edited);
    box.exec();
    if (box.clickedButton() == edited) return editedPath;
    if (box.clickedButton() == replace) return path;
    return {};
}

}  // namespace taillab::ui
