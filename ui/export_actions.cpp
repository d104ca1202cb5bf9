#include "export_actions.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QSettings>
#include <QStyle>

#include "chart_area.h"
#include "chart_data_export.h"
#include "plots/chart_view.h"
#include "save_dialog.h"

namespace taillab::ui {
namespace {


struct FormatInfo {
    const char* text;
    const char* extension;
    const char* filter;
    QKeySequence shortcut;
    QStyle::StandardPixmap icon;
};

FormatInfo info(ExportFormat f) {
    switch (f) {
        case ExportFormat::Png:
            return {"Export Chart as &PNG…", "png", "PNG image (*.png)",
                    QKeySequence(Qt::CTRL | Qt::Key_E), QStyle::SP_DialogSaveButton};
        case ExportFormat::Svg:
            return {"Export Chart as &SVG…", "svg", "SVG vector image (*.svg)",
                    QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E), QStyle::SP_FileIcon};
        case ExportFormat::Pdf:
            return {"Export Chart as P&DF…", "pdf", "PDF document (*.pdf)",
                    QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_E),
                    QStyle::SP_FileDialogDetailedView};
        case ExportFormat::Csv:
            return {"Export Chart Data as &CSV…", "csv", "CSV (*.csv)",
                    QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C), QStyle::SP_FileDialogListView};
        case ExportFormat::Json:
            return {"Export Chart Data as &JSON…", "json", "JSON (*.json)",
                    QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_J),
                    QStyle::SP_FileDialogContentsView};
        case ExportFormat::ResultJson:
            return {"Export Whole &Result as JSON…", "json", "JSON (*.json)",
                    QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_J), QStyle::SP_DriveFDIcon};
    }
    return {"", "", "", QKeySequence(), QStyle::SP_FileIcon};
}

}  // namespace

ExportActions::ExportActions(ChartArea* charts, std::function<LabResultPtr()> latest,
                             QWidget* window)
    : QObject(window), charts_(charts), latest_(std::move(latest)), window_(window) {
    for (ExportFormat f : {ExportFormat::Png, ExportFormat::Svg, ExportFormat::Pdf,
                           ExportFormat::Csv, ExportFormat::Json, ExportFormat::ResultJson}) {
        const FormatInfo i = info(f);
        auto* a = new QAction(window->style()->standardIcon(i.icon), tr(i.text), this);
        a->setShortcut(i.shortcut);
        a->setIconText(f == ExportFormat::ResultJson ? tr("Result")
                                                     : QString(i.extension).toUpper());
        a->setToolTip(QString(tr(i.text)).remove('&').remove("…") + " (" +
                      i.shortcut.toString(QKeySequence::NativeText) + ")");
        connect(a, &QAction::triggered, this, [this, f] { exportWithDialog(f); });
        actions_[static_cast<int>(f)] = a;
    }
    sheetPng_ = new QAction(tr("Export Whole View as P&NG…"), this);
    sheetPng_->setToolTip(tr("Every chart of the lab or of the gateway view on one PNG"));
    connect(sheetPng_, &QAction::triggered, this, [this] { exportSheetWithDialog(SheetFormat::Png); });
    sheetPdf_ = new QAction(tr("Export Whole View as PD&F…"), this);
    sheetPdf_->setShortcut(QKeySequence(Qt::CTRL | Qt::ALT | Qt::SHIFT | Qt::Key_E));
    sheetPdf_->setToolTip(tr("Every chart of the lab or of the gateway view on one PDF page"));
    connect(sheetPdf_, &QAction::triggered, this, [this] { exportSheetWithDialog(SheetFormat::Pdf); });
    updateEnabled();
}

bool ExportActions::exportSheet(const QString& path, SheetFormat format, QString* error) const {
    std::vector<std::unique_ptr<ChartView>> owned;
    const ChartSheet sheet = sheet_ ? sheet_(owned) : ChartSheet{};
    return saveChartSheet(sheet, path, format, error);
}

bool ExportActions::exportSheet(const QString& path, QString* error) const {
    return exportSheet(path, sheetFormatOf(path), error);
}

QString ExportActions::suggestedSheetName(const QString& extension) const {
    QString base = QStringLiteral("taillab");
    if (const std::optional<ExportTarget> t = target())
        base = t->name.section('-', 0, -2).isEmpty() ? t->name : t->name.section('-', 0, -2);
    return base + "-view." + extension;
}

