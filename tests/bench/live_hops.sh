#!/usr/bin/env bash
# How long TailLab's gateway and nginx each hold a request on the pure proxy path of
# live_vs_nginx.sh (issue 9), read off their own socket calls: the two hops a proxy adds,
#   request hop  the last read of a client's request -> the first write of it to the engine
#   answer hop   the last read of the engine's answer -> the first write of the answer to the client
# and, after each of those writes, how long the proxy goes on before it sleeps again:
#   after request write   the write to the engine -> the next epoll_wait that may block
#   after answer write    the write to the client -> the same
# (the peer it just woke may be placed on the proxy's own core, and then waits that long to run),
# timed inside each proxy by tests/bench/hop_shim.c (LD_PRELOAD), not by a tracer (a traced
# syscall costs 10-30 us on these machines, more than the hops). A hop is the proxy's own time
# on the request as it runs on the wire: its code with the caches and TLBs other processes left
# it, not the kernel's wake-up before it or the loopback delivery after. End-to-end added p50
# (live_vs_nginx.sh) is these two hops plus the wake-ups and moves from round to round by tens of
# us; a hop's median moves by well under 1 us between runs, so a change to serve's path can be
# judged here in minutes.
#
# Each round starts each proxy afresh with the shim, warms it at RATE for 2 s, then times
# DURATION at RATE (TailLab's open-loop load generator, the same keys, engine and settings as
# live_vs_nginx.sh), and stops it so that it writes its log. Prints JSON: per path, each round's
# percentiles of each measure (p25/p50/p75/p90, us) and the median of the rounds' p50s; and,
# round by round, TailLab's p50 minus nginx's for each measure. With BASELINE_CLI set to another
# build's taillab-cli, its serve is timed too ("baseline"), in the same rounds, for an A/B.
# Usage:
#   tests/bench/live_hops.sh [RATE=1000] [DURATION=10s] [ROUNDS=3]   (env: TAILLAB_CLI, NGINX, CC)
set -euo pipefail

rate=${1:-1000}
duration=${2:-10s}
rounds=${3:-3}
scenario=gateway/week-v4-september
source "$(dirname "${BASH_SOURCE[0]}")/live_bench_lib.sh"
need_nginx
cc=${CC:-cc}
command -v "$cc" > /dev/null || { echo "no C compiler ($cc) to build the shim" >&2; exit 2; }
"$cc" -O2 -shared -fPIC -o "$work/hop_shim.so" "$here/tests/bench/hop_shim.c" -ldl

start_fleet "$scenario" "${proxy_engine[@]}"
atlas=$(engine_url atlas)
engine_port=$(url_port "$atlas")
upstream_args
api_keys "$scenario" "$work/keys.txt" 50
# An nginx left running by a failed round is stopped with the rest.
trap 'for f in "$work"/nginx-*/nginx.pid; do [ -f "$f" ] && kill "$(cat "$f")" 2> /dev/null; done; cleanup' EXIT
# nginx's workers run as nobody when it is started as root: they must be able to reach and write
# their log.
chmod o+x "$work"
mkdir -m 1777 "$work/logs"

paths=(taillab nginx)
if [ -n "${BASELINE_CLI:-}" ]; then
    [ -x "$BASELINE_CLI" ] || { echo "no taillab-cli at BASELINE_CLI=$BASELINE_CLI" >&2; exit 2; }
    paths+=(baseline)
fi

# time NAME ROUND: one proxy under the shim, warmed up, timed, stopped. Its log (one file per
# process, NAME-ROUND.PID) and the monotonic time the timed load began go to $work/logs.
time_path() {
    local name=$1 round=$2 port url pid
    port=$(free_port)
    local log="$work/logs/$name-$round"
    case $name in
        taillab | baseline)
            local bin=$cli
            [ "$name" = baseline ] && bin=$BASELINE_CLI
            HOP_LOG=$log LD_PRELOAD=$work/hop_shim.so "$bin" serve "$scenario" --listen "127.0.0.1:$port" \
                "${proxy_engine[@]}" "${proxy_serve[@]}" "${ups[@]}" > "$work/$name.out" 2> "$work/$name.err" &
            pid=$!
            pids+=("$pid")
            for _ in $(seq 50); do [ -s "$work/$name.out" ] && break; sleep 0.1; done
            url="http://127.0.0.1:$port/search/lite"
            ;;
        nginx)
            mkdir -p "$work/nginx-$round"
            nginx_conf "$work/nginx-$round" "$port" "$engine_port" on
            HOP_LOG=$log LD_PRELOAD=$work/hop_shim.so "$nginx" -c "$work/nginx-$round/nginx.conf" \
                -p "$work/nginx-$round" -e "$work/nginx-$round/nginx-error.log"
            url="http://127.0.0.1:$port/engines/atlas/search"
            ;;
    esac
    echo "== round $round, $name: $url at $rate/s for $duration" >&2
    "$cli" load "$url" --rate "$rate" --duration 2s --quiet --keys-file "$work/keys.txt" > /dev/null
    python3 -c 'import time; print(time.clock_gettime_ns(time.CLOCK_MONOTONIC))' > "$log.from"
    "$cli" load "$url" --rate "$rate" --duration "$duration" --quiet --keys-file "$work/keys.txt" \
        --json "$log.load.json" > /dev/null
    if [ "$name" = nginx ]; then
        # A graceful stop: the worker finishes and exits, which writes its log.
        local master
        master=$(cat "$work/nginx-$round/nginx.pid")
        kill -QUIT "$master"
        for _ in $(seq 100); do kill -0 "$master" 2> /dev/null || break; sleep 0.1; done
    else
        kill "$pid"
        wait "$pid" || true
    fi
}

