#!/usr/bin/env bash
# Builds fem's libFuzzer harnesses (fuzz/, docs/fuzzing.md) with clang, AddressSanitizer and
# UndefinedBehaviorSanitizer, and runs each for a bounded time on a copy of its saved corpus.
# Any crash, sanitizer report, leak, timeout or input over the memory limit fails the script and
# leaves the input in $FUZZ_WORK/artifacts.
#
#   scripts/fuzz.sh                       # every harness, FUZZ_SECONDS (default 6) each
#   FUZZ_SECONDS=600 FUZZERS="gmsh stl" scripts/fuzz.sh
#   FUZZ_MERGE=1 scripts/fuzz.sh          # afterwards, add what the run found to fuzz/corpus/
#
# Environment: FUZZ_BUILD_DIR (default build-fuzz), FUZZ_SECONDS, FUZZERS (names without
# fuzz_), FUZZ_MERGE, FUZZ_WORK (default a temporary folder), FUZZ_JOBS (build jobs, default nproc),
# CXX_FUZZ (default clang++-14), FUZZ_BUILD=0 to use the build as it stands.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${FUZZ_BUILD_DIR:-build-fuzz}
seconds=${FUZZ_SECONDS:-6}
jobs=${FUZZ_JOBS:-$(nproc)}
cxx=${CXX_FUZZ:-clang++-14}
all="case_loader overrides gmsh abaqus vtk image stl plugin_descriptor"
fuzzers=${FUZZERS:-$all}

# The largest input each harness tries, in bytes: a few pages of the format (the readers' own size
# limits are tested by the unit tests, not by feeding megabytes here).
max_len() {
  case $1 in
    plugin_descriptor) echo 1024 ;;
    stl | image) echo 16384 ;;
    case_loader | overrides | abaqus | vtk) echo 32768 ;;
    *) echo 65536 ;;
  esac
}

if ! command -v "$cxx" >/dev/null; then
  echo "fuzz.sh: $cxx not found (scripts/install-dependencies.sh installs clang-14)" >&2
  exit 1
fi
if [ "${FUZZ_BUILD:-1}" != 0 ]; then
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
    -DFEM_BUILD_FUZZERS=ON -DFEM_BUILD_TESTS=OFF -DFEM_WARNINGS_AS_ERRORS=ON \
    -DFEM_WITH_CUDA=OFF -DFEM_WITH_KOKKOS=OFF -DFEM_WITH_HYPRE=OFF -DFEM_WITH_CHOLMOD=OFF \
    -DFEM_WITH_VTK=ON >/dev/null
  cmake --build "$build_dir" -j "$jobs" --target fem_fuzzers
fi

# One harness with the sanitizers' settings. Leaks inside VTK's own readers are suppressed
# (fuzz/lsan.supp); matching them by function needs whole stacks through the uninstrumented VTK
# libraries, so no fast unwinding there.
run_harness() {
  local name=$1
  shift
  local fast_unwind=1
  case $name in vtk | image) fast_unwind=0 ;; esac
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:fast_unwind_on_malloc=$fast_unwind} \
    LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/fuzz/lsan.supp} \
    UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} \
    "$build_dir/bin/fuzz_$name" -max_len="$(max_len "$name")" -rss_limit_mb=2048 -timeout=10 "$@"
}

work=${FUZZ_WORK:-$(mktemp -d "${TMPDIR:-/tmp}/fem-fuzz.XXXXXX")}
mkdir -p "$work/artifacts"
failed=()
for name in $fuzzers; do
  exe=$build_dir/bin/fuzz_$name
  [ -x "$exe" ] || { echo "fuzz.sh: $exe was not built" >&2; failed+=("$name (not built)"); continue; }
  corpus=$work/corpus/$name
  mkdir -p "$corpus"
  cp -r fuzz/corpus/"$name"/. "$corpus"/
  log=$work/$name.log
  echo "== fuzz_$name: ${seconds} s on $(ls "$corpus" | wc -l) inputs"
  # -rss_limit_mb also limits a single allocation (malloc_limit_mb): a header that asks for
  # gigabytes is a finding, to be refused with a message before the work.
  if run_harness "$name" -max_total_time="$seconds" -dict=fuzz/"$name".dict \
    -artifact_prefix="$work/artifacts/${name}-" -print_final_stats=1 "$corpus" >"$log" 2>&1; then
    grep -E "^stat::number_of_executed_units|^Done [0-9]+ runs" "$log" | tr '\n' ' '
    echo
  else
    tail -n 60 "$log"
    echo "fuzz.sh: fuzz_$name found a problem; the input is in $work/artifacts/ (log: $log)" >&2
    failed+=("$name")
  fi
  if [ "${FUZZ_MERGE:-0}" = 1 ]; then
    run_harness "$name" -merge=1 fuzz/corpus/"$name" "$corpus" >"$work/$name.merge.log" 2>&1 ||
      { tail -n 20 "$work/$name.merge.log"; failed+=("$name (merge)"); }
  fi
done
if [ ${#failed[@]} -ne 0 ]; then
  echo "fuzz.sh: findings in: ${failed[*]}" >&2
  exit 1
fi
[ -n "${FUZZ_WORK:-}" ] || rm -rf "$work"
echo "fuzz.sh: no findings"
