// The result's checks (name, simulated, closed form / published, tolerance, pass or fail in
// colour, the source as tooltip) and its named figures, as two tabs.
#pragma once

#include <QTabWidget>

#include "labs/lab_result.h"

class QTableWidget;

namespace taillab::ui {

class ResultsPanel : public QTabWidget {
    Q_OBJECT
  public:
    explicit ResultsPanel(QWidget* parent = nullptr);
    void setResult(const LabResult* result);
    // Shown under the checks when the scenario's expectations were dropped (knobs edited).
    void setNote(const QString& note);
    QTableWidget* checksTable() const { return checks_; }
    QTableWidget* figuresTable() const { return figures_; }

  private:
    void fillChecks(const LabResult& r);
    void fillFigures(const LabResult& r);

    QTableWidget* checks_ = nullptr;
    QTableWidget* figures_ = nullptr;
    QString note_;
};

}  // namespace taillab::ui
