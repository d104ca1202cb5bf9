#!/usr/bin/env bash
# Soak: the three live programs as three processes, the gateway overloaded for a long time
# (issue 9). `taillab-cli fleet` (the scenario's emulated engines) + `taillab-cli serve` (the
# gateway) + `taillab-cli load` open loop at RATE, usually twice what the gateway serves on this
# machine, for DURATION_S seconds, with every API key of the scenario in rotation.
#
# Every 10 s: the serve process's VmRSS (/proc/PID/status) and one probe search with curl (its
# status, Retry-After, and whether a 200 carries results). At the end, checks:
#   rss_flat           after warm-up (the first WARMUP_S, default a fifth of the run) the RSS
#                      samples of the run's second half stay within RSS_TOLERANCE (10%) of their
#                      own minimum, and the first-half-after-warm-up to second-half growth of the
#                      mean is under that tolerance too; the least-squares slope is printed
#                      (a slow creep remains while the preallocated per-key latency histograms,
#                      about 2.6 MB, get their pages touched: heaptrack shows the heap flat)
#   statuses_allowed   the generator saw only 200, 429 and 503, and no failure (refused, reset,
#                      timeout, malformed: a connection dropped without a status)
#   probes_well_formed every probe's 503 and 429 had Retry-After, and every probe's 200 had a
#                      non-empty "results"
#   conservation       the serve summary's accepted == answered + rejected + failed
#   metrics_match      /metrics outcomes (read after the load ends) == the generator's statuses plus
#                      the probes': ok == 200s, rate_limited == 429s, shed + deadline_missed +
#                      no_engine == 503s, nothing else, in_flight 0; and their sum == accepted
# Prints JSON; exit 1 when a check fails. Timings are wall-clock on a shared machine.
#
# Usage: tests/bench/live_soak.sh RATE [DURATION_S=600] [WARMUP_S=DURATION_S/5]
#        (env: TAILLAB_CLI, SCENARIO=gateway/week-v4-september, RSS_TOLERANCE=0.10)
# Find RATE first: the rate the gateway serves with (almost) every request a 200 in a short run,
# e.g. tests/bench/live_vs_nginx.sh's search with the full scenario, then double it.
set -euo pipefail

rate=${1:?usage: live_soak.sh RATE [DURATION_S] [WARMUP_S]}
duration=${2:-600}
warmup=${3:-$((duration / 5))}
scenario=${SCENARIO:-gateway/week-v4-september}
tolerance=${RSS_TOLERANCE:-0.10}
source "$(dirname "${BASH_SOURCE[0]}")/live_bench_lib.sh"

start_fleet "$scenario"
upstream_args

port=$(free_port)
"$cli" serve "$scenario" --listen "127.0.0.1:$port" "${ups[@]}" > "$work/serve.out" 2> "$work/serve.err" &
serve=$!
pids+=($serve)
for _ in $(seq 100); do [ -s "$work/serve.out" ] && break; sleep 0.1; done
[ -s "$work/serve.out" ] || { cat "$work/serve.err" >&2; exit 1; }
url="http://127.0.0.1:$port/search/lite"
api_keys "$scenario" "$work/keys.txt"
probe_key=$(head -1 "$work/keys.txt")

echo "== soak: $url at $rate/s for ${duration}s ($(wc -l < "$work/keys.txt") keys)" >&2
"$cli" load "$url" --rate "$rate" --duration "${duration}s" --keys-file "$work/keys.txt" --quiet --json "$work/load.json" \
    > "$work/load.out" 2> "$work/load.err" &