void ExportActions::exportSheetWithDialog(SheetFormat format) {
    // The format chosen is the one written, whatever name was typed (a name without an
    // extension gets the format's: askExportPath).
    const bool pdf = format == SheetFormat::Pdf;
    const QString path = askExportPath(
        window_, pdf ? tr("Export Whole View as PDF") : tr("Export Whole View as PNG"),
        suggestedSheetName(pdf ? "pdf" : "png"),
        pdf ? tr("PDF document (*.pdf)") : tr("PNG image (*.png)"));
    if (path.isEmpty()) return;
    QString error;
    if (!exportSheet(path, format, &error)) QMessageBox::warning(window_, tr("Export failed"), error);
}

QAction* ExportActions::action(ExportFormat format) const {
    return actions_[static_cast<int>(format)];
}

QList<QAction*> ExportActions::chartActions() const {
    return {actions_[0], actions_[1], actions_[2], actions_[3], actions_[4]};
}

std::optional<ExportTarget> ExportActions::target() const {
    if (route_)
        if (std::optional<ExportTarget> routed = route_()) return routed;
    // The labs' chart, while there is a result to take it from (none while another tab shows).
    const LabResultPtr result = latest_();
    ChartView* view = charts_->currentView();
    if (!result || !view || !charts_->currentChart()) return std::nullopt;
    const Chart* chart = &view->chart();  // as drawn: with any overlays
    ExportTarget t;
    t.view = view;
    t.chart = chart;
    t.json = [chart, result, view] { return chartToJson(*chart, result.get(), view->annotations()); };
    t.caption = caption_ ? caption_() : ExportCaption{};
    t.name = (result ? QString::fromStdString(result->scenario.empty() ? result->lab : result->scenario)
                     : QString("taillab")) +
             "-" + QString::fromStdString(chart->id);
    return t;
}

void ExportActions::updateEnabled() {
    const bool chart = target().has_value();
    for (QAction* a : chartActions()) a->setEnabled(chart);
    sheetPng_->setEnabled(chart);
    sheetPdf_->setEnabled(chart);
    action(ExportFormat::ResultJson)->setEnabled(latest_() != nullptr);
}

QString ExportActions::suggestedName(ExportFormat format) const {
    const LabResultPtr r = latest_();
    QString base =
        r ? QString::fromStdString(r->scenario.empty() ? r->lab : r->scenario) : QString("taillab");
    if (format != ExportFormat::ResultJson) {
        if (const std::optional<ExportTarget> t = target()) base = t->name;
    } else {
        base += "-result";
    }
    return base + "." + info(format).extension;
}

bool ExportActions::exportTo(ExportFormat format, const QString& path, QString* error) const {
    auto fail = [&](const QString& why) {
        if (error) *error = why;
        return false;
    };
    const LabResultPtr result = latest_();
    if (format == ExportFormat::ResultJson) {
        if (!result) return fail(tr("There is no result to export yet."));
        return writeTextFile(path.toStdString(), toJson(*result).dump(2) + "\n")
                   ? true
                   : fail(tr("Cannot write %1").arg(path));
    }
    const std::optional<ExportTarget> t = target();
    if (!t) return fail(tr("There is no chart to export."));
    const bool ok = saveChart(*t->view, *t->chart, format, path, t->json, t->caption, t->columns);
    return ok ? true : fail(tr("Cannot write %1").arg(path));
}

bool saveChart(ChartView& view, const Chart& chart, ExportFormat format, const QString& path,
               const std::function<nlohmann::ordered_json()>& json, const ExportCaption& caption,
               const std::vector<PointColumn>& columns) {
    view.setExportCaption(caption);
    switch (format) {
        case ExportFormat::Png: return view.savePng(path);
        case ExportFormat::Svg: return view.saveSvg(path);
        case ExportFormat::Pdf: return view.savePdf(path);
        case ExportFormat::Csv:
            return writeTextFile(path.toStdString(),
                                 chartToCsv(chart, view.annotations(), caption.text().toStdString(),
                                            /*chartColumn=*/false, columns));
        case ExportFormat::Json:
        case ExportFormat::ResultJson: return writeTextFile(path.toStdString(), json().dump(2) + "\n");
    }
    return false;
}

void ExportActions::exportWithDialog(ExportFormat format) {
    const FormatInfo i = info(format);
    const QString path =
        askExportPath(window_, QString(tr(i.text)).remove('&').remove("…"), suggestedName(format), tr(i.filter));
    if (path.isEmpty()) return;
    QString error;
    if (!exportTo(format, path, &error)) QMessageBox::warning(window_, tr("Export failed"), error);
}

}  // namespace taillab::ui
