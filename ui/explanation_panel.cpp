#include "explanation_panel.h"
#include "palette_colors.h"

namespace taillab::ui {

ExplanationPanel::ExplanationPanel(QWidget* parent) : QTextBrowser(parent) {
    setObjectName("explanationPanel");
    setOpenExternalLinks(true);
    document()->setDocumentMargin(10);
    document()->setDefaultStyleSheet(
        "h2 { margin-bottom: 4px; } h3 { margin-top: 12px; margin-bottom: 2px; }"
        " .muted { color: " + mutedText(palette()).name() + "; }");
}

void ExplanationPanel::show(const Lab& lab, const Scenario& scenario) {
    QString html = "<h2>" + QString::fromStdString(lab.title()).toHtmlEscaped() + "</h2>";
    html += QString::fromStdString(lab.explanation());
    const QString title =
        QString::fromStdString(scenario.title.empty() ? scenario.name : scenario.title);
    html += "<h3>Scenario: " + title.toHtmlEscaped() + "</h3>";
    if (!scenario.notes.empty())
        html += "<p>" + QString::fromStdString(scenario.notes).toHtmlEscaped() + "</p>";
    html += "<p class='muted'>" +
            (scenario.file.empty()
                 ? tr("Built-in: the lab's default parameters (no scenario file found).")
                 : tr("File: %1").arg(QString::fromStdString(scenario.file).toHtmlEscaped())) +
            "</p>";
    setHtml(html);
}

void ExplanationPanel::showError(const QString& title, const QString& message) {
    setHtml("<h2>" + title.toHtmlEscaped() + "</h2><pre>" + message.toHtmlEscaped() + "</pre>");
}

}  // namespace taillab::ui
