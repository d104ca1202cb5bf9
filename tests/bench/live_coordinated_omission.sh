#!/usr/bin/env bash
# Is the live load generator honest about a stall? (issue 9)
#
# A real HTTP server with a constant service time and one scheduled stall, driven by
# `taillab-cli load` open loop, against the coordinated-omission lab's model of the same thing
# (core/labs/coordinated_omission_model.h: one FIFO server, constant service s, a fixed schedule
# at rate R, no work during [T, T+S)).
#
# The server is the emulated fleet (`taillab-cli fleet`) reduced to one engine slot: atlas with a
# 1 ms lognormal of sigma 0.01 (the smallest the knob takes), no slow moments, faults, invalid
# answers, class slowness or egress limits, and engine_capacity 1, so calls wait in a FIFO queue
# exactly like the lab's server. The stall is `POST /admin/faults` with capacity_lost share 1 for
# S seconds, sent T seconds after the load starts: no call starts during it, the queue grows,
# and it drains at 1/s - R per second afterwards. (The lab's stall also freezes the call in
# service when it begins; here that call finishes: at most one service time of difference.)
#
# The lab's figures are computed here by the same model (deterministic: the closed form the
# header describes, evaluated request by request), with HdrHistogram's percentile rank
# max(1, round(p N)), and `taillab-cli run labs/coordinated-omission` with the same params is
# run beside them as a cross-check of p50, p99 and p99.9. Two model services are shown: the
# nominal s (1 ms) and a calibrated one, the live run's own corrected p50 (the nominal service
# plus loopback HTTP and timer overhead), which is what a request costs the server here.
#
# Corrected (timed from the intended send time) should match the open-loop model; uncorrected
# (timed from when the request got a connection) is what a closed-loop tool reports. With
# --connections 1 (the default here) the generator's uncorrected figures are exactly the lab's
# closed loop that sends missed slots late; with more connections they lie in between.
#
# Usage: tests/bench/live_coordinated_omission.sh [RATE=200] [DURATION_S=20] [STALL_AT_S=8]
#            [STALL_S=2] [CONNECTIONS=1] [REPEATS=1]     (env: TAILLAB_CLI)
# Prints JSON: per repeat the live corrected and uncorrected p50/p90/p99/p99.9 and share above
# 100 ms, the models' figures and the relative differences (live - model) / model.
# Timings are wall-clock on a shared machine: repeat (REPEATS) to see the spread.
set -euo pipefail

rate=${1:-200}
duration=${2:-20}
stall_at=${3:-8}
stall=${4:-2}
connections=${5:-1}
repeats=${6:-1}
service_ms=1
scenario=gateway/week-v4-september
source "$(dirname "${BASH_SOURCE[0]}")/live_bench_lib.sh"
python3 -c "assert $stall_at + $stall + 2 * $stall < $duration" 2>/dev/null ||
    { echo "the stall and its drain must end well before the run: STALL_AT_S + 3 STALL_S < DURATION_S" >&2; exit 2; }

engine=(--set params.atlas_median_ms=$service_ms --set params.atlas_sigma=0.01
        --set params.atlas_slow_probability=0 --set params.atlas_invalid_rate=0
        --set params.slow_multiplier=0 --set params.fault_multiplier=0 --set params.class_variability=0
        --set params.engine_correlation=0 --set params.engine_capacity=1
        --set params.egress_ip_rate_per_s=1000000 --set params.egress_ip_burst=1000000)

start_fleet "$scenario" "${engine[@]}"
atlas=$(engine_url atlas)
admin=$(echo "$atlas" | sed -E 's|(http://127.0.0.1:[0-9]+)/.*|\1|')

conn=()
[ "$connections" -gt 0 ] && conn=(--connections "$connections")
for i in $(seq "$repeats"); do
    echo "== repeat $i: $atlas at $rate/s for ${duration}s, ${stall}s stall at ${stall_at}s" >&2
    "$cli" load "$atlas" --rate "$rate" --duration "${duration}s" "${conn[@]}" --quiet \
        --json "$work/load-$i.json" > /dev/null &
    load=$!
    sleep "$stall_at"
    curl -sf -X POST "$admin/admin/faults" -H 'Content-Type: application/json' \
        -d "{\"id\": \"co-stall-$i\", \"target\": {\"engine\": \"atlas\"}, \"effect\": \"capacity_lost\", \"share\": 1, \"duration_s\": $stall}" \
        > /dev/null
    wait "$load"
done
curl -sf "$admin/admin/state" > "$work/state.json"

"$cli" run labs/coordinated-omission --set params.rate_per_s="$rate" --set params.duration_s="$duration" \
    --set params.service_ms="$service_ms" --set params.stall_at_s="$stall_at" --set params.stall_s="$stall" \
    --set params.closed_loop_missed=send_late --out "$work/lab.json" > /dev/null 2> "$work/lab.err" ||
    { cat "$work/lab.err" >&2; exit 1; }

python3 - "$work" "$rate" "$duration" "$stall_at" "$stall" "$service_ms" "$repeats" "$connections" <<'PY'
import json, math, sys
work = sys.argv[1]
rate, duration, stall_at, stall, service_ms = map(float, sys.argv[2:7])
repeats, connections = int(sys.argv[7]), int(sys.argv[8])

