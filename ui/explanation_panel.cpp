#include "explanation_panel.h"
#include "palette_colors.h"

#include <QEvent>
#include <QScrollBar>

namespace taillab::ui {

ExplanationPanel::ExplanationPanel(QWidget* parent) : QTextBrowser(parent) {
    setObjectName("explanationPanel");
    setOpenExternalLinks(true);
    document()->setDocumentMargin(10);
    setStyledHtml({});
}

void ExplanationPanel::setStyledHtml(const QString& html) {
    html_ = html;
    document()->setDefaultStyleSheet(
        "h2 { margin-bottom: 4px; } h3 { margin-top: 12px; margin-bottom: 2px; }"
        " .muted { color: " + mutedText(palette()).name() + "; }");
    setHtml(html);
}

void ExplanationPanel::changeEvent(QEvent* event) {
    QTextBrowser::changeEvent(event);
    if (event->type() != QEvent::PaletteChange || html_.isEmpty()) return;
    const int scrolled = verticalScrollBar()->value();
    setStyledHtml(html_);
    verticalScrollBar()->setValue(scrolled);
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
    setStyledHtml(html);
}

void ExplanationPanel::showError(const QString& title, const QString& message) {
    setStyledHtml("<h2>" + title.toHtmlEscaped() + "</h2><pre>" + message.toHtmlEscaped() + "</pre>");
}

}  // namespace taillab::ui
