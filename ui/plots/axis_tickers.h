// Tick generators for the chart axes. Only included by ui/plots/*.cpp (needs qcustomplot.h).
#pragma once

#include <qcustomplot.h>

namespace taillab::ui {

// A log axis that labels powers of ten over a wide range, 1-2-5 steps over one or two decades,
// and evenly spaced round numbers over a narrow range (less than a factor of kLinearRatio), so
// every range has a few labels.
class NiceLogTicker : public QCPAxisTickerLog {
  public:
    static constexpr double kLinearRatio = 3;
    static constexpr double kDenseRatio = 30;

  protected:
    QVector<double> createTickVector(double tickStep, const QCPRange& range) override;
    int getSubTickCount(double tickStep) override;
    QString getTickLabel(double tick, const QLocale& locale, QChar formatChar,
                         int precision) override;
    enum class Mode { Decades, OneTwoFive, Linear };
    Mode mode_ = Mode::Decades;
};

// The "nines" axis of HdrHistogram's percentile plots: plot x = 1/(1-p) on a log axis, labelled
// with p at each power of ten: 0%, 90%, 99%, 99.9%, 99.99%, 99.999%.
class NinesTicker : public QCPAxisTickerLog {
  protected:
    QString getTickLabel(double tick, const QLocale& locale, QChar formatChar,
                         int precision) override;
};

// Switches an axis between linear and log (NiceLogTicker); does nothing when already so.
void setAxisLog(QCPAxis* axis, bool log);

// Percentile (as a fraction) <-> plot x on the nines axis.
double ninesToPlot(double p);
double plotToNines(double x);
QString percentLabel(double p);
// A percentile read off a curve, to the precision its nines carry: 0.98004738 -> "98.0%",
// 0.9995 -> "99.95%", 0.99998 -> "99.998%" (never more digits than the tail can tell apart).
QString percentReadout(double p);

}  // namespace taillab::ui
