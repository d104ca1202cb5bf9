// A TimeChart whose x axis reads as seed 000's week ("Tue 04:00"; data in seconds since Mon
// 00:00 UTC), with optional vertical markers (the moments knobs were changed). qcustomplot.h
// stays in the .cpp.
#pragma once

#include <vector>

#include "plots/time_chart.h"

class QCPAbstractItem;

namespace taillab::ui {

class GatewayTimeChart : public TimeChart {
    Q_OBJECT
  public:
    explicit GatewayTimeChart(QWidget* parent = nullptr);
    // Marker positions (x data units); drawn from the next setChart on.
    void setMarkers(std::vector<double> x);
    const std::vector<double>& markers() const { return markers_; }

  protected:
    void configureAxes(const Chart& chart) override;
    QString formatX(double x) const override;

  private:
    std::vector<double> markers_;
    std::vector<QCPAbstractItem*> markerItems_;
};

}  // namespace taillab::ui
