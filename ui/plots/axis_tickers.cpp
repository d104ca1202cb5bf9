#include "plots/axis_tickers.h"

#include <algorithm>
#include <cmath>

#include "plots/chart_style.h"

namespace taillab::ui {

QVector<double> NiceLogTicker::createTickVector(double tickStep, const QCPRange& range) {
    const double ratio = range.lower > 0 ? range.upper / range.lower : kDenseRatio;
    mode_ = ratio < kLinearRatio  ? Mode::Linear
            : ratio < kDenseRatio ? Mode::OneTwoFive
                                  : Mode::Decades;
    if (mode_ == Mode::Linear) return QCPAxisTicker::createTickVector(tickStep, range);
    if (mode_ == Mode::Decades) return QCPAxisTickerLog::createTickVector(tickStep, range);
    QVector<double> ticks;
    const int first = static_cast<int>(std::floor(std::log10(range.lower))) - 1;
    const int last = static_cast<int>(std::ceil(std::log10(range.upper))) + 1;
    for (int e = first; e <= last; ++e)
        for (double m : {1.0, 2.0, 5.0}) ticks.push_back(m * std::pow(10.0, e));
    return ticks;
}

int NiceLogTicker::getSubTickCount(double tickStep) {
    switch (mode_) {
        case Mode::Linear:
            return QCPAxisTicker::getSubTickCount(tickStep);
        case Mode::OneTwoFive:
            return 0;
        case Mode::Decades:
            break;
    }
    return QCPAxisTickerLog::getSubTickCount(tickStep);
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
        axis->setTicker(QSharedPointer<NiceLogTicker>::create());
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
