// The lab's explanation (its HTML) followed by the scenario's notes and where it came from.
#pragma once

#include <QTextBrowser>

#include "labs/lab.h"
#include "scenario/scenario.h"

namespace taillab::ui {

class ExplanationPanel : public QTextBrowser {
    Q_OBJECT
  public:
    explicit ExplanationPanel(QWidget* parent = nullptr);
    void show(const Lab& lab, const Scenario& scenario);
    void showError(const QString& title, const QString& message);
};

}  // namespace taillab::ui
