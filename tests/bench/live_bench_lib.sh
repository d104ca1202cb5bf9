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

# engine_url NAME: the running fleet's URL for that engine.
engine_url() { awk -v name="$1" '$1 == name {print $2}' "$work/engines.txt"; }

# upstream_args: sets the array `ups` to serve's --upstream NAME=URL for every engine.
upstream_args() {
    ups=()
    while read -r name url; do ups+=(--upstream "$name=$url"); done < "$work/engines.txt"
}
