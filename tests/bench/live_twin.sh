#!/usr/bin/env bash
# Twin agreement (issue 9): week-v4-september run simulated and live on the same arrivals with
# `taillab-cli twin`, at rising rates, and the rows side by side. Each point starts cold at its
# time on the scenario's clock; the rate is a mean over the window (load_multiplier scales the
# workload's hours, at most 50x: Mon 00:00 reaches about 37 req/s, Tue 14:00 about 188, and twin
# refuses a point beyond that). Prints one JSON object: per point the asked and sent rate,
# whether every row is within its tolerance, and each row's simulated and live value. Usage:
#   tests/bench/live_twin.sh [DURATION=30s] [POINTS="0h:30 38h:100 38h:185"]   (env: TAILLAB_CLI)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cli=${TAILLAB_CLI:-$here/build/app/taillab-cli}
duration=${1:-30s}
points=${2:-"0h:30 38h:100 38h:185"}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -x "$cli" ] || { echo "no taillab-cli at $cli (build first)" >&2; exit 2; }

n=0
for point in $points; do
    start=${point%%:*}
    rate=${point##*:}
    # Exit 3 says the live run diverged: a figure, not a failure of the bench.
    "$cli" twin gateway/week-v4-september --duration "$duration" --rate "$rate" --start-at "$start" \
        --out "$work/point$n.json" >"$work/point$n.txt" 2>&1 || [ $? -eq 3 ]
    n=$((n + 1))
done

python3 - "$work" "$n" <<'PY'
import json, sys
work, n = sys.argv[1], int(sys.argv[2])
out = {"bench": "live_twin", "scenario": "gateway/week-v4-september", "points": []}
for i in range(n):
    d = json.load(open(f"{work}/point{i}.json"))
    point = {"start_at_s": d["start_at_s"], "duration_s": d["duration_s"],
             "rate_asked_per_s": d["rate_asked_per_s"], "rate_per_s": round(d["rate_per_s"], 1),
             "requests": d["requests"], "agrees": d["agrees"],
             "lag_p99_ms": d["live"]["load"]["scheduling_lag"].get("p99_ms"), "rows": {}}
    for r in d["rows"]:
        point["rows"][r["figure"]] = {"simulated": round(r["simulated"], 3), "live": round(r["live"], 3),
                                      "within": r["within"], **({"verdict": r["verdict"]} if r["verdict"] else {})}
    point["stage_means_ms"] = {s["stage"]: [round(s["simulated_ms"], 2), round(s["live_ms"], 2)]
                               for s in d["stage_means"]}
    out["points"].append(point)
print(json.dumps(out, indent=2))
PY
