#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine:
#   scripts/archipelago.sh run [SCENARIO.json]   install what is missing, build, start the GUI
#   scripts/archipelago.sh test                  install what is missing, build, run all tests
# Packages are installed with apt-get only when absent.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
preset=${ARCHIPELAGO_PRESET:-release}
build_dir="$here/build/$preset"

# Debian 12 packages the build and the tests need (see README.md).
packages=(
  build-essential cmake ninja-build pkg-config
  lld # a faster linker for the 80 executables (CMakeLists.txt; gold or ld without it)
  qt6-base-dev qt6-svg-dev libgl-dev
  libqcustomplot-dev
  libboost-graph-dev nlohmann-json3-dev libtbb-dev
  libbenchmark-dev
  fonts-dejavu-core
  slurm-wlm munge # tests/slurm: a sharded sweep on a single-node Slurm started by the test
  poppler-utils # tests/test_report: pdftotext reads the report's sections back
  dpkg-dev file # cpack's .deb: dpkg-shlibdeps finds the dependencies (scripts/check_deb.sh)
)

install_missing() {
  local missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "Installing missing packages: ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

build() {
  cmake --preset "$preset" -S "$here" -DARCHIPELAGO_WERROR="${ARCHIPELAGO_WERROR:-OFF}" >/dev/null
  cmake --build "$build_dir" -j "$(nproc)"
}

case "${1:-}" in
  run)
    shift
    install_missing
    build
    exec "$build_dir/app/archipelago" "$@"
    ;;
  test)
    install_missing
    build
    cd "$build_dir"
    # Under the sanitizers any report fails its test (halt_on_error, non-zero exit).
    export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:abort_on_error=0:detect_leaks=1}
    export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
    QT_QPA_PLATFORM=offscreen ctest --output-on-failure -j "$(nproc)"
    ;;
  *)
    echo "usage: scripts/archipelago.sh run [SCENARIO.json] | test" >&2
    exit 2
    ;;
esac
