// taillab's command line: its options in --help's order, and what it asks that taillab would not
// do as asked, found before a window opens.
#pragma once

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QSize>
#include <QString>
#include <optional>
#include <string>

namespace taillab::app {

// The largest --size, a side. A chart's PNG export is drawn at twice the chart's size and 16384
// px a side is the most an image export takes (a 16384x16384 image is 1 GiB), so the window
// stays within half of that. A larger one used to ask the display for gigabytes and hang.
inline constexpr int kMaxWindowSide = 8192;

// Exit codes: 0 done, 2 bad input (said on stderr before any work), 1 a failure of taillab's own
// (an export that could not be written after all, a run that did not finish in time).
inline constexpr int kExitOk = 0;
inline constexpr int kExitInternal = 1;
inline constexpr int kExitBadInput = 2;

// The gateway's chart ids, for --chart: "gateway_percentiles, gateway_latency_nines, ...".
std::string chartIdList();

// The command line's options, added to a parser in --help's order.
struct Options {
    explicit Options(QCommandLineParser& parser);

    const QCommandLineOption screenshot;
    const QCommandLineOption exportTo;
    const QCommandLineOption size;
    const QCommandLineOption gateway;
    const QCommandLineOption until;
    const QCommandLineOption sweep;
    const QCommandLineOption chart;
    const QCommandLineOption theme;
    const QCommandLineOption live;
    const QCommandLineOption rate;
    const QCommandLineOption from;
    const QCommandLineOption incident;
    const QCommandLineOption compare;
    const QCommandLineOption set;
    const QCommandLineOption pick;
    const QCommandLineOption focus;
};

// --size's WxH, or the reason it is refused: not of that form, or more than kMaxWindowSide a side.
struct SizeArgument {
    std::optional<QSize> size;
    QString problem;
};
SizeArgument parseSize(const QString& text);

// What a parsed command line asks that taillab would not do as asked, as the message to print
// (without "taillab: "); "" when there is none. An option that means nothing without another
// (--until without --gateway, --incident or --live, or without --screenshot or --export), one
// given twice, a second SCENARIO, a --size too large, an output file that cannot be written:
// each would otherwise be ignored, or fail after the run.
QString commandLineProblem(const QCommandLineParser& parser, const Options& o);

}  // namespace taillab::app