def model(service_ms):
    """The lab's model, request by request (times in ns, as core/labs/coordinated_omission_model.cpp)."""
    ns_per_slot = 1e9 / rate
    count = math.ceil(duration * 1e9 / ns_per_slot)
    s, T, S = service_ms * 1e6, stall_at * 1e9, stall * 1e9
    def serve(free, arrival):
        start = max(arrival, free)
        if T <= start < T + S: start = T + S
        done = start + s
        if start < T < done: done += S
        return done
    slots = [round(j * ns_per_slot) for j in range(count)]
    open_loop, closed_late = [], []
    free = 0
    for t in slots:  # open loop: every request at its slot, timed from it
        free = serve(free, t)
        open_loop.append((free - t) / 1e6)
    free = 0
    for t in slots:  # closed loop, missed slots sent late: timed from the actual send
        sent = max(t, free)
        free = serve(free, sent)
        closed_late.append((free - sent) / 1e6)
    return {"open_loop": figures(open_loop), "closed_loop_send_late": figures(closed_late)}

def figures(values):
    v = sorted(values)
    n = len(v)
    at = lambda p: v[max(1, round(p / 100 * n)) - 1]
    return {"count": n, "p50_ms": at(50), "p90_ms": at(90), "p99_ms": at(99), "p99_9_ms": at(99.9),
            "max_ms": v[-1], "share_above_100_ms": sum(x > 100 for x in v) / n}

keys = ("p50_ms", "p90_ms", "p99_ms", "p99_9_ms", "share_above_100_ms")
def live(block):
    return {k: block[k] for k in keys[:-1]} | {"max_ms": block["max_ms"],
                                                "share_above_100_ms": block["share_above_ms"]["100"]}
def rel(a, b):
    return {k: (round((a[k] - b[k]) / b[k], 4) if b[k] else None) for k in keys}
def diff_ms(a, b):
    return {k: round(a[k] - b[k], 3) for k in keys[:-1]}

lab = json.load(open(f"{work}/lab.json"))
labfig = {f["name"] if isinstance(f, dict) else f[0]: (f["value"] if isinstance(f, dict) else f[1])
          for f in lab["figures"]} if isinstance(lab.get("figures"), list) else lab.get("figures", {})
nominal = model(service_ms)
out = {"rate_per_s": rate, "duration_s": duration, "stall_at_s": stall_at, "stall_s": stall,
       "service_ms": service_ms, "connections": connections or "generator default",
       "note": "wall-clock figures on a shared 2-core machine; compare repeats for the spread",
       "lab_run": {k: labfig.get(k) for k in ("open_loop_p50_ms", "open_loop_p99_ms", "open_loop_p999_ms",
                                               "closed_loop_p99_ms", "closed_loop_max_ms")},
       "model_nominal": nominal, "repeats": []}
out["lab_run_vs_model"] = {
    "open_loop_p99_rel": round(labfig["open_loop_p99_ms"] / nominal["open_loop"]["p99_ms"] - 1, 5),
    "open_loop_p999_rel": round(labfig["open_loop_p999_ms"] / nominal["open_loop"]["p99_9_ms"] - 1, 5)}
for i in range(1, repeats + 1):
    r = json.load(open(f"{work}/load-{i}.json"))
    corrected, uncorrected = live(r["corrected"]), live(r["uncorrected"])
    calibrated = model(r["corrected"]["p50_ms"])
    rep = {"sent": r["sent"], "answered": r["answered"], "failed": r["failed"], "statuses": r["statuses"],
           "lag_p99_ms": r["scheduling_lag"]["p99_ms"], "generator_bottleneck": r["generator_bottleneck"],
           "live_corrected": corrected, "live_uncorrected": uncorrected,
           "corrected_vs_open_loop": rel(corrected, nominal["open_loop"]),
           "corrected_minus_open_loop_ms": diff_ms(corrected, nominal["open_loop"]),
           "uncorrected_vs_closed_loop": rel(uncorrected, nominal["closed_loop_send_late"]),
           "calibrated_service_ms": r["corrected"]["p50_ms"],
           "model_calibrated_open_loop": calibrated["open_loop"],
           "corrected_vs_calibrated_open_loop": rel(corrected, calibrated["open_loop"])}
    tail = ("p99_ms", "p99_9_ms", "share_above_100_ms")
    rep["tail_within_5pct_of_open_loop"] = all(abs(rep["corrected_vs_open_loop"][k]) <= 0.05 for k in tail)
    rep["all_within_5pct_of_calibrated"] = all(
        v is not None and abs(v) <= 0.05 for v in rep["corrected_vs_calibrated_open_loop"].values())
    rep["closed_loop_illusion"] = {"uncorrected_p99_ms": uncorrected["p99_ms"],
                                   "corrected_p99_ms": corrected["p99_ms"]}
    out["repeats"].append(rep)
out["fleet_state_counts"] = json.load(open(f"{work}/state.json")).get("counts")
print(json.dumps(out, indent=2))
PY
