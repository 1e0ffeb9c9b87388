"""How the suites run together: one compiled-kernel cache per run, each file on one worker, the costliest files
handed out first, and the `long` soaks left to `make test-long`.

`make test` runs pytest with pytest-xdist on both cores (`-n 2 --dist loadfile`, see tools/run_tests.sh):

- The c device caches each compiled kernel on disk by the hash of (compiler, flags, host, source)
  (limn.backend_c.build_library, chapter 08), and a compile is renamed into place atomically, so every worker of a run
  can share one cache: a kernel compiled once is never compiled again by another test or worker of the run. A run
  gets a fresh cache of its own (`LIMN_CACHE_DIR`, unless the caller set one, as tools/run_tests.sh does to share it
  with nbdev-test), so a run's time never depends on what an earlier run left behind.
- A file runs whole on one worker (`loadfile`), so a fixture its tests share (a corpus realized on every device, a
  site built once, a sweep of the whole corpus) is built once. (pytest-xdist's `loadgroup` would split files finer,
  but its marks do not reach the scheduler under pytest 9.)
- The files that cost the most are handed out first (the table below, CPU seconds measured per file), so the two
  workers finish together; a file not in the table comes after them, in the usual order.

A test marked `long` is a soak: the full case count of a check whose short form runs in `make test`, with the
evidence that the short form finds what the soak finds beside it. `make test` deselects the soaks
(`-m "not long"`), `make test-long` runs everything.
"""
import os, shutil, tempfile
import pytest

# test file -> seconds it took (the larger of its CPU time, children included, and its wall time) on the idle 2-core
# development machine: the hand-out order, so no heavy file is left for the tail while the other core idles
COST = {
    "test_backend_c.py": 57, "test_corpus.py": 35, "test_torch_nn.py": 32, "test_site.py": 30, "test_bridge.py": 29,
    "test_bounds_soundness.py": 24, "test_cuda_emulated.py": 18, "test_hostile_run.py": 17, "test_webdemo.py": 17,
    "test_ci_checks.py": 17, "test_simulate.py": 17, "test_attention.py": 15, "test_hostile_static.py": 13,
    "test_safety.py": 11, "test_torch_tensor.py": 10, "test_cuda_emit.py": 9, "test_optim.py": 7, "test_falsify.py": 6,
    "test_transcendentals.py": 6, "test_nn.py": 6, "test_check.py": 6, "test_serialize.py": 5, "test_bounds_fuzz.py": 5,
    "test_cli.py": 4,
}


def pytest_configure(config):
    if hasattr(config, "workerinput") or os.environ.get("LIMN_CACHE_DIR"): return
    run_cache = tempfile.mkdtemp(prefix="limn-test-cache-")
    os.environ["LIMN_CACHE_DIR"] = run_cache                  # xdist's workers start after this and inherit it
    config._limn_run_cache = run_cache


def pytest_unconfigure(config):
    run_cache = getattr(config, "_limn_run_cache", None)
    if run_cache:
        shutil.rmtree(run_cache, ignore_errors=True)


def pytest_collection_modifyitems(config, items):
    """Under xdist, the costliest files first; a file's tests stay together and in order (sort is stable). A plain run
    keeps the order it was given (tools/mutants.py lists a module's fastest killers first and runs them with -x)."""
    if hasattr(config, "workerinput"):
        items.sort(key=lambda item: -COST.get(item.path.name, 0))
