// taillab: the TailLab window.
//
//   taillab [SCENARIO-or-lab-id] [--screenshot FILE.png] [--export FILE] [--size WxH]
//   taillab --gateway [GATEWAY-SCENARIO] [--until TIME] [--sweep] [--chart ID]
//           [--screenshot FILE.png | --export FILE] [--size WxH]
//   taillab --live [GATEWAY-SCENARIO] [--rate R] [--screenshot FILE.png [--until 20s]]
//   taillab --incident [SCENARIO] [--compare SCENARIO] [--set KNOB=VALUE ...]
//           [--until "Tue 07:30"] [--focus PHASE] [--pick "Tue 07:20"]
//           [--screenshot FILE.png | --export BOARD.png|svg|pdf|csv|json]
//
// SCENARIO is a scenario file, a scenario name, "labs/<name>" under the scenario directory, or a
// lab id (its default scenario); default "fanout". The scenario directory is $TAILLAB_SCENARIOS,
// else the one compiled in. With --screenshot the window waits for the first complete result to
// be drawn, saves a grab of itself to FILE.png and exits (0 on success). --export does the same
// with the visible chart, in the format its extension names (png, svg, pdf, csv, json), as
// File > Export would: a figure for a post-mortem or a lecture from a script.
//
// --gateway opens the Gateway tab (seed 000's search gateway, simulated as it happens), with the
// knobs, seed and timeline of GATEWAY-SCENARIO (a gateway scenario file or name) or the
// defaults, playing; a file the scenario parser refuses exits 2 with its message
// (file:line:col: JSON path: what). With
// --screenshot or --export it first runs, as fast as it goes, to --until (simulated time since
// the run started: 90m, 36h, 2d; a bare number is hours; default 36h, or the run's end when sooner), and with --sweep also runs
// the hedge-delay sweep and shows its tab; --export writes the chart named by --chart (default
// gateway_percentiles, or with --sweep the sweep's, gateway_hedge_sweep; an unknown id is
// refused with the list of ids, which --help gives too).
//
// --incident opens the Incidents tab with SCENARIO as run A (default: incidents/july-v3 against
// incidents/july-v4 when they exist, else gateway/day-eu-atlas-slow) and, with --compare, B (or
// with --set, A's own scenario with knobs changed), both on A's seed, playing. Scripted, it first
// runs as fast as it goes to --until: a moment of the run ("Tue 07:30") or a time since its start
// (90m, 36h; default its end), then grabs the window or exports the whole board. --focus PHASE
// zooms every chart to that phase of A's timeline ("sev1"), with half an hour either side;
// --pick TIME attributes the window at that moment and grabs the Attribution tab instead.
//
// --live opens the "Gateway (live)" tab with GATEWAY-SCENARIO (a gateway scenario file or name,
// as --gateway takes it, refused as --gateway refuses it; default week-v4-september) and starts it at --rate requests per second (default
// 30, which week-v4-september reaches from Mon 00:00): the emulated fleet, the gateway and the load generator on 127.0.0.1, in this process.
// With --screenshot it grabs the window after --until of wall-clock time (default 20s; a bare
// number is seconds here), stops the run and exits.
//
// A command line taillab would not follow as written (an unknown option, one without the option
// it goes with, a second SCENARIO, a --size over 8192 a side, an output it cannot write; see
// command_line.h) exits 2 with what and why before any window opens; 1 is a failure of its own.
#include <QApplication>
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSettings>
#include <QTimer>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <functional>
#include <memory>
#include <optional>

#include "command_line.h"
#include "export_actions.h"
#include "gateway/gateway_charts.h"
#include "gateway/gateway_scenario.h"
#include "gateway/gateway_session.h"
#include "gateway/gateway_view.h"
#include "gateway/live_view.h"
#include "gateway/sweep_panel.h"
#include "incident/attribution_panel.h"
#include "incident/incident_board.h"
#include "main_window.h"
#include "theme.h"

