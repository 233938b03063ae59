#!/usr/bin/env bash
# Runs fem's fuzz harnesses on every core of the machine (libFuzzer -jobs/-workers), from the
# bundle scripts/device/pack-fuzz.sh made, and hands back under $OUT what they found: per harness
# the executions of every worker summed, its log tail, any crashing input, and the new corpus
# inputs (new-<harness>.tar.gz) to merge here with `-merge=1` (docs/fuzzing.md says how).
#
#   FUZZERS="case_loader overrides" FUZZ_SECONDS=270 bash scripts/device/fuzz-many.sh
#
# Environment: FUZZERS (names without fuzz_), FUZZ_SECONDS (per harness), FUZZ_WORKERS (default
# the number of cores), OUT (default ./fuzz-out).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-$PWD/fuzz-out}
seconds=${FUZZ_SECONDS:-60}
workers=${FUZZ_WORKERS:-$(nproc)}
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/fem-fuzz-many.XXXXXX")
tar -C "$work" -xJf .deps/fuzz.tar.xz
bundle=$work/fuzz
export LD_LIBRARY_PATH=$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
max_len() {
  case $1 in
    plugin_descriptor) echo 1024 ;;
    stl | image) echo 16384 ;;
    *) echo 32768 ;;
  esac
}
status=0
for name in ${FUZZERS:-case_loader}; do
  dir=$work/run-$name
  mkdir -p "$dir/corpus" "$dir/artifacts"
  cp -r "$bundle/corpus/$name/." "$dir/corpus/"
  before=$(ls "$dir/corpus" | wc -l)
  fast_unwind=1
  case $name in vtk | image) fast_unwind=0 ;; esac
  echo "== fuzz_$name: $workers workers x ${seconds} s on $before inputs ($(nproc) cores)"
  (cd "$dir" && ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=$fast_unwind \
    LSAN_OPTIONS=suppressions=$bundle/lsan.supp UBSAN_OPTIONS=print_stacktrace=1 \
    "$bundle/bin/fuzz_$name" -max_len="$(max_len "$name")" -rss_limit_mb=2048 -timeout=10 \
    -dict="$bundle/$name.dict" -max_total_time="$seconds" -print_final_stats=1 \
    -artifact_prefix="$dir/artifacts/" -jobs="$workers" -workers="$workers" corpus \
    >"$dir/driver.log" 2>&1) || status=1
  runs=$(cat "$dir"/fuzz-*.log | awk '/^stat::number_of_executed_units/ {s += $2} END {print s + 0}')
  findings=$(ls "$dir/artifacts" | wc -l)
  echo "fuzz_$name: $runs executions in all, $findings findings, corpus $before -> $(ls "$dir/corpus" | wc -l)"
  tail -n 5 "$dir/fuzz-0.log" >"$out/$name-worker0.log" || true
  if [ "$findings" -gt 0 ]; then
    status=1
    tar -C "$dir" -czf "$out/$name-artifacts.tar.gz" artifacts
    grep -h -B2 -A30 "ERROR: \|SUMMARY" "$dir"/fuzz-*.log | head -n 80 >"$out/$name-findings.log" || true
  fi
  # The inputs this run added (new file names) for the merge at home.
  (cd "$dir/corpus" && comm -13 <(ls "$bundle/corpus/$name" | sort) <(ls | sort) |
    tar -czf "$out/new-$name.tar.gz" -T -)
done
exit $status
