// taillab: the TailLab window.
//
//   taillab [SCENARIO-or-lab-id] [--screenshot FILE.png] [--size WxH]
//
// SCENARIO is a scenario file, a scenario name, "labs/<name>" under the scenario directory, or a
// lab id (its default scenario); default "fanout". The scenario directory is $TAILLAB_SCENARIOS,
// else the one compiled in. With --screenshot the window waits for the first complete result to
// be drawn, saves a grab of itself to FILE.png and exits (0 on success).
#include <QApplication>
#include <QCommandLineParser>
#include <QRegularExpression>
#include <QTimer>
#include <cstdio>
#include <cstdlib>

#include "main_window.h"

namespace {

constexpr int kScreenshotTimeoutMs = 180000;
constexpr int kSettleMs = 250;  // lets queued replots and layouts finish before the grab

std::string scenarioDirectory() {
    if (const char* env = std::getenv("TAILLAB_SCENARIOS"); env && *env) return env;
    return TAILLAB_SCENARIO_DIR;
}

void armScreenshot(taillab::ui::MainWindow& window, const QString& path) {
    auto taken = std::make_shared<bool>(false);
    QObject::connect(&window, &taillab::ui::MainWindow::resultDrawn, &window,
                     [&window, path, taken](const taillab::ui::LabResultPtr& r) {
                         if (*taken || !r || r->progress < 1.0 || r->cancelled) return;
                         *taken = true;
                         QTimer::singleShot(kSettleMs, &window, [&window, path] {
                             const bool ok = window.grab().save(path, "PNG");
                             if (!ok)
                                 std::fprintf(stderr, "taillab: cannot write %s\n",
                                              qPrintable(path));
                             QApplication::exit(ok ? 0 : 1);
                         });
                     });
    QTimer::singleShot(kScreenshotTimeoutMs, &window, [] {
        std::fprintf(stderr, "taillab: no complete result to screenshot after %d s\n",
                     kScreenshotTimeoutMs / 1000);
        QApplication::exit(1);
    });
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
    const QCommandLineOption size("size", "Window size, e.g. 1440x900.", "WxH");
    parser.addOption(screenshot);
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
    if (parser.isSet(screenshot)) armScreenshot(window, parser.value(screenshot));
    window.show();

    const QStringList args = parser.positionalArguments();
    const QString key = args.isEmpty() ? QString("fanout") : args.first();
    if (!window.openScenario(key)) {
        std::fprintf(stderr, "taillab: cannot open scenario '%s'\n", qPrintable(key));
        if (parser.isSet(screenshot)) return 2;
    }
    return QApplication::exec();
}
