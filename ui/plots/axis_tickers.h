// Tick generators for the chart axes. Only included by ui/plots/*.cpp (needs qcustomplot.h).
#pragma once

#include <qcustomplot.h>

namespace taillab::ui {

// A log axis labelled as densely as its length allows: over a narrow range (less than a factor
// of kLinearRatio) evenly spaced round numbers; otherwise every digit (1, 2, 3, ... 9 × 10^k),
// 1-2-5 with unlabelled minor ticks at the other digits, or powers of ten with minor ticks
// between, whichever is the densest whose closest labels (9 and 10; 1 and 2) still stand a
// label's height apart on a vertical axis, or a label's width and a gap on a horizontal one.
class NiceLogTicker : public QCPAxisTickerLog {
  public:
    static constexpr double kLinearRatio = 3;

    // The axis whose length sets the density (null: assume a 300 px axis).
    void setAxis(const QCPAxis* axis) { axis_ = axis; }

  protected:
    QVector<double> createTickVector(double tickStep, const QCPRange& range) override;
    int getSubTickCount(double tickStep) override;
    QVector<double> createSubTickVector(int subTickCount, const QVector<double>& ticks) override;
    QString getTickLabel(double tick, const QLocale& locale, QChar formatChar,
                         int precision) override;
    enum class Mode { Decades, OneTwoFive, Digits, Linear };
    Mode mode_ = Mode::Decades;
    const QCPAxis* axis_ = nullptr;
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
