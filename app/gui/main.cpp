// taillab: the TailLab window.
//
//   taillab [SCENARIO-or-lab-id] [--screenshot FILE.png] [--export FILE] [--size WxH]
//
// SCENARIO is a scenario file, a scenario name, "labs/<name>" under the scenario directory, or a
// lab id (its default scenario); default "fanout". The scenario directory is $TAILLAB_SCENARIOS,
// else the one compiled in. With --screenshot the window waits for the first complete result to
// be drawn, saves a grab of itself to FILE.png and exits (0 on success). --export does the same
// with the visible chart, in the format its extension names (png, svg, pdf, csv, json), as
// File > Export would: a figure for a post-mortem or a lecture from a script.
#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QRegularExpression>
#include <QTimer>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>

#include "export_actions.h"
#include "main_window.h"

namespace {

constexpr int kScreenshotTimeoutMs = 180000;
constexpr int kSettleMs = 250;  // lets queued replots and layouts finish before the grab

std::string scenarioDirectory() {
    if (const char* env = std::getenv("TAILLAB_SCENARIOS"); env && *env) return env;
    return TAILLAB_SCENARIO_DIR;
}

// After the first complete result is drawn (and layouts settle), runs `action` and exits with
// its outcome.
void armFirstResult(taillab::ui::MainWindow& window, std::function<bool()> action) {
    auto taken = std::make_shared<bool>(false);
    QObject::connect(&window, &taillab::ui::MainWindow::resultDrawn, &window,
                     [&window, action, taken](const taillab::ui::LabResultPtr& r) {
                         if (*taken || !r || r->progress < 1.0 || r->cancelled) return;
                         *taken = true;
                         QTimer::singleShot(kSettleMs, &window,
                                            [action] { QApplication::exit(action() ? 0 : 1); });
                     });
    QTimer::singleShot(kScreenshotTimeoutMs, &window, [] {
        std::fprintf(stderr, "taillab: no complete result after %d s\n",
                     kScreenshotTimeoutMs / 1000);
        QApplication::exit(1);
    });
}

std::optional<taillab::ui::ExportFormat> formatFor(const QString& path) {
    using taillab::ui::ExportFormat;
    const QString ext = QFileInfo(path).suffix().toLower();
    if (ext == "png") return ExportFormat::Png;
    if (ext == "svg") return ExportFormat::Svg;
    if (ext == "pdf") return ExportFormat::Pdf;
    if (ext == "csv") return ExportFormat::Csv;
    if (ext == "json") return ExportFormat::Json;
    return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setApplicationName("TailLab");
    QApplication::setOrganizationName("TailLab");
    QApplication::setApplicationVersion("0.1.0");
    QApplication::setStyle("Fusion");

    QCommandLineParser parser;
    parser.setApplicationDescription("TailLab: a desktop lab for tail latency");
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument("scenario", "Scenario file, name or lab id (default: fanout)",
                                 "[SCENARIO]");
    const QCommandLineOption screenshot("screenshot",
                                        "Save the window to FILE.png after the first complete "
                                        "result and exit.",
                                        "FILE.png");
    const QCommandLineOption exportTo("export",
                                      "Export the visible chart to FILE (.png, .svg, .pdf, .csv "
                                      "or .json) after the first complete result and exit.",
                                      "FILE");
    const QCommandLineOption size("size", "Window size, e.g. 1440x900.", "WxH");
    parser.addOption(screenshot);
    parser.addOption(exportTo);
    parser.addOption(size);
    parser.process(app);

    taillab::ui::MainWindow window(scenarioDirectory());
    if (parser.isSet(size)) {
        const auto m = QRegularExpression("^(\\d+)x(\\d+)$").match(parser.value(size));
        if (!m.hasMatch()) {
            std::fprintf(stderr, "taillab: --size expects WxH, e.g. 1440x900\n");
            return 2;
        }
        window.resize(m.captured(1).toInt(), m.captured(2).toInt());
    }
    if (parser.isSet(screenshot) && parser.isSet(exportTo)) {
        std::fprintf(stderr, "taillab: use --screenshot or --export, not both\n");
        return 2;
    }
    if (parser.isSet(screenshot)) {
        const QString path = parser.value(screenshot);
        armFirstResult(window, [&window, path] {
            if (window.grab().save(path, "PNG")) return true;
            std::fprintf(stderr, "taillab: cannot write %s\n", qPrintable(path));
            return false;
        });
    }
    if (parser.isSet(exportTo)) {
        const QString path = parser.value(exportTo);
        const auto format = formatFor(path);
        if (!format) {
            std::fprintf(stderr, "taillab: --export needs a .png, .svg, .pdf, .csv or .json file\n");
            return 2;
        }
        armFirstResult(window, [&window, path, format] {
            QString error;
            if (window.exportActions()->exportTo(*format, path, &error)) return true;
            std::fprintf(stderr, "taillab: export failed: %s\n", qPrintable(error));
            return false;
        });
    }
    window.show();

    const QStringList args = parser.positionalArguments();
    const QString key = args.isEmpty() ? QString("fanout") : args.first();
    if (!window.openScenario(key)) {
        std::fprintf(stderr, "taillab: cannot open scenario '%s'\n", qPrintable(key));
        if (parser.isSet(screenshot) || parser.isSet(exportTo)) return 2;
    }
    return QApplication::exec();
}
