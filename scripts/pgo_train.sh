#!/usr/bin/env bash
# The training runs of `scripts/dev.sh pgo`: what an instrumented taillab-cli (TAILLAB_CLI, built
# with -fprofile-generate) does here is what the profile-guided build lays out as its hot path.
#   - the v4 week simulated (gateway/week-v4-september): the gateway and its simulation driver
#   - the live pure proxy path of tests/bench/live_vs_nginx.sh: the emulated fleet, `serve` and
#     the load generator, at 1000 requests a second for 5 s (each process writes its counts as it
#     exits; libgcov merges them)
# Usage: TAILLAB_CLI=build-pgo/app/taillab-cli scripts/pgo_train.sh
set -euo pipefail

scenario=gateway/week-v4-september
source "$(dirname "${BASH_SOURCE[0]}")/../tests/bench/live_bench_lib.sh"

echo "== pgo: simulating $scenario" >&2
"$cli" run "$scenario" --out "$work/week.json" > /dev/null

echo "== pgo: the live proxy path at 1000/s for 5 s" >&2
start_fleet "$scenario" "${proxy_engine[@]}"
upstream_args
api_keys "$scenario" "$work/keys.txt" 50
port=$(free_port)
"$cli" serve "$scenario" --listen "127.0.0.1:$port" "${proxy_engine[@]}" "${proxy_serve[@]}" "${ups[@]}" \
    > "$work/serve.out" 2> "$work/serve.err" &
serve=$!
pids+=("$serve")
for _ in $(seq 50); do [ -s "$work/serve.out" ] && break; sleep 0.1; done
"$cli" load "http://127.0.0.1:$port/search/lite" --rate 1000 --duration 5s --quiet \
    --keys-file "$work/keys.txt" --json "$work/load.json" > /dev/null
# Stopped by a signal it handles, so that it returns from main and writes its counts.
kill -TERM "$serve"
wait "$serve" || true
python3 - "$work/load.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
if r["statuses"] != {"200": r["intended"]}:
    sys.exit(f"pgo: the training load was not all answered 200: {r['statuses']}")
PY
