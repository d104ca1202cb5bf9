#include "chart_sheet.h"

#include <QFontMetrics>
#include <QImage>
#include <QPageSize>
#include <QPdfWriter>
#include <QtSvg/QSvgGenerator>
#include <qcustomplot.h>

#include <system_error>

#include "io/atomic_file.h"
#include "plots/chart_style.h"
#include "plots/chart_view.h"

namespace taillab::ui {
namespace {

constexpr int kMargin = 16;

int columnsOf(const ChartSheet& sheet) { return std::max(1, sheet.columns); }

QFont headerFont(int points, bool bold) {
    QFont f;
    f.setPointSize(points);
    f.setBold(bold);
    return f;
}

int headerHeight(const ChartSheet& sheet) {
    const int title = QFontMetrics(headerFont(14, true)).height();
    const int line = QFontMetrics(headerFont(9, false)).height() + 4;
    const int caption = sheet.caption.isEmpty() ? 0 : line;
    const int notes = static_cast<int>(sheet.notes.size()) * line;
    return kMargin + title + caption + notes + kMargin / 2 + (sheet.banner ? sheet.bannerHeight : 0);
}

// Header, then the charts in rows of two, on a background of the first chart's palette.
void paintSheet(QCPPainter& painter, const ChartSheet& sheet) {
    const QSize size = sheetSize(sheet);
    const chart_style::PlotColors colors = chart_style::plotColors(sheet.views.front()->palette());
    painter.fillRect(QRect(QPoint(0, 0), size), colors.background);
    painter.setPen(colors.text);
    painter.setFont(headerFont(14, true));
    const int width = size.width() - 2 * kMargin;
    QFontMetrics titleMetrics(painter.font());
    painter.drawText(QRect(kMargin, kMargin, width, titleMetrics.height()), Qt::AlignLeft,
                     titleMetrics.elidedText(sheet.title, Qt::ElideRight, width));
    if (!sheet.caption.isEmpty()) {
        painter.setFont(headerFont(9, false));
        painter.setPen(colors.axis);
        QFontMetrics m(painter.font());
        painter.drawText(QRect(kMargin, kMargin + titleMetrics.height() + 4, width, m.height()),
                         Qt::AlignLeft, sheet.caption.fitted(m, width));
    }
    painter.setFont(headerFont(9, false));
    painter.setPen(colors.text);
    const QFontMetrics noteMetrics(painter.font());
    int y = kMargin + titleMetrics.height() + 4 + (sheet.caption.isEmpty() ? 0 : noteMetrics.height() + 4);
    for (const QString& note : sheet.notes) {
        painter.drawText(QRect(kMargin, y, width, noteMetrics.height()), Qt::AlignLeft,
                         noteMetrics.elidedText(note, Qt::ElideRight, width));
        y += noteMetrics.height() + 4;
    }
    if (sheet.banner) {
        painter.save();
        painter.translate(0, headerHeight(sheet) - sheet.bannerHeight);
        sheet.banner->renderTo(painter, QSize(size.width(), sheet.bannerHeight));
        painter.restore();
    }
    const int top = headerHeight(sheet);
    const int columns = columnsOf(sheet);
    for (std::size_t i = 0; i < sheet.views.size(); ++i) {
        const int column = static_cast<int>(i) % columns;
        const int row = static_cast<int>(i) / columns;
        painter.save();
        painter.translate(column * sheet.cell.width(), top + row * sheet.cell.height());
        sheet.views[i]->renderTo(painter, sheet.cell);
        painter.restore();
    }
}

// The sheet on a vector device (PDF, SVG): no pixmap caching, so the charts stay vectors.
bool paintVectors(QPaintDevice& device, const ChartSheet& sheet) {
    QCPPainter painter;
    if (!painter.begin(&device)) return false;
    painter.setMode(QCPPainter::pmVectorized);
    painter.setMode(QCPPainter::pmNoCaching);
    paintSheet(painter, sheet);
    return painter.end();
}

}  // namespace

QSize sheetSize(const ChartSheet& sheet) {
    const int n = static_cast<int>(sheet.views.size());
    const int columns = std::min(n, columnsOf(sheet));
    const int rows = (n + columnsOf(sheet) - 1) / columnsOf(sheet);
    return {std::max(columns, 1) * sheet.cell.width(),
            headerHeight(sheet) + rows * sheet.cell.height()};
}

SheetFormat sheetFormatOf(const QString& path) {
    if (path.endsWith(".pdf", Qt::CaseInsensitive)) return SheetFormat::Pdf;
    if (path.endsWith(".svg", Qt::CaseInsensitive)) return SheetFormat::Svg;
    return SheetFormat::Png;
}

bool saveChartSheet(const ChartSheet& sheet, const QString& path, QString* error) {
    return saveChartSheet(sheet, path, sheetFormatOf(path), error);
}

bool saveChartSheet(const ChartSheet& sheet, const QString& path, SheetFormat format,
                    QString* error) {
    auto fail = [&](const QString& why) {
        if (error) *error = why;
        return false;
    };
    if (sheet.views.empty()) return fail(QObject::tr("There is no chart to export."));
    const bool pdf = format == SheetFormat::Pdf;
    const bool svg = format == SheetFormat::Svg;
    const QSize size = sheetSize(sheet);
    try {
        writeFileAtomicallyWith(path.toStdString(), [&](const std::string& temporary) {
            const QString file = QString::fromStdString(temporary);
            if (pdf) {
                // One page the size of the sheet, 1 pt to a logical pixel: vector charts.
                QPdfWriter writer(file);
                writer.setResolution(72);
                writer.setPageSize(QPageSize(QSizeF(size), QPageSize::Point, QString(),
                                             QPageSize::ExactMatch));
                writer.setPageMargins(QMarginsF(0, 0, 0, 0));
                writer.setTitle(sheet.title);
                writer.setCreator("TailLab");
                return paintVectors(writer, sheet);
            }
            if (svg) {
                QSvgGenerator generator;
                generator.setFileName(file);
                generator.setSize(size);
                generator.setViewBox(QRect(QPoint(0, 0), size));
                generator.setTitle(sheet.title);
                generator.setDescription(sheet.caption.text());
                return paintVectors(generator, sheet);
            }
            QImage image(size * 2, QImage::Format_ARGB32_Premultiplied);
            image.setDevicePixelRatio(2.0);
            QCPPainter painter;
            if (!painter.begin(&image)) return false;
            painter.setRenderHint(QPainter::Antialiasing);
            paintSheet(painter, sheet);
            painter.end();
            return image.save(file, "PNG");
        });
    } catch (const std::system_error& e) {
        return fail(QObject::tr("Could not write %1: %2").arg(path, QString::fromLocal8Bit(e.what())));
    }
    return true;
}

}  // namespace taillab::ui
