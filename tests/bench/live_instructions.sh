#!/usr/bin/env bash
# How much user-space work a request costs TailLab's gateway and nginx on the pure proxy path of
# live_vs_nginx.sh (issue 9), counted by callgrind instead of timed: instructions per request and
# the code it runs (distinct 64-byte lines of machine code executed). On these 2-core machines a
# round of live_vs_nginx.sh moves TailLab's p50 against nginx's by tens of µs from one round to
# the next, more than the gap being chased; an instruction count moves by well under 1% between
# runs, so a change to the request or answer path can be judged here first.
#
# Each proxy runs under `valgrind --tool=callgrind` in front of the same emulated engine (the
# proxy path's settings, which live_bench_lib.sh shares with live_vs_nginx.sh); TailLab's load
# generator warms it up for 2 s, its counters are zeroed, then RATE req/s for DURATION are
# counted and dumped. nginx runs as one process (master_process off): its worker is the whole of
# its work, as serve's loop thread is most of serve's. Counts are of every thread of the process,
# user space only (the kernel's part, the syscalls, is not seen by callgrind).
# Prints JSON: per path, instructions per request, distinct code lines and 4 KiB code pages
# executed in the window, the objects they are in, and the 12 functions with the most
# instructions of their own per request. With BASELINE_CLI set to another build's taillab-cli,
# its serve is counted too ("baseline"), under the same load, for an A/B. With CG_DIR set, each
# path's callgrind file is kept there as NAME.cg, to read with callgrind_annotate --inclusive=yes.
# Usage:
#   tests/bench/live_instructions.sh [RATE=100] [DURATION=20s]   (env: TAILLAB_CLI, NGINX)
set -euo pipefail

rate=${1:-100}
duration=${2:-20s}
scenario=gateway/week-v4-september
source "$(dirname "${BASH_SOURCE[0]}")/live_bench_lib.sh"
need_nginx
command -v valgrind > /dev/null || { echo "no valgrind (apt-get install valgrind)" >&2; exit 2; }
command -v callgrind_control > /dev/null || { echo "no callgrind_control (valgrind)" >&2; exit 2; }

start_fleet "$scenario" "${proxy_engine[@]}"
atlas=$(engine_url atlas)
engine_port=$(url_port "$atlas")
upstream_args
api_keys "$scenario" "$work/keys.txt" 50

# measure NAME URL PORT [load options...] -- COMMAND...: COMMAND under callgrind, listening on
# PORT; its counts in the window go to $work/NAME.cg, the load generator's result to NAME.json.
measure() {
    local name=$1 url=$2 port=$3
    shift 3
    local load=()
    while [ "$1" != -- ]; do load+=("$1"); shift; done
    shift
    echo "== $name under callgrind: $url" >&2
    valgrind --tool=callgrind --dump-instr=yes --callgrind-out-file="$work/$name.cg.%p" "$@" \
        > "$work/$name.out" 2> "$work/$name.err" &
    local vg=$!
    pids+=("$vg")
    local up=0
    for _ in $(seq 300); do  # valgrind takes seconds to start a program
        python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 0.2)" 2> /dev/null && { up=1; break; }
        kill -0 "$vg" 2> /dev/null || break  # it has exited
        sleep 0.2
    done
    if [ "$up" = 0 ]; then
        echo "$name did not start listening on $port under valgrind:" >&2
        tail -20 "$work/$name.err" >&2
        exit 1
    fi
    "$cli" load "$url" --rate "$rate" --duration 2s --quiet "${load[@]}" > /dev/null
    callgrind_control --zero "$vg" > /dev/null
    "$cli" load "$url" --rate "$rate" --duration "$duration" --quiet --json "$work/$name.json" "${load[@]}" > /dev/null
    callgrind_control --dump=window "$vg" > /dev/null
    kill -INT "$vg" 2> /dev/null || true
    wait "$vg" 2> /dev/null || true
    # The dump made by --dump is the one with a number after the pid; the one at exit is not used.
    local dump
    dump=$(find "$work" -maxdepth 1 -name "$name.cg.$vg.*" | head -1)
    [ -n "$dump" ] || { echo "callgrind wrote no dump for $name" >&2; tail -20 "$work/$name.err" >&2; exit 1; }
    mv "$dump" "$work/$name.cg"
    if [ -n "${CG_DIR:-}" ]; then mkdir -p "$CG_DIR" && cp "$work/$name.cg" "$CG_DIR/$name.cg"; fi
}

nginx_port=$(free_port)
mkdir -p "$work/nginx"
nginx_conf "$work/nginx" "$nginx_port" "$engine_port" off
measure nginx "http://127.0.0.1:$nginx_port/engines/atlas/search" "$nginx_port" -- \
    "$nginx" -c "$work/nginx/nginx.conf" -p "$work/nginx" -e "$work/nginx/nginx-error.log"

