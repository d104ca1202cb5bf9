#!/usr/bin/env bash
# TailLab fuzzing with libFuzzer (clang, -fsanitize=fuzzer,address,undefined); see tests/fuzz/.
#   scripts/fuzz.sh build                     install what is missing, configure and build the targets
#   scripts/fuzz.sh smoke                     build, replay tests/fuzz/regressions, fuzz each target
#                                             briefly; exits non-zero on any crash (CI runs this)
#   scripts/fuzz.sh campaign SECONDS [T...]   fuzz each target (default: all) for SECONDS, keeping
#                                             new corpus entries and crashes in a work directory
#                                             (not in git), then print executions per target
# Environment: TAILLAB_FUZZ_BUILD_DIR (default build-fuzz), TAILLAB_FUZZ_WORK (default
# $TAILLAB_FUZZ_BUILD_DIR/campaign), TAILLAB_FUZZ_SMOKE_SCALE (multiplies the smoke run's fixed
# execution counts; default 1),
# TAILLAB_FUZZ_PARALLEL (campaign targets run at once, default 1), TAILLAB_JOBS (build jobs).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${TAILLAB_FUZZ_BUILD_DIR:-$here/build-fuzz}
work_dir=${TAILLAB_FUZZ_WORK:-$build_dir/campaign}
jobs=${TAILLAB_JOBS:-2}
fuzz_src=$here/tests/fuzz
targets=(scenario set_override vary latency_log hgrm hlog json_text live_wire)

# clang 16, not Debian 12's default 14: clang 14 cannot capture a structured binding in a lambda
# (core/scenario/timeline_parse.cpp does), a C++20 feature clang gained in 16.
packages=(cmake make clang-16 libclang-rt-16-dev nlohmann-json3-dev libicu-dev libboost-dev)

# shellcheck source=install_missing.sh
. "$here/scripts/install_missing.sh"

# -O2 as RelWithDebInfo has it, with line tables only (-g1): crash stacks keep function, file
# and line, and the build takes less time than with full debug info.
build() {
    install_missing
    cmake -S "$here" -B "$build_dir" -DCMAKE_CXX_COMPILER=clang++-16 -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
        -DTAILLAB_FUZZ=ON -DTAILLAB_BUILD_GUI=OFF -DTAILLAB_BUILD_BENCH=OFF \
        -DTAILLAB_BUILD_TESTS=OFF >/dev/null
    cmake --build "$build_dir" -j"$jobs" --target "${targets[@]/#/fuzz_}"
}

# libFuzzer flags per target: input size bound and dictionary.
target_flags() {
    case "$1" in
        # 4 KiB reaches nesting far past the parser's 64-level limit; scenarios are small, and
        # shorter inputs give more executions a second.
        scenario) echo "-max_len=4096 -dict=$fuzz_src/scenario.dict" ;;
        set_override | vary) echo "-max_len=512 -dict=$fuzz_src/scenario.dict" ;;
        latency_log) echo "-max_len=16384" ;;
        hgrm) echo "-max_len=4096" ;;
        hlog) echo "-max_len=4096" ;;
        json_text) echo "-max_len=4096 -dict=$fuzz_src/json.dict" ;;
        live_wire) echo "-max_len=8192 -dict=$fuzz_src/json.dict" ;;
    esac
}

common_flags=(-timeout=10 -rss_limit_mb=2048 -print_final_stats=1)
# Symbolized stack traces in crash reports.
if [ -z "${ASAN_SYMBOLIZER_PATH:-}" ]; then
    for s in /usr/lib/llvm-16/bin/llvm-symbolizer /usr/bin/llvm-symbolizer; do
        if [ -x "$s" ]; then export ASAN_SYMBOLIZER_PATH=$s; break; fi
    done
fi

