// The result's checks (name, simulated, closed form / published, tolerance, pass or fail in
// colour, the source as tooltip) and its figures in words with their units (the identifier as
// tooltip and as the label item's Qt::UserRole data), as two tabs.
#pragma once

#include <QTabWidget>

#include "lab_result_ptr.h"

#include "labs/figure_text.h"
#include "labs/lab_result.h"

#include <string>
#include <unordered_map>

class QTableWidget;

namespace taillab::ui {

// A run's checks by verdict, for the Checks tab and the status bar: "11 pass · 11 inconclusive",
// "10 pass · 1 FAIL"; a verdict no check has is left out, but pass is always there.
QString checkTallyText(const CheckTally& t);

class ResultsPanel : public QTabWidget {
    Q_OBJECT
  public:
    explicit ResultsPanel(QWidget* parent = nullptr);
    void setResult(const LabResult* result);
    // Shown under the checks when the scenario's expectations were dropped (knobs edited).
    void setNote(const QString& note);
    // A pinned result to compare with: the checks gain a "Δ vs pinned" column (this run's
    // simulated value minus the pinned one's, for the check of the same name) and the figures
    // "Pinned" and "Δ" columns. nullptr removes them. Takes effect at the next setResult.
    void setBaseline(LabResultPtr baseline);
    static constexpr int kDeltaColumn = 5;
    QTableWidget* checksTable() const { return checks_; }
    QTableWidget* figuresTable() const { return figures_; }

  private:
    void fillChecks(const LabResult& r);
    void fillFigures(const LabResult& r);
    const FigureText& figureText(const std::string& name);

    QTableWidget* checks_ = nullptr;
    QTableWidget* figures_ = nullptr;
    QString note_;
    LabResultPtr baseline_;
    std::unordered_map<std::string, FigureText> figureTexts_;
};

}  // namespace taillab::ui
