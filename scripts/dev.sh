#!/usr/bin/env bash
# TailLab developer entry point: installs what is missing, configures, builds, then runs or tests.
#   scripts/dev.sh run  [lab]   build and open TailLab (default lab: fanout)
#   scripts/dev.sh test         build and run the whole test suite (ctest; UI tests offscreen)
#   scripts/dev.sh bench        build and run the benchmarks (engine, HDR, labs, GUI re-run), JSON
#   scripts/dev.sh build        install, configure and build only
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${TAILLAB_BUILD_DIR:-$here/build}
jobs=${TAILLAB_JOBS:-$(nproc 2>/dev/null || echo 2)}

packages=(cmake g++ make pkg-config
          qt6-base-dev qt6-svg-dev libqt6svg6 libgl1-mesa-dev libqcustomplot-dev
          nlohmann-json3-dev libicu-dev libgtest-dev libgmock-dev libbenchmark-dev
          xvfb xauth fonts-dejavu-core)

install_missing() {
    local missing=()
    for p in "${packages[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "== installing: ${missing[*]}"
    local sudo=()
    if [ "$(id -u)" -ne 0 ]; then sudo=(sudo); fi
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

configure_and_build() {
    cmake -S "$here" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build "$build_dir" -j"$jobs"
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
    *)
        echo "usage: scripts/dev.sh run|test|bench|build" >&2
        exit 2
        ;;
esac
