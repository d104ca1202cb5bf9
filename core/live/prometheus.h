// /metrics: a gateway snapshot in Prometheus text exposition format (version 0.0.4), for the live
// gateway. Latency is a histogram per query class in seconds (class="unclassified": requests
// refused before their query was classified, so that every request is counted once), read from
// the snapshot's HDR histograms (bucket counts are exact up to the HDR histogram's precision, 3
// significant digits; _sum is the HDR mean times the count); everything else is counters and
// gauges named after the snapshot's fields. `promtool check metrics` accepts the output (tested).
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "gateway/snapshot.h"
#include "knobs/knob.h"

namespace taillab::live {

// `refused`: requests answered before the gateway saw them, by HTTP status (malformed HTTP or
// JSON, an unknown path, an oversized request, a read timeout, a full server), as
// taillab_http_refused_total{status}; with taillab_requests_total they count every answer.
// The snapshot's timeline shows as taillab_timeline_events_total{kind} (the marks up to its now).
// `knobs`: the knobs in force, when given, as taillab_knob_value{knob} (numbers, switches as 0 or
// 1) and taillab_knob_choice{knob,choice} (1 for the current choice), so that a change made
// through POST /admin/knobs or the timeline shows when it happened.
std::string prometheusText(const gateway::GatewaySnapshot& s, const std::map<int, std::uint64_t>& refused = {},
                           const Params* knobs = nullptr);

}  // namespace taillab::live
