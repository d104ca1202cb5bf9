#!/usr/bin/env bash
# TailLab developer entry point: installs what is missing, configures, builds, then runs or tests.
#   scripts/dev.sh run  [lab]   build and open TailLab (default lab: fanout)
#   scripts/dev.sh test         build and run the whole test suite (ctest; UI tests offscreen)
#   scripts/dev.sh bench        build and run the benchmarks (engine, HDR, labs, GUI re-run), JSON
#   scripts/dev.sh build        install, configure and build only
#   scripts/dev.sh asan         build-asan: the whole test suite under ASan+UBSan (and LSan)
#   scripts/dev.sh tsan         build-tsan: the tests that start threads, under TSan
#   scripts/dev.sh sanitize     asan, then tsan (what CI runs after `test`)
#   scripts/dev.sh pgo          build-pgo/app/taillab-cli, built with a profile of its own hot paths
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${TAILLAB_BUILD_DIR:-$here/build}
jobs=${TAILLAB_JOBS:-$(nproc 2>/dev/null || echo 2)}

packages=(cmake g++ make pkg-config
          qt6-base-dev qt6-svg-dev libqt6svg6 libgl1-mesa-dev libqcustomplot-dev
          nlohmann-json3-dev libicu-dev libboost-dev prometheus libgtest-dev libgmock-dev libbenchmark-dev
          xvfb xauth fonts-dejavu-core)

# shellcheck source=install_missing.sh
. "$here/scripts/install_missing.sh"

configure_and_build() {
    cmake -S "$here" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build "$build_dir" -j"$jobs"
}

# Sanitizer builds: their own build directories, -O1 with line tables (-g1: function, file and
# line in every sanitizer stack, at about 30% less compile time than full -g, which adds only
# variables and types nobody reads in a CI log; asserts stay on), no benchmarks.
sanitizer_dir=$here/tests/sanitizers

configure_sanitizer() {  # dir kind [cmake --build args...]
    local dir=$1 kind=$2
    shift 2
    cmake -S "$here" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
        -DTAILLAB_SANITIZE="$kind" -DTAILLAB_BUILD_BENCH=OFF >/dev/null
    cmake --build "$dir" -j"$jobs" "$@"
}

# The whole suite under ASan+UBSan. Any report fails the test: UBSan checks are built
# non-recoverable (CMakeLists.txt) and halt_on_error is set for both; LSan runs at exit with the
# leak suppressions of tests/sanitizers/lsan.supp (each entry says why).
# Stack use after return is checked where callbacks outlive the frames that made them: the live
# suite (loop callbacks) and the GUI suite (slots, lambdas, worker hand-offs), which also run the
# gateway and the simulation. The core suite runs without that check: its fake stacks made it
# about 3x slower (GatewayCompute.FewCpusMakeStageWorkWait: 137 s with, 48 s without), and the
# core suite's simulation-heavy tests were most of CI's time, at the edge of its 90 minutes.
callback_labels='^(taillab_live|taillab_ui)$'
run_asan() {
    local dir=${TAILLAB_ASAN_BUILD_DIR:-$here/build-asan} t0=$SECONDS status=0
    configure_sanitizer "$dir" address
    echo "== asan: built in $((SECONDS - t0)) s"
    cd "$dir"
    t0=$SECONDS
    local asan=halt_on_error=1:detect_leaks=1:strict_init_order=1:check_initialization_order=1
    local -x UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
    local -x LSAN_OPTIONS=suppressions=$sanitizer_dir/lsan.supp:print_suppressions=0
    ASAN_OPTIONS=$asan:detect_stack_use_after_return=0 \
    QT_QPA_PLATFORM=offscreen ctest --output-on-failure -j"$jobs" -LE "$callback_labels" "$@" \
        || status=$?
    ASAN_OPTIONS=$asan:detect_stack_use_after_return=1 \
    QT_QPA_PLATFORM=offscreen ctest --output-on-failure -j"$jobs" -L "$callback_labels" "$@" \
        || status=$?
    echo "== asan: tests ran in $((SECONDS - t0)) s"
    return "$status"
}

# The tests that start threads, the ones TSan runs:
#   SweepRunner.*  core/run/sweep_runner: the thread pool (which also runs the GUI's hedge-delay
#                  sweep), RunControl cancel from another thread, first error, serialized
#                  callbacks, destruction while running
#   SweepCli.*     taillab-cli sweep: points in parallel on SweepRunner (--jobs 1..N)
#   CompareCli.*   taillab-cli compare: the two sides in parallel on SweepRunner
#   the live suite (taillab_live_tests): the HTTP server, client, emulated fleet, gateway server
#                  and load generator on their loop threads, with test servers and clients on
#                  others, over real sockets
#   the whole GUI suite (taillab_ui_tests): RunController's worker, the gateway session's worker
#                  and its pacing tick, the hedge-delay sweep posting to the UI thread, and the
#                  WorkerThread/UiInbox hand-offs they are built on (ui/ui_threads.h)
# The GUI's threads hand values over only through std::mutex-guarded queues (ui/ui_threads.h),
# never through Qt's queued calls, whose locks TSan cannot see in Debian's uninstrumented Qt.
# Two TSan options, and no suppressions:
#   ignore_noninstrumented_modules=1  interceptors (memcpy, new/delete, ...) called from inside
#       Qt's own code are not checked, exactly as Qt's plain loads and stores are not (Qt is not
#       instrumented). Without it, Qt's internal image workers ('Thread (pooled)', QtGui's
#       QThreadPool) report races between Qt's own allocations. Every access TailLab code makes
#       is still checked, also inside Qt's slots and event loop (tried with a planted race on
#       each side: both reported).
#   die_after_fork=0  tests start taillab and taillab-cli through fork and exec while workers run.
tsan_tests='^(SweepRunner|SweepCli|CompareCli)\.'
tsan_options=halt_on_error=1:second_deadlock_stack=1:ignore_noninstrumented_modules=1:die_after_fork=0

