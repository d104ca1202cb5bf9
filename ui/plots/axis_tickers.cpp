#include "plots/axis_tickers.h"

#include <QFontMetrics>

#include <algorithm>
#include <cmath>

#include "plots/chart_style.h"

namespace taillab::ui {

namespace {
// m × 10^e for each multiplier, over the decades that cover `range` (and one more each side).
QVector<double> multiplesOver(const QCPRange& range, std::initializer_list<double> multipliers) {
    QVector<double> ticks;
    const int first = static_cast<int>(std::floor(std::log10(range.lower))) - 1;
    const int last = static_cast<int>(std::ceil(std::log10(range.upper))) + 1;
    for (int e = first; e <= last; ++e)
        for (double m : multipliers) ticks.push_back(m * std::pow(10.0, e));
    return ticks;
}
}  // namespace

QVector<double> NiceLogTicker::createTickVector(double tickStep, const QCPRange& range) {
    const double ratio = range.lower > 0 ? range.upper / range.lower : 1e6;
    int length = 300;
    if (axis_ && axis_->axisRect()) {
        const QRect r = axis_->axisRect()->rect();
        const int l = axis_->orientation() == Qt::Vertical ? r.height() : r.width();
        if (l > 0) length = l;
    }
    const double perDecade = length / std::max(std::log10(ratio), 1e-9);
    // How far apart two labels' positions must be for the labels not to touch.
    double room = 16;
    if (axis_) {
        const QFontMetrics metrics(axis_->tickLabelFont());
        if (axis_->orientation() == Qt::Vertical) {
            room = metrics.height() + 2;
        } else if (range.lower > 0) {
            int widest = 0;
            for (double t : multiplesOver(range, {1, 2, 3, 4, 5, 6, 7, 8, 9}))
                if (range.contains(t))
                    widest = std::max(widest, metrics.horizontalAdvance(chart_style::formatNumber(t)));
            room = widest + 10;
        }
    }
    const auto fits = [&](double closest) { return perDecade * std::log10(closest) >= room; };
    mode_ = ratio < kLinearRatio ? Mode::Linear
            : fits(10.0 / 9.0)   ? Mode::Digits
            : fits(2.0)          ? Mode::OneTwoFive
                                 : Mode::Decades;
    switch (mode_) {
        case Mode::Linear: return QCPAxisTicker::createTickVector(tickStep, range);
        case Mode::Decades: return QCPAxisTickerLog::createTickVector(tickStep, range);
        case Mode::OneTwoFive: return multiplesOver(range, {1, 2, 5});
        case Mode::Digits: return multiplesOver(range, {1, 2, 3, 4, 5, 6, 7, 8, 9});
    }
    return {};
}

int NiceLogTicker::getSubTickCount(double tickStep) {
    switch (mode_) {
        case Mode::Linear:
            return QCPAxisTicker::getSubTickCount(tickStep);
        case Mode::OneTwoFive:
        case Mode::Digits:
            return 0;  // createSubTickVector places them
        case Mode::Decades:
            break;
    }
    return QCPAxisTickerLog::getSubTickCount(tickStep);
}

QVector<double> NiceLogTicker::createSubTickVector(int subTickCount, const QVector<double>& ticks) {
    if (mode_ == Mode::OneTwoFive && !ticks.isEmpty()) {
        // The digits 1-2-5 leave out, as minor ticks.
        QVector<double> sub;
        for (double t : multiplesOver(QCPRange(ticks.front(), ticks.back()), {3, 4, 6, 7, 8, 9}))
            if (t > ticks.front() && t < ticks.back()) sub.push_back(t);
        return sub;
    }
    if (mode_ == Mode::Digits) return {};
    return QCPAxisTickerLog::createSubTickVector(subTickCount, ticks);
}

QString NiceLogTicker::getTickLabel(double tick, const QLocale&, QChar, int) {
    return chart_style::formatNumber(tick);
}

QString NinesTicker::getTickLabel(double tick, const QLocale&, QChar, int) {
    return percentLabel(plotToNines(tick));
}

void setAxisLog(QCPAxis* axis, bool log) {
    const bool isLog = axis->scaleType() == QCPAxis::stLogarithmic;
    if (log == isLog) return;
    axis->setScaleType(log ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    if (log) {
        auto ticker = QSharedPointer<NiceLogTicker>::create();
        ticker->setAxis(axis);
        axis->setTicker(ticker);
    } else {
        axis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    }
}

double ninesToPlot(double p) { return p < 1 ? 1.0 / (1.0 - p) : std::nan(""); }
double plotToNines(double x) { return x > 0 ? 1.0 - 1.0 / x : 0.0; }

QString percentLabel(double p) {
    double percent = p * 100.0;
    // Round away float noise (99.899999 -> 99.9) before printing with up to 6 decimals.
    percent = std::round(percent * 1e6) / 1e6;
    QString s = QString::number(percent, 'f', 6);
    while (s.endsWith('0')) s.chop(1);
    if (s.endsWith('.')) s.chop(1);
    return s + "%";
}

QString percentReadout(double p) {
    if (!std::isfinite(p)) return QString::number(p);
    if (p <= 0 || p >= 1) return percentLabel(std::clamp(p, 0.0, 1.0));
    const double nines = -std::log10(1 - p);
    const int decimals = std::clamp(static_cast<int>(std::floor(nines + 1e-9)) - 1, 1, 6);
    return QString::number(p * 100, 'f', decimals) + "%";
}

}  // namespace taillab::ui
