#!/usr/bin/env bash
# What TailLab's gateway adds to a request's latency, against nginx, on this machine in one run
# (issue 9). One emulated engine with a narrow latency (2 ms, sigma 0.01, no slow moments, no
# faults, no egress rate limits) is reached three ways by TailLab's open-loop load generator:
#   direct   straight to the engine
#   nginx    through nginx (Debian nginx-light): proxy_pass to a keep-alive upstream
#   taillab  through taillab-cli serve as a pure proxy path: cache, hedging, last-chance hedge,
#            admission, rate limits and coalescing off, static routing to that engine
# Prints JSON: each path's corrected p50/p99/p99.9 and the added latency of nginx and of TailLab
# (their figure minus the direct one). Usage:
#   tests/bench/live_vs_nginx.sh [RATE=1000] [DURATION=60s]     (env: TAILLAB_CLI, NGINX)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cli=${TAILLAB_CLI:-$here/build/app/taillab-cli}
nginx=${NGINX:-/usr/sbin/nginx}
rate=${1:-1000}
duration=${2:-60s}
scenario=gateway/week-v4-september
work=$(mktemp -d)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

[ -x "$cli" ] || { echo "no taillab-cli at $cli (build first)" >&2; exit 2; }
[ -x "$nginx" ] || { echo "no nginx at $nginx (apt-get install nginx-light)" >&2; exit 2; }

engine=(--set params.atlas_median_ms=2 --set params.atlas_sigma=0.01 --set params.slow_multiplier=0
        --set params.fault_multiplier=0 --set params.egress_ip_rate_per_s=1000000
        --set params.egress_ip_burst=1000000 --set params.engine_capacity=100000)
proxy=(--set params.cache_tiers=off --set params.hedge_mode=off --set params.last_chance_hedge=false
       --set params.admission=false --set params.rate_limits=false --set params.coalescing=off
       --set "params.routing=static (first engine)")

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

"$cli" fleet "$scenario" --listen 127.0.0.1:0 "${engine[@]}" > "$work/engines.txt" 2> "$work/fleet.err" &
pids+=($!)
for _ in $(seq 50); do [ -s "$work/engines.txt" ] && [ "$(wc -l < "$work/engines.txt")" -ge 3 ] && break; sleep 0.1; done
atlas=$(awk '$1 == "atlas" {print $2}' "$work/engines.txt")
engine_port=$(echo "$atlas" | sed -E 's|http://127.0.0.1:([0-9]+)/.*|\1|')

nginx_port=$(free_port)
cat > "$work/nginx.conf" <<CONF
worker_processes 1;
daemon on;
pid $work/nginx.pid;
error_log $work/nginx-error.log warn;
events { worker_connections 8192; }
http {
    access_log off;
    client_body_temp_path $work/body;
    proxy_temp_path $work/proxy;
    fastcgi_temp_path $work/fastcgi;
    uwsgi_temp_path $work/uwsgi;
    scgi_temp_path $work/scgi;
    upstream engine { server 127.0.0.1:$engine_port; keepalive 512; }
    server {
        listen 127.0.0.1:$nginx_port;
        location / {
            proxy_pass http://engine;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
        }
    }
}
CONF
"$nginx" -c "$work/nginx.conf" -p "$work" -e "$work/nginx-error.log"

serve_port=$(free_port)
ups=()
while read -r name url; do ups+=(--upstream "$name=$url"); done < "$work/engines.txt"
"$cli" serve "$scenario" --listen "127.0.0.1:$serve_port" "${engine[@]}" "${proxy[@]}" "${ups[@]}" \
    > "$work/serve.out" 2> "$work/serve.err" &
pids+=($!)
for _ in $(seq 50); do [ -s "$work/serve.out" ] && break; sleep 0.1; done
keys=$("$cli" serve "$scenario" --keys | awk -F'\t' 'NF == 3 {print $1}' | head -50 | paste -sd,)

run() {  # name url [load options...]
    local name=$1 url=$2
    shift 2
    echo "== $name: $url at $rate/s for $duration" >&2
    "$cli" load "$url" --rate "$rate" --duration "$duration" --quiet --json "$work/$name.json" "$@" > /dev/null
}
run direct "$atlas"
run nginx "http://127.0.0.1:$nginx_port/engines/atlas/search"
run taillab "http://127.0.0.1:$serve_port/search/lite" --keys "$keys"

python3 - "$work" "$rate" "$duration" <<'PY'
import json, sys
work, rate, duration = sys.argv[1], float(sys.argv[2]), sys.argv[3]
res = {n: json.load(open(f"{work}/{n}.json")) for n in ("direct", "nginx", "taillab")}
keys = ("p50_ms", "p99_ms", "p99_9_ms")
out = {"rate_per_s": rate, "duration": duration, "paths": {}, "added_ms": {}}
for n, r in res.items():
    c = r["corrected"]
    out["paths"][n] = {k: c[k] for k in keys} | {"answered": r["answered"], "failed": r["failed"],
                                                  "statuses": r["statuses"],
                                                  "lag_p99_ms": r["scheduling_lag"]["p99_ms"]}
for n in ("nginx", "taillab"):
    out["added_ms"][n] = {k: round(res[n]["corrected"][k] - res["direct"]["corrected"][k], 3) for k in keys}
out["taillab_no_worse_than_nginx"] = {k: out["added_ms"]["taillab"][k] <= out["added_ms"]["nginx"][k] for k in keys}
print(json.dumps(out, indent=2))
PY
