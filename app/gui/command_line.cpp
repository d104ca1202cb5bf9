#include "command_line.h"

#include <QFileInfo>
#include <QRegularExpression>
#include <QStringList>
#include <vector>

#include "gateway/gateway_charts.h"
#include "io/atomic_file.h"

namespace taillab::app {

std::string chartIdList() {
    std::string out;
    for (const std::string& id : taillab::ui::gateway_charts::chartIds())
        out += (out.empty() ? "" : ", ") + id;
    return out;
}

Options::Options(QCommandLineParser& parser)
    : screenshot{"screenshot", "Save the window to FILE.png after the first complete result and exit.",
                 "FILE.png"},
      exportTo{"export",
               "Export the visible chart to FILE (.png, .svg, .pdf, .csv or .json) after the first "
               "complete result and exit.",
               "FILE"},
      size{"size",
           QString("Window size, e.g. 1440x900; at most %1 a side (a chart's PNG export is drawn at "
                   "twice its size, at most %2).")
               .arg(kMaxWindowSide)
               .arg(2 * kMaxWindowSide),
           "WxH"},
      gateway{"gateway",
              "Open the Gateway view (seed 000's search gateway, simulated as it runs); SCENARIO is "
              "then a gateway scenario file or name."},
      until{"until",
            "With --gateway or --incident and --screenshot/--export: simulated time to run to "
            "first (90m, 36h, 2d; --gateway's default 36h, or the run's end when sooner); with "
            "--live and --screenshot: wall-clock time to run first (default 20s).",
            "TIME", "36h"},
      sweep{"sweep",
            "With --gateway and --screenshot/--export: also run the hedge-delay sweep and show it."},
      chart{"chart",
            QString::fromStdString("With --gateway --export: the chart to write, one of " + chartIdList() +
                                   " (default gateway_percentiles; with --sweep gateway_hedge_sweep)."),
            "ID"},
      theme{"theme", "Colour theme: system, light or dark (default: as last time, else system).", "NAME"},
      live{"live",
           "Open the Gateway (live) tab and start GATEWAY-SCENARIO (a file or name) for real on "
           "127.0.0.1; with --screenshot, grab the window after --until (default 20s)."},
      rate{"rate", "With --live: requests per second over the first hour (default 30).", "R"},
      from{"from", "With --live: the hour of the scenario's run to start at (38: Tue 14:00).", "H"},
      incident{"incident",
               "Open the Incidents tab: SCENARIO (a gateway scenario with a fault timeline; default "
               "the July replay) replayed as it happens; with --screenshot or --export (.png, .svg, "
               ".pdf: the board; .csv, .json: its data) run to --until (\"Tue 07:30\" or 36h; "
               "default the end) first."},
      compare{"compare",
              "With --incident: the scenario B to run beside A on the same seed (its faults and "
              "arrivals).",
              "SCENARIO"},
      set{"set", "With --incident: B is A (or --compare's) with this knob changed; repeatable.",
          "KNOB=VALUE"},
      pick{"pick",
           "With --incident and --screenshot: attribute the window at this moment (\"Tue 07:20\") "
           "and show the Attribution tab.",
           "TIME"},
      focus{"focus",
            "With --incident: zoom every chart to this phase of A's (e.g. sev1), as a click on it "
            "in the timeline does.",
            "PHASE"} {
    parser.setApplicationDescription(
        "TailLab: a desktop lab for tail latency.\n"
        "Exit codes: 0 done; 2 bad input (an unknown option, an option without the one it goes "
        "with, a file that cannot be read or written), said before any work; 1 an internal error.");
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument("scenario", "Scenario file, name or lab id (default: fanout)", "[SCENARIO]");
    for (const QCommandLineOption* option : {&screenshot, &exportTo, &size, &gateway, &until, &sweep, &chart,
                                             &theme, &live, &rate, &from, &incident, &compare, &set, &focus,
                                             &pick})
        parser.addOption(*option);
}

SizeArgument parseSize(const QString& text) {
    const auto m = QRegularExpression("^(\\d+)x(\\d+)$").match(text);
    if (!m.hasMatch()) return {std::nullopt, "--size expects WxH, e.g. 1440x900, not '" + text + "'"};
    // Compared as text first: a number too long for an int is too large, not malformed.
    auto side = [](const QString& digits) {
        bool ok = false;
        const qlonglong v = digits.length() > 12 ? -1 : digits.toLongLong(&ok);
        return ok ? v : qlonglong(-1);
    };
    const qlonglong w = side(m.captured(1)), h = side(m.captured(2));
    if (w < 0 || h < 0 || w > kMaxWindowSide || h > kMaxWindowSide)
        return {std::nullopt, QString("--size %1 is larger than taillab draws: at most %2 px a side "
                                      "(a chart's PNG export is drawn at twice its size, at most %3)")
                                  .arg(text)
                                  .arg(kMaxWindowSide)
                                  .arg(2 * kMaxWindowSide)};
    return {QSize(static_cast<int>(w), static_cast<int>(h)), QString()};
}

namespace {

// "--a", "--a and --b", "--a, --b and --c".
QString listed(const QStringList& names) {
    if (names.size() < 2) return names.join("");
    return names.mid(0, names.size() - 1).join(", ") + " and " + names.back();
}

// The options among `options` that are set, as "--name".
QStringList setAmong(const QCommandLineParser& parser, std::initializer_list<const QCommandLineOption*> options) {
    QStringList names;
    for (const QCommandLineOption* option : options)
        if (parser.isSet(*option)) names << "--" + option->names().first();
    return names;
}

QString outputProblem(const QString& option, const QString& path) {
    if (path.isEmpty()) return option + " needs a file path, found ''";
    if (const std::optional<std::string> why = taillab::writeProblem(path.toStdString()))
        return option + " " + path + ": " + QString::fromStdString(*why);
    return {};
}

}  // namespace

QString commandLineProblem(const QCommandLineParser& parser, const Options& o) {
    // Given twice, one value would be dropped without a word (--set adds one each time).
    for (const QCommandLineOption* option : {&o.screenshot, &o.exportTo, &o.size, &o.until, &o.chart, &o.theme,
                                             &o.rate, &o.from, &o.compare, &o.pick, &o.focus}) {
        const QStringList values = parser.values(*option);
        if (values.size() > 1)
            return QString("--%1 given twice ('%2', then '%3')").arg(option->names().first(), values[0], values[1]);
    }
    const QStringList positional = parser.positionalArguments();
    if (positional.size() > 1)
        return QString("one SCENARIO at most: '%1' is one too many after '%2'%3")
            .arg(positional[1], positional[0],
                 parser.isSet(o.incident) ? "; compare with --compare B" : "");
    if (setAmong(parser, {&o.incident, &o.gateway, &o.live}).size() > 1)
        return "use one of --incident, --gateway and --live";
    if (parser.isSet(o.screenshot) && parser.isSet(o.exportTo))
        return "use --screenshot or --export, not both";
    const bool scripted = parser.isSet(o.screenshot) || parser.isSet(o.exportTo);

    // Options that belong to one view.
    if (!parser.isSet(o.incident) && !setAmong(parser, {&o.compare, &o.set, &o.focus, &o.pick}).isEmpty())
        return "--compare, --set, --focus and --pick go with --incident";
    if (const QStringList live = setAmong(parser, {&o.rate, &o.from}); !live.isEmpty() && !parser.isSet(o.live))
        return listed(live) + (live.size() > 1 ? " go" : " goes") + " with --live";
    if (const QStringList gw = setAmong(parser, {&o.sweep, &o.chart}); !gw.isEmpty() && !parser.isSet(o.gateway))
        return listed(gw) + (gw.size() > 1 ? " go" : " goes") + " with --gateway";
    if (parser.isSet(o.until) && setAmong(parser, {&o.gateway, &o.incident, &o.live}).isEmpty())
        return "--until goes with --gateway, --incident or --live (the time to run to before "
               "--screenshot or --export)";
    // Options that only shape a scripted run: an interactive one plays from the start.
    if (parser.isSet(o.live) && parser.isSet(o.exportTo))
        return "--live grabs the window with --screenshot; it has no --export";
    if (const QStringList s = setAmong(parser, {&o.until, &o.sweep}); !s.isEmpty() && !scripted)
        return listed(s) + (s.size() > 1 ? " go" : " goes") +
               (parser.isSet(o.live) ? QString(" with --screenshot under --live")
                                     : QString(" with --screenshot or --export: an interactive run "
                                               "plays from the start"));
    if (parser.isSet(o.chart) && !parser.isSet(o.exportTo))
        return "--chart names the chart --export writes: add --export FILE";

    if (parser.isSet(o.size)) {
        if (const SizeArgument s = parseSize(parser.value(o.size)); !s.size) return s.problem;
    }
    if (parser.isSet(o.exportTo)) {
        const QString path = parser.value(o.exportTo);
        const QString ext = QFileInfo(path).suffix().toLower();
        if (!QStringList{"png", "svg", "pdf", "csv", "json"}.contains(ext))
            return "--export needs a .png, .svg, .pdf, .csv or .json file";
        if (QString p = outputProblem("--export", path); !p.isEmpty()) return p;
    }
    if (parser.isSet(o.screenshot))
        if (QString p = outputProblem("--screenshot", parser.value(o.screenshot)); !p.isEmpty()) return p;
    return {};
}

}  // namespace taillab::app