paths=(nginx taillab)
serve_port=$(free_port)
measure taillab "http://127.0.0.1:$serve_port/search/lite" "$serve_port" --keys-file "$work/keys.txt" -- \
    "$cli" serve "$scenario" --listen "127.0.0.1:$serve_port" "${proxy_engine[@]}" "${proxy_serve[@]}" "${ups[@]}"
if [ -n "${BASELINE_CLI:-}" ]; then
    [ -x "$BASELINE_CLI" ] || { echo "no taillab-cli at BASELINE_CLI=$BASELINE_CLI" >&2; exit 2; }
    baseline_port=$(free_port)
    measure baseline "http://127.0.0.1:$baseline_port/search/lite" "$baseline_port" --keys-file "$work/keys.txt" -- \
        "$BASELINE_CLI" serve "$scenario" --listen "127.0.0.1:$baseline_port" "${proxy_engine[@]}" "${proxy_serve[@]}" "${ups[@]}"
    paths+=(baseline)
fi

python3 - "$work" "$rate" "$duration" "${paths[@]}" <<'PY'
import json, os, sys

work, rate, duration, paths = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4:]

def num(s):
    return int(s, 16) if s.startswith("0x") else int(s)

def read(path):
    """Self instructions per function, and the code lines and pages run, from a callgrind file
    written with --dump-instr=yes (positions: instr line; name compression (id) name)."""
    names = {"fn": {}, "ob": {}}
    lines, pages, per_object, per_fn = set(), set(), {}, {}
    total, pos, ob, fn, skip = 0, 0, "?", "?", False
    def name(kind, value):
        value = value.strip()
        if value.startswith("(") and ")" in value:
            i = value.index(")")
            ident, rest = value[: i + 1], value[i + 1 :].strip()
            if rest:
                names[kind][ident] = rest
            return names[kind].get(ident, ident)
        return value
    with open(path) as f:
        for line in f:
            c = line[0]
            if c in "0123456789+-*":
                tok = line.split()
                p = tok[0]
                if p.startswith("0x"):
                    pos = int(p, 16)
                elif p[0] == "+":
                    pos += num(p[1:])
                elif p[0] == "-":
                    pos -= num(p[1:])
                if skip:  # the cost line of a call: the callee's, not this function's
                    skip = False
                    continue
                if len(tok) > 2 and int(tok[2]) > 0:
                    ir = int(tok[2])
                    total += ir
                    per_fn[fn] = per_fn.get(fn, 0) + ir
                    key = (ob, pos >> 6)
                    if key not in lines:
                        lines.add(key)
                        per_object[ob] = per_object.get(ob, 0) + 1
                    pages.add((ob, pos >> 12))
            elif line.startswith("calls="):
                skip = True
            elif line.startswith("ob="):
                ob = name("ob", line[3:])
            elif line.startswith("cob="):
                name("ob", line[4:])
            elif line.startswith("fn="):
                fn = name("fn", line[3:])
            elif line.startswith("cfn="):
                name("fn", line[4:])
    return total, lines, pages, per_object, per_fn

out = {"rate_per_s": rate, "duration": duration,
       "note": "user-space instructions of the whole process, callgrind; the kernel's part is not counted",
       "paths": {}}
for name in paths:
    load = json.load(open(f"{work}/{name}.json"))
    requests = load["answered"]
    if requests == 0:
        sys.exit(f"{name}: no request was answered in the counted window ({load['statuses']})")
    total, lines, pages, per_object, per_fn = read(f"{work}/{name}.cg")
    top = sorted(per_fn.items(), key=lambda kv: -kv[1])[:12]
    out["paths"][name] = {
        "requests": requests, "statuses": load["statuses"],
        "instructions_per_request": round(total / requests),
        "code_lines_run": len(lines), "code_kib_run": len(lines) * 64 // 1024, "code_pages_run": len(pages),
        "code_lines_by_object": {os.path.basename(o): n for o, n in sorted(per_object.items(), key=lambda kv: -kv[1])[:6]},
        "top_functions_per_request": [{"function": f[:120], "instructions": round(ir / requests)} for f, ir in top]}
n = out["paths"]["nginx"]["instructions_per_request"]
out["taillab_over_nginx"] = round(out["paths"]["taillab"]["instructions_per_request"] / n, 2)
if "baseline" in out["paths"]:
    out["taillab_over_baseline"] = round(out["paths"]["taillab"]["instructions_per_request"] /
                                         out["paths"]["baseline"]["instructions_per_request"], 4)
print(json.dumps(out, indent=2))
PY
