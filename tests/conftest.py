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
- The units that cost the most are handed out first (the table below, seconds measured per file), so the two
  workers finish together; a file not in the table counts as a small one. A unit of hand-out is a file,
  except that the files in SHARED_UNITS run together on one worker (the two Ray suites share that worker's node) and a
  file in SPLIT_BY_FUNCTION hands out each test function (all its parameters together) on its own: its tests share no
  fixture wider than a function's (test_backend_c's corpus one serves only its test_corpus) and no module-level
  random state, so the two workers can share its load and every test sees what it sees in a plain run.
- Each run ends with the seconds each file took on its worker (`seconds per test file`), the numbers COST is re-timed
  from.

A test marked `long` is a soak: the full case count of a check whose short form runs in `make test`, with the
evidence that the short form finds what the soak finds beside it. `make test` deselects the soaks
(`-m "not long"`), `make test-long` runs everything.

A Ray node costs about half a minute to start on this machine, so a worker starts at most one: the session-scoped
fixture `ray_node` below, which every test that needs Ray takes (tests/test_rewards.py, tests/test_trust.py), starts it
the first time a test asks and stops it when the worker's session ends.
"""
import os, shutil, tempfile
import pytest

# test file -> seconds it costs its worker: the hand-out order, so no heavy file is left for the tail while the other
# core idles. Re-timed in session 13 from a `make test` run with a per-test CPU profile: each file's CPU seconds
# (user + sys, children included), re-measured alone for the files that session sped up (session 14: test_bridge,
# test_bounds_soundness, and test_falsify_lowered and test_hostile_run, which had counted 3 and 9); for the Ray suites, which mostly
# wait on Ray's own processes, the wall time a node's start costs (about 27 s idle) plus their tests'. A quiet `make
# test` prints the numbers to re-time this from (`seconds per test file`). A file missing here counts UNLISTED_COST seconds.
COST = {
    "test_torch_nn.py": 76, "test_falsify_lowered.py": 95, "test_falsify_spec_rows.py": 12, "test_rewards.py": 60, "test_bounds_soundness.py": 45, "test_bridge.py": 30,
    "test_corpus.py": 56, "test_backend_c.py": 53, "test_ci_checks.py": 46, "test_trust.py": 35, "test_simulate.py": 33,
    "test_site.py": 32, "test_safety.py": 31, "test_transcendentals.py": 30, "test_attention.py": 25,
    "test_torch_tensor.py": 25, "test_cuda_emit.py": 25, "test_matmul_c.py": 24, "test_cuda_emulated.py": 24,
    "test_hostile_static.py": 21, "test_cli.py": 16, "test_bounds_fuzz.py": 16, "test_launcher.py": 15,
    "test_optim.py": 14, "test_check.py": 14, "test_eager_cache.py": 13, "test_webdemo.py": 13, "test_serialize.py": 13,
    "test_falsify.py": 12, "test_ttir.py": 11, "test_hostile_run.py": 45, "test_ir_interpreter.py": 9,
    "test_real_kernels.py": 6, "test_nn.py": 6, "test_autograd_fuzz.py": 4, "test_capture.py": 4,
    "test_prove_edges.py": 4, "test_bounds_layernorm.py": 4, "test_torch_semantics_exec.py": 3, "test_jit.py": 3,
    "test_trust_semantics.py": 3, "test_tensor_api.py": 2, "test_backward_templates.py": 2, "test_mutation_kills.py": 2,
    "test_dtypes.py": 1, "test_second_derivatives.py": 1, "test_bounds_composites.py": 1, "test_bounds_rules.py": 1,
    "test_mask_algebra.py": 1, "test_bounds_inputs.py": 1, "test_bounds_movement.py": 1, "test_errors.py": 1,
    "test_schedule.py": 1, "test_falsify_launch.py": 1,
}
UNLISTED_COST = 3


@pytest.fixture(scope="session")
def ray_node():
    """One local Ray node (two CPUs) per worker process, shared by every Ray test that worker runs; yields `ray`."""
    ray = pytest.importorskip("ray", reason="Ray is not installed (pip install '.[ray]'): the Ray backend is untested here")
    started_here = False
    if not ray.is_initialized():
        try:
            # a fresh session folder: under load, a start that shared the default /tmp/ray with an earlier node timed out
            ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
                     _temp_dir=tempfile.mkdtemp(prefix="ray-", dir="/tmp"))
        except Exception as e:      # Ray's own start-up (its raylet waits 60 s for its agent): seen on a 2-core machine at load 15
            if "timed out during startup" not in str(e):
                raise
            pytest.skip(f"Ray is installed but its local node did not start here: {str(e).splitlines()[0]}")
        started_here = True
    yield ray
    if started_here:
        ray.shutdown()


# files that run together on one worker as one unit of hand-out (the unit's cost is the sum of theirs)
SHARED_UNITS = {"test_rewards.py": "ray suites", "test_trust.py": "ray suites"}
# files whose test functions are handed out one by one (see the module's docstring)
SPLIT_BY_FUNCTION = {"test_backend_c.py", "test_cuda_emulated.py", "test_matmul_c.py", "test_bounds_soundness.py",
                     "test_attention.py"}


def work_unit(nodeid: str) -> str:
    "The unit of xdist's hand-out that the test `nodeid` belongs to."
    path, _, rest = nodeid.partition("::")
    name = path.rsplit("/", 1)[-1]
    if name in SHARED_UNITS:
        return SHARED_UNITS[name]
    if name in SPLIT_BY_FUNCTION:
        return path + "::" + rest.split("[", 1)[0]
    return path


def unit_cost(unit: str) -> float:
    "The seconds COST gives the unit: a shared unit costs what its files cost together."
    files = [name for name, shared in SHARED_UNITS.items() if shared == unit] or [unit.split("::")[0].rsplit("/", 1)[-1]]
    return sum(COST.get(name, UNLISTED_COST) for name in files)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    "Under `--dist loadfile` (tools/run_tests.sh), hand out work_unit's units instead of whole files."
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class UnitScheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return work_unit(nodeid)

    return UnitScheduling(config, log)


def pytest_runtest_logreport(report):
    "Seconds per test file (setup, call and teardown), summed where the reports arrive (xdist's controller)."
    name = report.nodeid.split("::")[0].rsplit("/", 1)[-1]
    _file_seconds[name] = _file_seconds.get(name, 0.0) + report.duration


_file_seconds: dict = {}


def pytest_terminal_summary(terminalreporter, config):
    "Under xdist, the seconds each file took on its worker, costliest first, as COST lists them."
    if getattr(config.option, "dist", "no") == "no" or hasattr(config, "workerinput") or not _file_seconds:
        return
    terminalreporter.section("seconds per test file (on its worker; the numbers COST is re-timed from)")
    ranked = sorted(_file_seconds.items(), key=lambda item: -item[1])
    terminalreporter.write_line(", ".join(f'"{name}": {seconds:.0f}' for name, seconds in ranked))


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
        items.sort(key=lambda item: -unit_cost(work_unit(item.nodeid)))