# The threaded parts under TSan. The core library, taillab-cli and taillab (which tests start),
# taillab_thread_tests (the three core suites above alone; tests/CMakeLists.txt) and
# taillab_ui_tests are built. A report fails the test; tests/sanitizers/tsan.supp says why it is
# empty.
run_tsan() {
    local dir=${TAILLAB_TSAN_BUILD_DIR:-$here/build-tsan} t0=$SECONDS status=0
    configure_sanitizer "$dir" thread --target taillab_thread_tests taillab_live_tests taillab_ui_tests
    echo "== tsan: built in $((SECONDS - t0)) s"
    cd "$dir"
    t0=$SECONDS
    TSAN_OPTIONS=$tsan_options:suppressions=$sanitizer_dir/tsan.supp \
    ctest --output-on-failure -j"$jobs" -R "$tsan_tests" "$@" || status=$?
    TSAN_OPTIONS=$tsan_options:suppressions=$sanitizer_dir/tsan.supp \
    ctest --output-on-failure -j"$jobs" -L taillab_live "$@" || status=$?
    TSAN_OPTIONS=$tsan_options:suppressions=$sanitizer_dir/tsan.supp QT_QPA_PLATFORM=offscreen \
    ctest --output-on-failure -j"$jobs" -L taillab_ui "$@" || status=$?
    echo "== tsan: tests ran in $((SECONDS - t0)) s"
    return "$status"
}

# A profile-guided taillab-cli in build-pgo: built with -fprofile-generate, run through
# scripts/pgo_train.sh (the v4 week simulated, the live proxy path at 1000/s), then built again
# from the counts. GCC then lays out what ran hot together and moves what did not run out of
# its way (-fprofile-partial-training: code the training did not reach is optimized as usual,
# not for size). On the wire, where serve's code starts cold after the other processes have had
# the core, that shortens each request's time in serve (tests/bench/live_hops.sh); simulated
# results are byte for byte the same. The counts are of this tree: run it again after a change.
run_pgo() {
    local dir=${TAILLAB_PGO_BUILD_DIR:-$here/build-pgo} t0=$SECONDS
    local profile=$dir/profile
    case $profile in
        *[[:space:]]*) echo "pgo: the profile's path may not hold spaces (it goes into compiler flags): $profile" >&2; return 2 ;;
    esac
    local common=(-S "$here" -B "$dir" -DCMAKE_BUILD_TYPE=Release -DTAILLAB_BUILD_GUI=OFF
                  -DTAILLAB_BUILD_TESTS=OFF -DTAILLAB_BUILD_BENCH=OFF)
    rm -rf "$profile"
    cmake "${common[@]}" -DCMAKE_CXX_FLAGS="-fprofile-generate -fprofile-update=prefer-atomic -fprofile-dir=$profile" \
        -DCMAKE_EXE_LINKER_FLAGS=-fprofile-generate >/dev/null
    cmake --build "$dir" -j"$jobs" --target taillab-cli
    echo "== pgo: instrumented build in $((SECONDS - t0)) s"
    TAILLAB_CLI=$dir/app/taillab-cli "$here/scripts/pgo_train.sh"
    t0=$SECONDS
    cmake "${common[@]}" -DCMAKE_CXX_FLAGS="-fprofile-use -fprofile-partial-training -fprofile-dir=$profile -Wno-missing-profile" \
        -DCMAKE_EXE_LINKER_FLAGS= >/dev/null
    cmake --build "$dir" -j"$jobs" --target taillab-cli
    echo "== pgo: $dir/app/taillab-cli built from the profile in $((SECONDS - t0)) s"
}

cmd=${1:-run}
shift || true
case "$cmd" in
    build)
        install_missing
        configure_and_build
        ;;
    run)
        install_missing
        configure_and_build
        if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
            echo "== no display found: starting TailLab under Xvfb (set DISPLAY to use your own)"
            exec xvfb-run -a -s "-screen 0 1600x1000x24" "$build_dir/app/taillab" "$@"
        fi
        exec "$build_dir/app/taillab" "$@"
        ;;
    test)
        install_missing
        configure_and_build
        cd "$build_dir"
        QT_QPA_PLATFORM=offscreen ctest --output-on-failure -j"$jobs" "$@"
        ;;
    bench)
        install_missing
        configure_and_build
        "$build_dir/tests/taillab_bench" --benchmark_format=json "$@"
        QT_QPA_PLATFORM=offscreen "$build_dir/tests/taillab_gui_bench"
        ;;
    asan)
        install_missing
        run_asan "$@"
        ;;
    tsan)
        install_missing
        run_tsan "$@"
        ;;
    sanitize)
        # Both stages run even when the first fails (each in its own shell, so a failed build
        # still stops its own stage); the exit status is the first failure's.
        status=0
        "$here/scripts/dev.sh" asan "$@" || status=$?
        "$here/scripts/dev.sh" tsan "$@" || [ "$status" -ne 0 ] || status=$?
        exit "$status"
        ;;
    pgo)
        packages+=(python3)  # the training's scripts (tests/bench/live_bench_lib.sh)
        install_missing
        run_pgo
        ;;
    *)
        echo "usage: scripts/dev.sh run|test|bench|build|asan|tsan|sanitize|pgo" >&2
        exit 2
        ;;
esac