namespace {

constexpr int kScreenshotTimeoutMs = 180000;
constexpr int kSettleMs = 250;  // lets queued replots and layouts finish before the grab

std::string scenarioDirectory() {
    if (const char* env = std::getenv("TAILLAB_SCENARIOS"); env && *env) return env;
    return TAILLAB_SCENARIO_DIR;
}

// --size, when given: a window grabbed at another size says so.
std::optional<QSize> gRequestedSize;

// Saves a grab of the window as PNG. The window is never smaller than its layout allows (which
// grows as its charts fill): when that overrode --size, says so on stderr rather than quietly
// save a window of another size.
bool saveWindow(QWidget& window, const QString& path) {
    if (gRequestedSize && window.size() != *gRequestedSize)
        std::fprintf(stderr, "taillab: --size %dx%d is smaller than the window can be; it is %dx%d\n",
                     gRequestedSize->width(), gRequestedSize->height(), window.width(),
                     window.height());
    return window.grab().save(path, "PNG");
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

// "90m", "36h", "2d", "45s" or a bare number of hours, in seconds; nullopt when malformed.
std::optional<double> parseDuration(const QString& text) {
    const auto m = QRegularExpression("^\\s*([0-9]*\\.?[0-9]+)\\s*([smhd]?)\\s*$").match(text);
    if (!m.hasMatch()) return std::nullopt;
    const double v = m.captured(1).toDouble();
    const QString unit = m.captured(2);
    const double scale = unit == "s" ? 1 : unit == "m" ? 60 : unit == "d" ? 86400 : 3600;
    return v * scale;
}

// Seeks `view` (the gateway view or the incident board) to `until_s` as fast as it goes; once a
// frame of that moment is drawn, runs `then` with the way to finish: let the view settle, run
// `action` and exit with its outcome.
template <typename View>
void armSeek(View& view, double until_s, std::function<bool()> action,
             std::function<void(const std::function<void()>& finish)> then = {}) {
    using taillab::ui::GatewayFramePtr;
    auto taken = std::make_shared<bool>(false);
    const quint64 seek = view.session()->seek(until_s);
    auto finish = [&view, action] {
        QTimer::singleShot(kSettleMs, &view, [action] { QApplication::exit(action() ? 0 : 1); });
    };
    QObject::connect(&view, &View::frameDrawn, &view,
                     [taken, seek, then, finish](const GatewayFramePtr& f) {
                         if (*taken || !f || f->commandSeq < seek || f->seeking) return;
                         *taken = true;
                         if (then) then(finish); else finish();
                     });
    QTimer::singleShot(kScreenshotTimeoutMs, &view, [] {
        std::fprintf(stderr, "taillab: the run did not get there within %d s\n",
                     kScreenshotTimeoutMs / 1000);
        QApplication::exit(1);
    });
}

// Runs the gateway to `until_s` (and the sweep when asked), lets the view draw, then runs
// `action` and exits with its outcome.
void armGateway(taillab::ui::GatewayView& view, double until_s, bool sweep,
                std::function<bool()> action) {
    std::function<void(const std::function<void()>&)> then;
    if (sweep)
        then = [&view](const std::function<void()>& finish) {
            view.showSweepTab(true);
            QObject::connect(view.sweepPanel(), &taillab::ui::SweepPanel::finished, &view,
                             [finish](bool) { finish(); });
            if (!view.sweepPanel()->run()) QApplication::exit(1);
        };
    armSeek(view, until_s, std::move(action), then);
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

struct GatewayArgs {
    QStringList positional;
    QString until;
    bool untilSet = false;  // --until given: else 36h, or the run's end when it comes sooner
    bool sweep = false;
    QString chart;       // "" when not asked for: the sweep's chart with --sweep, else the percentiles
    QString screenshot;  // "" when not asked for
    QString exportTo;
};

// taillab --gateway: opens the Gateway tab and, when scripted, arms the screenshot or export.
int runGateway(taillab::ui::MainWindow& window, const GatewayArgs& a) {
    auto untilS = parseDuration(a.until);
    if (!untilS) {
        std::fprintf(stderr, "taillab: --until expects a simulated time such as 36h\n");
        return 2;
    }
    taillab::ui::GatewayRunSpec spec = taillab::ui::defaultGatewayRun();
    if (!a.positional.isEmpty()) {
        try {
            spec = taillab::ui::loadGatewayRun(a.positional.first().toStdString(),
                                               scenarioDirectory());
        } catch (const std::exception& e) {
            std::fprintf(stderr, "taillab: cannot open gateway scenario: %s\n", e.what());
            return 2;
        }
    }
    // Past the run's end the run would quietly stop at it: refused, as --incident refuses it.
    const int days = spec.params.spec("days") ? static_cast<int>(spec.params.real("days")) : 7;
    // The default stops at the run's end: a one-day scenario opens without --until.
    if (!a.untilSet) untilS = std::min(*untilS, days * 86400.0);
    if (*untilS > days * 86400.0) {
        std::fprintf(stderr,
                     "taillab: --until %s is past the end of the run, which covers %d day%s (%dh)\n",
                     qPrintable(a.until), days, days == 1 ? "" : "s", days * 24);
        return 2;
    }
    const bool scripted = !a.screenshot.isEmpty() || !a.exportTo.isEmpty();
    std::optional<taillab::ui::ExportFormat> format;
    if (!a.exportTo.isEmpty() && !(format = formatFor(a.exportTo))) {
        std::fprintf(stderr, "taillab: --export needs a .png, .svg, .pdf, .csv or .json file\n");
        return 2;
    }
    namespace charts = taillab::ui::gateway_charts;
    const std::string chartId = !a.chart.isEmpty() ? a.chart.toStdString()
                                : a.sweep          ? std::string(charts::kSweep)
                                                   : std::string(charts::kPercentiles);
    const std::vector<std::string> ids = charts::chartIds();
    if (std::find(ids.begin(), ids.end(), chartId) == ids.end()) {
        std::fprintf(stderr, "taillab: no gateway chart '%s'; the charts: %s\n", chartId.c_str(),
                     taillab::app::chartIdList().c_str());
        return 2;
    }
    if (chartId == charts::kSweep && !a.exportTo.isEmpty() && !a.sweep) {
        std::fprintf(stderr, "taillab: --chart %s is drawn by the sweep: add --sweep\n",
                     chartId.c_str());
        return 2;
    }
    taillab::ui::GatewayView* view = window.openGateway(spec, !scripted);
    if (!a.screenshot.isEmpty()) {
        const QString path = a.screenshot;
        armGateway(*view, *untilS, a.sweep, [&window, path] {
            if (saveWindow(window, path)) return true;
            std::fprintf(stderr, "taillab: cannot write %s\n", qPrintable(path));
            return false;
        });
    } else if (!a.exportTo.isEmpty()) {
        const QString path = a.exportTo;
        armGateway(*view, *untilS, a.sweep, [view, path, format, chartId] {
            QString error;
            if (view->exportChart(chartId, *format, path, &error)) return true;
            std::fprintf(stderr, "taillab: export failed: %s\n", qPrintable(error));
            return false;
        });
    }
    window.show();
    if (!scripted) window.openScenario("fanout");
    return QApplication::exec();
}

// "Tue 07:30" or "Tue 07:30:15": that weekday's first day in a run of `days` starting on
// `startDay`, in seconds since the run's start; nullopt when not of that form. *outside is set
// when it names a moment the run does not cover.
std::optional<double> parseWeekTime(const QString& text, int startDay, int days, bool* outside) {
    const auto m = QRegularExpression("^\\s*(Mon|Tue|Wed|Thu|Fri|Sat|Sun)\\s+([0-9]{1,2}):([0-9]{2})(?::([0-9]{2}))?\\s*$")
                       .match(text);
    if (!m.hasMatch()) return std::nullopt;
    static const QStringList kDays{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
    const int day = (static_cast<int>(kDays.indexOf(m.captured(1))) - startDay + 7) % 7;
    const int hour = m.captured(2).toInt(), minute = m.captured(3).toInt();
    const int second = m.captured(4).isEmpty() ? 0 : m.captured(4).toInt();
    *outside = day >= days || hour > 23 || minute > 59 || second > 59;
    return day * 86400.0 + hour * 3600.0 + minute * 60.0 + second;
}

struct IncidentArgs {
    QStringList positional;
    QString compare;
    QStringList sets;
    QString until;
    bool untilGiven = false;
    QString screenshot;
    QString exportTo;
    QString focus;  // a phase of A's to zoom to
    QString pick;   // a moment to attribute (the Attribution tab shown)
};

// taillab --incident: opens the Incidents tab with A (and B) and, when scripted, runs to --until
// and saves the window or exports the board.
int runIncident(taillab::ui::MainWindow& window, const IncidentArgs& a) {
    if (a.positional.size() > 1) {
        std::fprintf(stderr, "taillab: --incident takes one scenario (A); compare with --compare B\n");
        return 2;
    }
    if (!a.exportTo.isEmpty()) {
        const QString ext = QFileInfo(a.exportTo).suffix().toLower();
        if (!QStringList{"png", "svg", "pdf", "csv", "json"}.contains(ext)) {
            std::fprintf(stderr, "taillab: --export needs a .png, .svg, .pdf, .csv or .json file\n");
            return 2;
        }
    }
    for (const QString& set : a.sets)
        if (!set.contains('=') || set.startsWith('=')) {
            std::fprintf(stderr, "taillab: --set expects KNOB=VALUE (e.g. hedge_delay_ms=300), not '%s'\n",
                         qPrintable(set));
            return 2;
        }
    taillab::ui::IncidentRunSpec spec;
    try {
        if (a.positional.isEmpty() && a.compare.isEmpty() && a.sets.isEmpty()) {
            spec = taillab::ui::defaultIncidentRun(scenarioDirectory());
        } else {
            const std::string scenario =
                a.positional.isEmpty() ? std::string("incidents/july-v3") : a.positional.first().toStdString();
            std::vector<std::string> sets;
            for (const QString& s : a.sets) sets.push_back(s.toStdString());
            spec = taillab::ui::loadIncidentRun(scenario, a.compare.toStdString(), sets, scenarioDirectory());
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "taillab: cannot open the incident: %s\n", e.what());
        return 2;
    }
    const int startDay = spec.a.params.spec("start_day") ? spec.a.params.choiceIndex("start_day") : 0;
    const int days = spec.a.params.spec("days") ? static_cast<int>(spec.a.params.real("days")) : 7;
    const QString until = a.untilGiven ? a.until : QString::number(days * 24) + "h";
    bool outside = false;
    std::optional<double> untilS = parseWeekTime(until, startDay, days, &outside);
    if (!untilS) untilS = parseDuration(until);
    if (!untilS || outside || *untilS > days * 86400.0) {
        std::fprintf(stderr,
                     "taillab: --until expects a moment of the run, \"Tue 07:30\" or a time since "
                     "its start such as 36h; the run covers %d day(s) from %s 00:00, not '%s'\n",
                     days, taillab::kWeekdayNames[static_cast<std::size_t>(std::clamp(startDay, 0, 6))],
                     qPrintable(until));
        return 2;
    }
    std::optional<double> pickS;
    if (!a.pick.isEmpty()) {
        bool pickOutside = false;
        pickS = parseWeekTime(a.pick, startDay, days, &pickOutside);
        if (!pickS) pickS = parseDuration(a.pick);
        if (!pickS || pickOutside || *pickS > *untilS) {
            std::fprintf(stderr,
                         "taillab: --pick expects a moment of the run no later than --until (%s), "
                         "such as \"Tue 07:20\", not '%s'\n",
                         qPrintable(until), qPrintable(a.pick));
            return 2;
        }
        if (a.screenshot.isEmpty()) {
            std::fprintf(stderr, "taillab: --pick goes with --screenshot (it shows the Attribution tab)\n");
            return 2;
        }
    }
    const bool scripted = !a.screenshot.isEmpty() || !a.exportTo.isEmpty();
    taillab::ui::IncidentBoard* board = window.openIncident(&spec, !scripted);
    if (!a.focus.isEmpty() && !board->focusPhase(a.focus.toStdString())) {
        QStringList ids;
        for (const std::string& id : board->phaseIds()) ids << QString::fromStdString(id);
        std::fprintf(stderr, "taillab: --focus: %s has no phase '%s'%s\n", spec.a.name.c_str(),
                     qPrintable(a.focus),
                     ids.isEmpty() ? " (its timeline has no phases)" : qPrintable("; its phases: " + ids.join(", ")));
        return 2;
    }
    if (scripted) {
        const QString shot = a.screenshot, out = a.exportTo;
        // With --pick: attribute that moment's window, show it, and finish once it is drawn.
        std::function<void(const std::function<void()>&)> then;
        if (pickS)
            then = [board, pick = *pickS](const std::function<void()>& finish) {
                auto* panel = board->attribution();
                QObject::connect(panel, &taillab::ui::AttributionPanel::attributed, board, finish);
                QObject::connect(panel, &taillab::ui::AttributionPanel::failed, board, [](const QString& m) {
                    std::fprintf(stderr, "taillab: attribution failed: %s\n", qPrintable(m));
                    QApplication::exit(1);
                });
                board->pickMoment(board->timeOffset() + pick);
                board->tabs()->setCurrentIndex(1);
            };
        armSeek(*board, *untilS, [&window, board, shot, out] {
            if (!shot.isEmpty() && !saveWindow(window, shot)) {
                std::fprintf(stderr, "taillab: cannot write %s\n", qPrintable(shot));
                return false;
            }
            QString error;
            if (!out.isEmpty() && !board->exportBoard(out, &error)) {
                std::fprintf(stderr, "taillab: export failed: %s\n", qPrintable(error));
                return false;
            }
            return true;
        }, then);
    }
    window.show();
    if (!scripted) window.openScenario("fanout");
    window.openIncident();
    return QApplication::exec();
}

// taillab --live: opens the live tab, starts a run and, when asked, grabs the window after
// `until` of wall-clock time.
int runLiveTab(taillab::ui::MainWindow& window, const QStringList& positional, const QString& rate,
               const QString& from, const QString& until, const QString& screenshot) {
    // A file or a name, read and refused as --gateway reads and refuses them.
    taillab::Scenario scenario;
    try {
        const std::string key =
            positional.isEmpty() ? "week-v4-september" : positional.first().toStdString();
        scenario = taillab::loadScenarioFile(
            taillab::ui::findGatewayScenarioFile(key, scenarioDirectory()));
        taillab::ui::gatewayRunFromScenario(scenario);  // a scenario for another lab is refused
    } catch (const std::exception& e) {
        std::fprintf(stderr, "taillab: cannot open gateway scenario: %s\n", e.what());
        return 2;
    }
    taillab::ui::LiveView* view = window.openLive();
    view->pickScenario(scenario);
    bool ok = true;
    const double perSecond = rate.isEmpty() ? 30 : rate.toDouble(&ok);
    if (!ok || !(perSecond > 0)) {
        std::fprintf(stderr, "taillab: --rate expects requests per second, e.g. 50\n");
        return 2;
    }
    view->setRate(perSecond);
    if (!from.isEmpty()) {
        const int hours = from.toInt(&ok);
        if (!ok || hours < 0) {
            std::fprintf(stderr, "taillab: --from expects an hour of the scenario's run, e.g. 38 (Tue 14:00)\n");
            return 2;
        }
        view->setStartHour(hours);
    }
    window.show();
    view->start();
    if (!screenshot.isEmpty()) {
        const bool bare = !until.isEmpty() && until.back().isDigit();  // seconds, here
        const auto seconds = parseDuration(bare ? until + "s" : until);
        if (!seconds) {
            std::fprintf(stderr, "taillab: --until expects a time such as 20s\n");
            return 2;
        }
        QTimer::singleShot(static_cast<int>(*seconds * 1000), &window, [&window, screenshot] {
            const bool saved = saveWindow(window, screenshot);
            if (!saved) std::fprintf(stderr, "taillab: cannot write %s\n", qPrintable(screenshot));
            QApplication::exit(saved ? 0 : 1);
        });
    }
    return QApplication::exec();
}

// True when the command line asks for --help or --version (which QCommandLineParser answers).
bool asksHelpOrVersion(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        const QString a = QString::fromLocal8Bit(argv[i]);
        if (a == "--") break;
        if (a == "-h" || a == "--help" || a == "-?" || a == "--help-all" || a == "-v" ||
            a == "--version")
            return true;
    }
    return false;
}

void setApplicationNames() {
    QCoreApplication::setApplicationName("TailLab");
    QCoreApplication::setOrganizationName("TailLab");
    QCoreApplication::setApplicationVersion(TAILLAB_VERSION);
}

}  // namespace

int main(int argc, char** argv) {
    // --help and --version need no display: answered before a QApplication, which would abort
    // without one. A command line the parser refuses goes on to the QApplication, which knows
    // Qt's own options (-platform ...), and is answered there.
    if (asksHelpOrVersion(argc, argv)) {
        QCoreApplication core(argc, argv);
        setApplicationNames();
        QCommandLineParser parser;
        const taillab::app::Options o(parser);
        if (parser.parse(QCoreApplication::arguments())) {
            if (parser.isSet("help") || parser.isSet("help-all")) parser.showHelp(0);
            if (parser.isSet("version")) parser.showVersion();
        }
    }
    QApplication app(argc, argv);
    setApplicationNames();
    QApplication::setStyle("Fusion");

    // Everything the command line asks is checked here, before a window is made: a mistake is
    // said (exit 2) rather than ignored, or found after a run.
    QCommandLineParser parser;
    const taillab::app::Options o(parser);
    if (!parser.parse(QApplication::arguments())) {
        QString error = parser.errorText();  // "Unknown option 'bogus'."
        if (error.endsWith('.')) error.chop(1);
        std::fprintf(stderr, "taillab: %s (try taillab --help)\n", qPrintable(error));
        return taillab::app::kExitBadInput;
    }
    if (parser.isSet("help") || parser.isSet("help-all")) parser.showHelp(0);
    if (parser.isSet("version")) parser.showVersion();
    if (const QString problem = taillab::app::commandLineProblem(parser, o); !problem.isEmpty()) {
        std::fprintf(stderr, "taillab: %s\n", qPrintable(problem));
        return taillab::app::kExitBadInput;
    }
    std::optional<taillab::ui::Theme> requestedTheme;
    if (parser.isSet(o.theme)) {
        requestedTheme = taillab::ui::parseTheme(parser.value(o.theme));
        if (!requestedTheme) {
            std::fprintf(stderr, "taillab: --theme expects system, light or dark, not '%s'\n",
                         qPrintable(parser.value(o.theme)));
            return taillab::app::kExitBadInput;
        }
    }
    std::optional<QSize> requestedSize;
    if (parser.isSet(o.size)) requestedSize = taillab::app::parseSize(parser.value(o.size)).size;

    taillab::ui::MainWindow window(scenarioDirectory());
    if (requestedSize) {
        window.resize(*requestedSize);
        gRequestedSize = requestedSize;
    }
    if (requestedTheme) taillab::ui::applyTheme(*requestedTheme);
    if (parser.isSet(o.incident)) {
        return runIncident(window, {parser.positionalArguments(), parser.value(o.compare),
                                    parser.values(o.set), parser.value(o.until), parser.isSet(o.until),
                                    parser.isSet(o.screenshot) ? parser.value(o.screenshot) : QString(),
                                    parser.isSet(o.exportTo) ? parser.value(o.exportTo) : QString(),
                                    parser.value(o.focus), parser.value(o.pick)});
    }
    if (parser.isSet(o.live)) {
        return runLiveTab(window, parser.positionalArguments(), parser.value(o.rate), parser.value(o.from),
                          parser.isSet(o.until) ? parser.value(o.until) : QString("20s"),
                          parser.isSet(o.screenshot) ? parser.value(o.screenshot) : QString());
    }
    if (parser.isSet(o.gateway)) {
        return runGateway(window, {parser.positionalArguments(), parser.value(o.until),
                                   parser.isSet(o.until), parser.isSet(o.sweep),
                                   parser.isSet(o.chart) ? parser.value(o.chart) : QString(),
                                   parser.isSet(o.screenshot) ? parser.value(o.screenshot) : QString(),
                                   parser.isSet(o.exportTo) ? parser.value(o.exportTo) : QString()});
    }
    if (parser.isSet(o.screenshot)) {
        const QString path = parser.value(o.screenshot);
        armFirstResult(window, [&window, path] {
            if (saveWindow(window, path)) return true;
            std::fprintf(stderr, "taillab: cannot write %s\n", qPrintable(path));
            return false;
        });
    }
    if (parser.isSet(o.exportTo)) {
        const QString path = parser.value(o.exportTo);
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
    // An interactive session starts where the last one ended (geometry, splitters, tab, lab,
    // gateway speed) and is remembered when it ends; a scripted one neither reads nor writes.
    const QStringList args = parser.positionalArguments();
    const bool scripted = parser.isSet(o.screenshot) || parser.isSet(o.exportTo);
    QString key = args.isEmpty() ? QString("fanout") : args.first();
    if (!scripted) {
        QSettings settings;
        window.restoreSettings(settings, args.isEmpty());
        if (requestedSize) window.resize(*requestedSize);  // an explicit --size wins
        if (requestedTheme) taillab::ui::applyTheme(*requestedTheme);  // and --theme
        const QString last = taillab::ui::MainWindow::lastScenario(settings);
        if (args.isEmpty() && !last.isEmpty()) key = last;
        QObject::connect(&app, &QApplication::aboutToQuit, &window, [&window] {
            QSettings settings;
            window.saveSettings(settings);
        });
    }
    window.show();

    bool opened = window.openScenario(key);
    // The remembered scenario may be gone (moved, renamed): then the default one.
    if (!opened && args.isEmpty() && key != "fanout") opened = window.openScenario("fanout");
    if (!opened) {
        std::fprintf(stderr, "taillab: %s\n", qPrintable(window.lastOpenError()));
        if (scripted) return 2;
    }
    return QApplication::exec();
}