for round in $(seq "$rounds"); do
    for name in "${paths[@]}"; do time_path "$name" "$round"; done
done

python3 - "$work/logs" "$rate" "$duration" "$rounds" "${paths[@]}" <<'PY'
import glob, json, os, statistics, struct, sys

logs, rate, duration, rounds, paths = sys.argv[1], float(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5:]
RECV, SEND, ACCEPT, CONNECT, WAIT = 1, 2, 3, 4, 5
event = struct.Struct("<qqiiq")  # start_ns, end_ns, kind, fd (a wait's timeout), result (hop_shim.c's HopEvent)
MEASURES = ("request_hop", "answer_hop", "after_request_write", "after_answer_write")

def hops(prefix):
    """The request and answer hops and the times after each write until the next wait that may
    block (us) in the log of the process that did the proxying (the one with the most calls:
    nginx's worker, not its master), from the timed load on."""
    files = [f for f in glob.glob(prefix + ".*") if f.rsplit(".", 1)[1].isdigit()]
    if not files:
        sys.exit(f"no log at {prefix}.PID: did the proxy exit cleanly?")
    data = max((open(f, "rb").read() for f in files), key=len)
    since = int(open(prefix + ".from").read())
    calls = sorted(event.iter_unpack(data))
    role = {}  # fd -> "client" (accepted) or "upstream" (connected)
    read_at = {"client": None, "upstream": None}  # end of the last read with bytes, by role
    out = {m: [] for m in MEASURES}
    written = None  # (measure, end) of the last write to a client or the engine, until a wait
    for start, end, kind, fd, result in calls:
        if kind == WAIT:
            if fd != 0:  # a timeout of 0 only polls
                if written is not None and written[1] >= since:
                    out[written[0]].append((start - written[1]) / 1000)
                written = None
        elif kind == ACCEPT:
            if result >= 0:
                role[result] = "client"
        elif kind == CONNECT:
            role[fd] = "upstream"
        elif fd in role and result > 0:
            r = role[fd]
            if kind == RECV:
                read_at[r] = end
            elif kind == SEND:
                # A write to the engine ends a request hop; one to a client, an answer hop.
                source = "client" if r == "upstream" else "upstream"
                hop = "request" if r == "upstream" else "answer"
                if read_at[source] is not None:
                    if read_at[source] >= since:
                        out[hop + "_hop"].append((start - read_at[source]) / 1000)
                    read_at[source] = None
                written = ("after_" + hop + "_write", end)
    return out

def median_of(values):
    """The median of the values there are (a measure with no sample in a round has none)."""
    v = [x for x in values if x is not None]
    return round(statistics.median(v), 2) if v else None

def summary(values):
    v = sorted(values)
    n = len(v)
    if n == 0:
        return {"n": 0}
    return {"n": n, "p25_us": round(v[n // 4], 2), "p50_us": round(v[n // 2], 2),
            "p75_us": round(v[3 * n // 4], 2), "p90_us": round(v[9 * n // 10], 2)}

out = {"rate_per_s": rate, "duration": duration, "rounds": rounds,
       "note": "time each proxy holds a request between its socket calls (LD_PRELOAD shim), us",
       "paths": {}}
for name in paths:
    per_round = []
    for r in range(1, rounds + 1):
        h = hops(f"{logs}/{name}-{r}")
        load = json.load(open(f"{logs}/{name}-{r}.load.json"))
        per_round.append({"statuses": load["statuses"], **{m: summary(h[m]) for m in MEASURES}})
    out["paths"][name] = {"rounds": per_round, **{m + "_p50_us": median_of(x[m].get("p50_us") for x in per_round)
                                                  for m in MEASURES}}

def paired(a, b):
    res = {}
    for hop in MEASURES:
        d = [x[hop]["p50_us"] - y[hop]["p50_us"] if "p50_us" in x[hop] and "p50_us" in y[hop] else None
             for x, y in zip(out["paths"][a]["rounds"], out["paths"][b]["rounds"])]
        res[hop] = {"by_round_us": [None if x is None else round(x, 2) for x in d], "median_us": median_of(d)}
    res["both_hops_median_us"] = round(statistics.median(
        x["request_hop"]["p50_us"] + x["answer_hop"]["p50_us"] - y["request_hop"]["p50_us"] - y["answer_hop"]["p50_us"]
        for x, y in zip(out["paths"][a]["rounds"], out["paths"][b]["rounds"])), 2)
    return res

out["taillab_minus_nginx"] = paired("taillab", "nginx")
if "baseline" in out["paths"]:
    out["taillab_minus_baseline"] = paired("taillab", "baseline")
print(json.dumps(out, indent=2))
PY
