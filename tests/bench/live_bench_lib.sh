# Sourced by the live benches (tests/bench/live_*.sh), not run: the taillab-cli they run
# (TAILLAB_CLI, or the build's), a scratch directory $work removed at exit after every process
# in `pids` (and an nginx whose pid file is $work/nginx.pid) is stopped, a free port, and the
# emulated fleet started in the background.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cli=${TAILLAB_CLI:-$here/build/app/taillab-cli}
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

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# start_fleet SCENARIO [fleet options...]: `taillab-cli fleet` on a free port; returns once its
# "NAME URL" lines are in $work/engines.txt.
start_fleet() {
    local scenario=$1
    shift
    "$cli" fleet "$scenario" --listen 127.0.0.1:0 "$@" > "$work/engines.txt" 2> "$work/fleet.err" &
    pids+=($!)
    for _ in $(seq 100); do
        [ -s "$work/engines.txt" ] && [ "$(wc -l < "$work/engines.txt")" -ge 3 ] && return 0
        sleep 0.1
    done
    echo "the fleet did not start:" >&2
    cat "$work/fleet.err" >&2
    exit 1
}

# engine_url NAME: the running fleet's URL for that engine; url_port URL: its port.
engine_url() { awk -v name="$1" '$1 == name {print $2}' "$work/engines.txt"; }
url_port() { echo "$1" | sed -E 's|http://127.0.0.1:([0-9]+)/.*|\1|'; }

# need_nginx: sets `nginx` to $NGINX or Debian's, and stops the bench if it is not there.
need_nginx() {
    nginx=${NGINX:-/usr/sbin/nginx}
    [ -x "$nginx" ] || { echo "no nginx at $nginx (apt-get install nginx-light)" >&2; exit 2; }
}

# api_keys SCENARIO FILE [N]: the scenario's API keys (serve --keys), one a line, into FILE; only
# the first N when N is given.
api_keys() {
    "$cli" serve "$1" --keys | awk -F'\t' 'NF == 3 {print $1}' | head -n "${3:-1000000000}" > "$2"
}

# upstream_args: sets the array `ups` to serve's --upstream NAME=URL for every engine.
upstream_args() {
    ups=()
    while read -r name url; do ups+=(--upstream "$name=$url"); done < "$work/engines.txt"
}

# The pure proxy path that live_vs_nginx.sh times and live_instructions.sh counts: one emulated
# engine with a narrow latency (2 ms, sigma 0.01, no slow moments, no faults, no egress rate
# limits) in `proxy_engine`, and serve's settings that leave only a proxy's path in
# `proxy_serve`: cache, hedging, last-chance hedge, admission, rate limits and coalescing off,
# static routing to that engine.
proxy_engine=(--set params.atlas_median_ms=2 --set params.atlas_sigma=0.01 --set params.slow_multiplier=0
              --set params.fault_multiplier=0 --set params.egress_ip_rate_per_s=1000000
              --set params.egress_ip_burst=1000000 --set params.engine_capacity=100000)
proxy_serve=(--set params.cache_tiers=off --set params.hedge_mode=off --set params.last_chance_hedge=false
             --set params.admission=false --set params.rate_limits=false --set params.coalescing=off
             --set "params.routing=static (first engine)")

# nginx_conf DIR PORT ENGINE_PORT DAEMON: writes DIR/nginx.conf, nginx (Debian nginx-light) as a
# plain proxy_pass on 127.0.0.1:PORT to a keep-alive upstream at ENGINE_PORT, one worker, no
# access log, its pid and temporary files in DIR. DAEMON off also runs it as one process
# (master_process off), for a tool that must see the worker itself.
nginx_conf() {
    local dir=$1 port=$2 engine_port=$3 daemon=$4 master=on
    [ "$daemon" = off ] && master=off
    cat > "$dir/nginx.conf" <<CONF
worker_processes 1;
daemon $daemon;
master_process $master;
pid $dir/nginx.pid;
error_log $dir/nginx-error.log warn;
events { worker_connections 8192; }
http {
    access_log off;
    client_body_temp_path $dir/body;
    proxy_temp_path $dir/proxy;
    fastcgi_temp_path $dir/fastcgi;
    uwsgi_temp_path $dir/uwsgi;
    scgi_temp_path $dir/scgi;
    upstream engine { server 127.0.0.1:$engine_port; keepalive 512; }
    server {
        listen 127.0.0.1:$port;
        location / {
            proxy_pass http://engine;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
        }
    }
}
CONF
}
