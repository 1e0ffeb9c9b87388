#!/usr/bin/env bash
# `make test` and `make test-long`: every chapter (nbdev-test) and every suite in tests/ (pytest), on both cores.
# Usage: tools/run_tests.sh BIN [short|long|soaks]
#   short  what `make test` runs: the soaks marked `long` are deselected (their short forms run)
#   long   what `make test-long` runs: everything, the soaks at their full counts included
#   soaks  only the soaks (CI runs them after `make test` when its time allows)
# The chapters and the suites run at the same time, so neither one's slowest item leaves a core idle, and they share one
# compiled-kernel cache made for this run (LIMN_CACHE_DIR; see tests/conftest.py). Each prints its summary and its time:
# nbdev-test the seconds per notebook and its slow cells, pytest the slowest tests and the seconds per test file.
set -uo pipefail
bin=${1:-.venv/bin}
mode=${2:-short}
workers=${LIMN_TEST_WORKERS:-2}
# a chapter cell slower than this many seconds is named in nbdev-test's log (notebook:cell id: seconds): the candidates
# for a small case in the chapter and the heavy one in tests/
slow_cell=${LIMN_SLOW_CELL:-5}
case "$mode" in
  short) marks="not long" ;;
  long)  marks="" ;;
  soaks) marks="long" ;;
  *) echo "usage: tools/run_tests.sh BIN [short|long|soaks], got mode '$mode'" >&2; exit 2 ;;
esac
# bytecode may be written: pytest then reuses the assertion-rewritten test modules `make install` cached (this environment
# may set PYTHONDONTWRITEBYTECODE, under which every worker rewrites every test file on each run)
unset PYTHONDONTWRITEBYTECODE
run_dir=$(mktemp -d "${TMPDIR:-/tmp}/limn-test-run.XXXXXX")
trap 'rm -rf "$run_dir"' EXIT
export LIMN_CACHE_DIR="$run_dir/c-cache"
start=$(date +%s)

nb_status=0
if [ "$mode" != soaks ]; then
  ( t0=$(date +%s)
    "$bin/nbdev-test" --n-workers "$workers" --timing --cell-timing-min "$slow_cell" > "$run_dir/nbdev.log" 2>&1
    status=$?
    echo "nbdev-test: exit $status, $(( $(date +%s) - t0 )) s wall" >> "$run_dir/nbdev.log"
    exit $status ) &
  nb_pid=$!
fi

t0=$(date +%s)
"$bin/pytest" -n "$workers" --dist loadfile --no-loadscope-reorder -m "$marks" --durations=50
py_status=$?
py_wall=$(( $(date +%s) - t0 ))

if [ "$mode" != soaks ]; then
  wait "$nb_pid"
  nb_status=$?
  echo
  echo "==== nbdev-test (every chapter, ran alongside pytest; per-notebook seconds) ===="
  cat "$run_dir/nbdev.log"
fi
echo "pytest: exit $py_status, $py_wall s wall"
echo "make test ($mode): $(( $(date +%s) - start )) s wall in all"
[ "$py_status" -eq 0 ] && [ "$nb_status" -eq 0 ]
