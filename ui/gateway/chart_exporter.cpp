#include "gateway/chart_exporter.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QSettings>
#include <QStyle>
#include <QToolButton>
#include <cstring>

#include "chart_data_export.h"
#include "plots/chart_view.h"
#include "save_dialog.h"

namespace taillab::ui {
namespace {

constexpr ExportFormat kChartFormats[] = {ExportFormat::Png, ExportFormat::Svg, ExportFormat::Pdf,
                                          ExportFormat::Csv, ExportFormat::Json};

const char* extension(ExportFormat f) {
    switch (f) {
        case ExportFormat::Png: return "png";
        case ExportFormat::Svg: return "svg";
        case ExportFormat::Pdf: return "pdf";
        case ExportFormat::Csv: return "csv";
        case ExportFormat::Json:
        case ExportFormat::ResultJson: return "json";
    }
    return "";
}

QString formatText(ExportFormat f) {
    switch (f) {
        case ExportFormat::Png: return QObject::tr("Export Chart as PNG…");
        case ExportFormat::Svg: return QObject::tr("Export Chart as SVG…");
        case ExportFormat::Pdf: return QObject::tr("Export Chart as PDF…");
        case ExportFormat::Csv: return QObject::tr("Export Chart Data as CSV…");
        default: return QObject::tr("Export Chart Data as JSON…");
    }
}

// "gateway_latency_percentiles" -> "latency_percentiles": the prefix names the view already.
QString shortId(const std::string& id) {
    QString s = QString::fromStdString(id);
    for (const char* p : {"live_", "gateway_"})
        if (s.startsWith(p)) s.remove(0, static_cast<int>(std::strlen(p)));
    return s;
}

}  // namespace

ChartExporter::ChartExporter(QWidget* owner, std::function<Context(const std::string& id)> context)
    : QObject(owner), owner_(owner), context_(std::move(context)) {}

void ChartExporter::add(const std::string& id, ChartView* view) {
    views_[id] = view;
    if (first_.empty()) first_ = id;
    view->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(view, &ChartView::activated, this, [this, id] { setCurrent(id); });
    connect(view, &QWidget::customContextMenuRequested, this, [this, id, view](const QPoint& p) {
        setCurrent(id);
        QMenu menu(view);
        for (ExportFormat f : kChartFormats)
            menu.addAction(formatText(f), this, [this, id, f] { exportWithDialog(id, f); });
        menu.addSeparator();
        menu.addAction(tr("Reset Zoom"), view, &ChartView::resetView);
        menu.exec(view->mapToGlobal(p));
    });
}

QToolButton* ChartExporter::makeButton(QWidget* parent, const QString& objectName) {
    button_ = new QToolButton(parent);
    button_->setObjectName(objectName);
    button_->setText(tr("Export chart"));
    button_->setIcon(parent->style()->standardIcon(QStyle::SP_DialogSaveButton));
    button_->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    button_->setPopupMode(QToolButton::InstantPopup);
    button_->setToolTip(tr("Export the chart last clicked (or right-click any chart)"));
    auto* menu = new QMenu(button_);
    for (ExportFormat f : kChartFormats)
        menu->addAction(formatText(f), this, [this, f] { exportWithDialog(current_.empty() ? first_ : current_, f); });
    button_->setMenu(menu);
    return button_;
}

ChartView* ChartExporter::view(const std::string& id) const {
    const auto it = views_.find(id);
    return it == views_.end() ? nullptr : it->second;
}

void ChartExporter::resetViews() {
    for (const auto& [id, view] : views_) view->resetView();
}

void ChartExporter::setCurrent(const std::string& id) {
    ChartView* v = view(id);
    if (!v) return;
    current_ = id;
    if (!button_) return;
    const QString title = QString::fromStdString(v->chart().title);
    button_->setToolTip(tr("Export the chart last clicked: %1\n(or right-click any chart)")
                            .arg(title.isEmpty() ? QString::fromStdString(id) : title));
}

namespace {

ExportCaption captionOf(const ChartExporter::Context& c) {
    return c.caption ? *c.caption
                     : exportCaption(c.scenario, c.seed, c.params, c.reference, TAILLAB_VERSION, c.specs);
}

}  // namespace

QString ChartExporter::caption() const { return captionOf(context_({})).text(); }

std::optional<ExportTarget> ChartExporter::target(const std::string& id) const {
    const std::string& which = !id.empty() ? id : !current_.empty() ? current_ : first_;
    ChartView* v = view(which);
    if (!v) return std::nullopt;
    const Context c = context_(which);
    ExportTarget t;
    t.view = v;
    t.chart = &v->chart();
    t.columns = c.columns;
    t.json = [c, v] {
        LabResult context;
        context.lab = "gateway";
        context.scenario = c.scenario;
        context.seed = c.seed;
        context.parameters = c.params;
        nlohmann::ordered_json j = chartToJson(v->chart(), &context, v->annotations(), c.columns);
        if (c.extra) c.extra(j);
        return j;
    };
    t.caption = captionOf(c);
    t.name = c.file_prefix + "-" + shortId(which);
    return t;
}

bool ChartExporter::exportChart(const std::string& id, ExportFormat format, const QString& path,
                                QString* error) const {
    auto fail = [&](const QString& why) {
        if (error) *error = why;
        return false;
    };
    if (!view(id)) return fail(tr("There is no chart '%1'.").arg(QString::fromStdString(id)));
    const std::optional<ExportTarget> t = target(id);
    const bool ok = t && saveChart(*t->view, *t->chart, format, path, t->json, t->caption, t->columns);
    return ok ? true : fail(tr("Cannot write %1").arg(path));
}

void ChartExporter::exportWithDialog(const std::string& id, ExportFormat format) {
    const QString name = QString("%1-%2.%3").arg(context_(id).file_prefix, shortId(id), extension(format));
    const QString path = askExportPath(owner_, formatText(format).remove("…"), name);
    if (path.isEmpty()) return;
    QString error;
    if (!exportChart(id, format, path, &error)) QMessageBox::warning(owner_, tr("Export failed"), error);
}

}  // namespace taillab::ui