load=$!
pids+=($load)
start=$(date +%s.%N)
: > "$work/rss.txt"
: > "$work/probes.txt"
n=0
while kill -0 "$load" 2>/dev/null; do
    t=$(python3 -c "import time; print(round(time.time() - $start, 1))")
    rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$serve/status")
    echo "$t $rss" >> "$work/rss.txt"
    # One probe: status, Retry-After and body, as a client would see them.
    code=$(curl -s -o "$work/probe.body" -D "$work/probe.head" -w '%{http_code}' -X POST "$url" \
        -H "Authorization: Bearer $probe_key" -H 'Content-Type: application/json' \
        -d "{\"query\": \"soak probe $n\"}" --max-time 15 || echo 000)
    retry=$(grep -ci '^retry-after:' "$work/probe.head" || true)
    results=$(python3 -c "import json,sys
try: print(len(json.load(open(sys.argv[1])).get('results') or []))
except Exception: print(-1)" "$work/probe.body")
    echo "$t $code $retry $results" >> "$work/probes.txt"
    n=$((n + 1))
    # Sleep to the next multiple of 10 s from the start.
    sleep "$(python3 -c "import time; e = time.time() - $start; print(max(0.1, 10 - e % 10))")"
done
wait "$load" || { echo "load failed:" >&2; cat "$work/load.err" >&2; exit 1; }
curl -sf "http://127.0.0.1:$port/metrics" > "$work/metrics.txt"
kill -TERM "$serve"
wait "$serve" || true
promtool=$(command -v promtool || true)
promtool_ok=null
if [ -n "$promtool" ]; then
    if "$promtool" check metrics < "$work/metrics.txt" > "$work/promtool.out" 2>&1; then promtool_ok=true; else promtool_ok=false; fi
fi

python3 - "$work" "$rate" "$duration" "$warmup" "$tolerance" "$promtool_ok" <<'PY'
import json, re, sys
work, rate, duration, warmup, tol = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
promtool_ok = json.loads(sys.argv[6])
load = json.load(open(f"{work}/load.json"))
rss = [(float(t), int(kb)) for t, kb in (l.split() for l in open(f"{work}/rss.txt") if l.strip())]
probes = [l.split() for l in open(f"{work}/probes.txt") if l.strip()]
metrics = open(f"{work}/metrics.txt").read()
summary = open(f"{work}/serve.err").read()

after = [(t, kb) for t, kb in rss if t >= warmup]
half = duration / 2
second = [kb for t, kb in after if t >= half]
first = [kb for t, kb in after if t < half] or second
mean = lambda xs: sum(xs) / len(xs)
n = len(after)
if n >= 2:
    mt, mk = mean([t for t, _ in after]), mean([kb for _, kb in after])
    slope = sum((t - mt) * (kb - mk) for t, kb in after) / max(1e-9, sum((t - mt) ** 2 for t, _ in after))
else:
    slope = 0.0
rss_check = {
    "samples": len(rss), "warmup_s": warmup, "tolerance": tol,
    "min_kb": min(kb for _, kb in rss), "max_kb": max(kb for _, kb in rss),
    "after_warmup_min_kb": min(kb for _, kb in after) if after else None,
    "after_warmup_max_kb": max(kb for _, kb in after) if after else None,
    "second_half_min_kb": min(second) if second else None, "second_half_max_kb": max(second) if second else None,
    "first_to_second_half_mean_growth": round(mean(second) / mean(first) - 1, 4) if second else None,
    "slope_kb_per_min": round(slope * 60, 1),
    "series_kb": [kb for _, kb in rss],
}
rss_flat = bool(second) and max(second) <= min(second) * (1 + tol) and \
    rss_check["first_to_second_half_mean_growth"] <= tol

statuses = {int(k): v for k, v in load["statuses"].items()}
failures = {k: v for k, v in load["failures"].items() if v}
statuses_allowed = set(statuses) <= {200, 429, 503} and load["failed"] == 0

probe_statuses = {}
bad_probes = []
for t, code, retry, results in probes:
    code, retry, results = int(code), int(retry), int(results)
    probe_statuses[code] = probe_statuses.get(code, 0) + 1
    if code in (429, 503) and retry < 1: bad_probes.append(f"{t}s: {code} without Retry-After")
    elif code == 200 and results < 1: bad_probes.append(f"{t}s: 200 without results")
    elif code not in (200, 429, 503): bad_probes.append(f"{t}s: status {code}")

outcomes = {m.group(1): int(float(m.group(2)))
            for m in re.finditer(r'^taillab_requests_total\{outcome="([a-z_]+)"\} (\S+)$', metrics, re.M)}
in_flight = int(float(re.search(r'^taillab_requests_in_flight (\S+)$', metrics, re.M).group(1)))
m = re.search(r"stopped after (\d+) searches \((\d+) answered, (\d+) rejected, (\d+) failed\)", summary)
accepted, answered, rejected, failed = map(int, m.groups()) if m else (None,) * 4
conservation = m is not None and accepted == answered + rejected + failed

both = lambda code: statuses.get(code, 0) + probe_statuses.get(code, 0)
expected = {"ok": both(200), "rate_limited": both(429),
            "shed+deadline_missed+no_engine": both(503)}
seen = {"ok": outcomes.get("ok", 0), "rate_limited": outcomes.get("rate_limited", 0),
        "shed+deadline_missed+no_engine": sum(outcomes.get(k, 0) for k in ("shed", "deadline_missed", "no_engine"))}
others = {k: v for k, v in outcomes.items() if k not in ("ok", "rate_limited", "shed", "deadline_missed", "no_engine") and v}
metrics_match = expected == seen and not others and in_flight == 0 and sum(outcomes.values()) == accepted

out = {
    "rate_per_s": rate, "duration_s": duration,
    "note": "wall-clock figures on a shared 2-core machine (other builds running)",
    "load": {"intended": load["intended"], "sent": load["sent"], "answered": load["answered"],
             "failed": load["failed"], "statuses": load["statuses"], "failures": failures,
             "achieved_rate_per_s": round(load["sent"] / load["elapsed_s"], 1),
             "corrected": load["corrected"], "scheduling_lag": load["scheduling_lag"],
             "generator_bottleneck": load["generator_bottleneck"]},
    "probes": {"count": len(probes), "statuses": probe_statuses, "problems": bad_probes},
    "serve_summary": {"accepted": accepted, "answered": answered, "rejected": rejected, "failed": failed},
    "metrics": {"outcomes": outcomes, "in_flight": in_flight, "promtool_check_ok": promtool_ok},
    "metrics_expected_from_clients": expected,
    "rss": rss_check,
    "checks": {"rss_flat": rss_flat, "statuses_allowed": statuses_allowed,
               "probes_well_formed": not bad_probes, "conservation": conservation,
               "metrics_match": metrics_match},
}
print(json.dumps(out, indent=2))
sys.exit(0 if all(out["checks"].values()) else 1)
PY
