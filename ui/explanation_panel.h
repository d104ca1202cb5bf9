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

  protected:
    // A theme switch: the muted text's colour is in the document's style sheet; shown again.
    void changeEvent(QEvent* event) override;

  private:
    void setStyledHtml(const QString& html);
    QString html_;
};

}  // namespace taillab::ui