# Replays every saved reproducer of a target; each must now pass.
replay_regressions() {
    local t=$1 dir=$fuzz_src/regressions/$1
    [ -d "$dir" ] || return 0
    local files=()
    while IFS= read -r -d '' f; do files+=("$f"); done < <(find "$dir" -type f -print0 | sort -z)
    [ ${#files[@]} -eq 0 ] && return 0
    echo "== $t: replaying ${#files[@]} regression input(s)"
    "$build_dir/tests/fuzz/fuzz_$t" "${common_flags[@]}" "${files[@]}" >/dev/null 2>&1 || {
        echo "!! $t: a regression input fails again; rerun: $build_dir/tests/fuzz/fuzz_$t ${files[*]}" >&2
        return 1
    }
}

# Runs one libFuzzer process; prints its log path. Arguments: target, log, extra flags...
run_fuzzer() {
    local t=$1 log=$2 corpus=$3 artifacts=$4
    shift 4
    mkdir -p "$corpus" "$artifacts"
    # shellcheck disable=SC2046
    "$build_dir/tests/fuzz/fuzz_$t" "${common_flags[@]}" $(target_flags "$t") \
        -artifact_prefix="$artifacts/" "$@" "$corpus" "$fuzz_src/corpus/$t" >"$log" 2>&1
}

executions() {
    grep -ho 'stat::number_of_executed_units: [0-9]*' "$@" 2>/dev/null | awk '{s += $2} END {print s + 0}'
}

# Executions per target in a smoke run (all of them take about a minute on an unloaded 2-core
# machine, the build aside). A fixed count and seed make the smoke run the same on every
# machine, so CI never fails on a finding that depends on how fast it ran; campaigns are where
# new findings come from.
smoke_runs() {
    case "$1" in
        scenario) echo 60000 ;;
        set_override | vary) echo 30000 ;;
        latency_log) echo 300000 ;;
        hgrm) echo 15000 ;;
        hlog) echo 30000 ;;
        json_text | live_wire) echo 60000 ;;
    esac
}

smoke() {
    local tmp failed=0 runs
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' RETURN
    for t in "${targets[@]}"; do
        replay_regressions "$t" || failed=1
        runs=$(( $(smoke_runs "$t") * ${TAILLAB_FUZZ_SMOKE_SCALE:-1} ))
        if run_fuzzer "$t" "$tmp/$t.log" "$tmp/corpus-$t" "$tmp/artifacts-$t" \
            -seed=1 -runs="$runs"; then
            echo "== $t: $(executions "$tmp/$t.log") executions (seed 1), no crash"
        else
            echo "!! $t: crash; its log:" >&2
            tail -n 60 "$tmp/$t.log" >&2
            mkdir -p "$work_dir/smoke-crashes/$t"
            cp "$tmp/artifacts-$t"/* "$work_dir/smoke-crashes/$t/" 2>/dev/null || true
            echo "!! $t: reproducer(s) kept in $work_dir/smoke-crashes/$t" >&2
            failed=1
        fi
    done
    return $failed
}

# One target for `seconds` of fuzzing; after a crash it starts again for the time left (at most
# 5 crashes), so one finding does not end the campaign. Writes a summary line to $dir/summary.
campaign_target() {
    local t=$1 seconds=$2 dir=$work_dir/$1 start left run=0 crashes=0
    mkdir -p "$dir/corpus" "$dir/crashes" "$dir/logs"
    start=$(date +%s)
    while :; do
        left=$((seconds - ($(date +%s) - start)))
        [ "$left" -gt 0 ] || break
        run=$((run + 1))
        if ! run_fuzzer "$t" "$dir/logs/run$run.log" "$dir/corpus" "$dir/crashes" \
            -max_total_time="$left"; then
            crashes=$((crashes + 1))
            echo "!! $t: crash in run $run (see $dir/logs/run$run.log, $dir/crashes)" >&2
            [ "$crashes" -lt 5 ] || break
        fi
    done
    local elapsed execs
    elapsed=$(($(date +%s) - start))
    execs=$(executions "$dir"/logs/run*.log)
    echo "$t $execs $elapsed $crashes" >"$dir/summary"
}

campaign() {
    local seconds=${1:?usage: scripts/fuzz.sh campaign SECONDS [TARGET...]}
    shift
    local chosen=("$@") parallel=${TAILLAB_FUZZ_PARALLEL:-1}
    [ ${#chosen[@]} -gt 0 ] || chosen=("${targets[@]}")
    mkdir -p "$work_dir"
    rm -f "$work_dir"/*/summary "$work_dir"/*/logs/run*.log
    for t in "${chosen[@]}"; do
        echo "== $t: fuzzing for $seconds s (work dir $work_dir/$t)"
        campaign_target "$t" "$seconds" &
        while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n || true; done
    done
    wait
    local total=0 crashed=0
    printf '%-14s %14s %9s %12s %8s\n' target executions seconds execs/s crashes
    for t in "${chosen[@]}"; do
        read -r _ execs elapsed crashes <"$work_dir/$t/summary"
        printf '%-14s %14d %9d %12d %8d\n' "$t" "$execs" "$elapsed" \
            $((execs / (elapsed > 0 ? elapsed : 1))) "$crashes"
        total=$((total + execs))
        crashed=$((crashed + crashes))
    done
    printf '%-14s %14d\n' total "$total"
    [ "$crashed" -eq 0 ]
}

cmd=${1:-smoke}
shift || true
case "$cmd" in
    build) build ;;
    smoke)
        build
        smoke
        ;;
    campaign)
        build
        campaign "$@"
        ;;
    *)
        echo "usage: scripts/fuzz.sh build|smoke|campaign SECONDS [TARGET...]" >&2
        exit 2
        ;;
esac
