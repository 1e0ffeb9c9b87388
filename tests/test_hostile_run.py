"""Kernel files written to hurt the verifier (issue 17, the execution side): loading never runs them; running them is
boxed. Every attack gets a verdict within its budget, the test process survives, and the other kernels of a batch keep
their results."""
import os
import signal
import struct
import sys
import textwrap
import time

import numpy as np
import pytest

import litmus.safety
from litmus import corpus, simulate
from litmus.corpus import KernelFileError, LaunchError, Limits, load

needs_triton = pytest.mark.skipif(not simulate.triton_available(), reason="triton is not installed (pip install triton==3.9.0)")

VADD = (corpus.KERNEL_DIR / "vadd.py").read_text()
X = {"x_ptr": np.arange(1000.0), "y_ptr": np.ones(1000)}
FAST = Limits(timeout=3, memory=1 << 30)


def kernel(tmp_path, name, body="", top="", tail=""):
    "vadd renamed `name`, with `body` inserted at the top of the kernel body and `top`/`tail` around the module."
    text = VADD.replace("def vadd(", f"def {name}(").replace("    pid = tl.program_id(0)\n", "    pid = tl.program_id(0)\n" + textwrap.indent(textwrap.dedent(body), "    "), 1)
    p = tmp_path / f"{name}.py"
    p.write_text(textwrap.dedent(top) + text + textwrap.dedent(tail))
    return load(p)


def correct_result(run):
    return not run.failed and np.array_equal(run.outputs["out_ptr"], X["x_ptr"] + 1)


def test_top_level_side_effects_never_run_during_load_or_a_run(tmp_path):
    marker = tmp_path / "ran"
    top = f"""
        import sys
        import litmus.safety
        open({str(marker)!r}, "w").write("top level ran")
        litmus.safety.GPUSafetyCheck = None
        sys.exit(0)
        """
    k = kernel(tmp_path, "sneaky", top=top, tail="\nsys.exit(3)\n")
    assert not marker.exists() and litmus.safety.GPUSafetyCheck is not None
    run = simulate.run_model(k, None, X, limits=FAST)
    assert correct_result(run) and not marker.exists()          # only jit functions and literals are executed


def test_an_endless_loop_times_out_and_the_batch_keeps_its_results(tmp_path):
    spin = kernel(tmp_path, "spin", "while True:\n    pass\n")
    good = corpus.get("vadd")
    t0 = time.monotonic()
    runs = simulate.execute([(good, None, X), (spin, None, X), (good, None, X)], "model", FAST)
    assert time.monotonic() - t0 < 3 + 10
    assert correct_result(runs[0]) and correct_result(runs[2])
    assert runs[1].timed_out and runs[1].failed and "3 s" in runs[1].error


def test_a_huge_grid_is_refused_before_anything_runs():
    t0 = time.monotonic()
    with pytest.raises(LaunchError, match="programs; the limit"):
        simulate.run_model(corpus.get("vadd"), {"N": 10 ** 9 * 128}, None)
    with pytest.raises(LaunchError, match="non-negative"):
        simulate.run_model(corpus.get("vadd"), {"N": -128}, None)
    assert time.monotonic() - t0 < 2


def refused(tmp_path, name, body, top=""):
    "A kernel whose body reaches outside Triton is refused by the loader, naming the line, before anything runs."
    with pytest.raises(KernelFileError, match=r"line \d+: ") as e:
        kernel(tmp_path, name, body, top=top)
    return str(e.value)


def test_huge_allocations_are_errors_not_crashes(tmp_path):
    assert "an import" in refused(tmp_path, "numpy_alloc", "import numpy\nbig = numpy.ones(1 << 28)\n")
    (r1,) = corpus.boxed(lambda _: {"x": np.ones(1 << 28)}, [None], FAST)   # the box itself, on the same allocation
    block = kernel(tmp_path, "block_alloc", "big = tl.zeros([1 << 40], tl.float32)\n")
    (r2,) = simulate.execute([(block, None, X)], "model", FAST)
    assert not r1.ok and "MemoryError" in r1.error and not r1.timed_out
    assert r2.failed and "lane limit" in r2.error


def _segfault(_):
    import ctypes
    ctypes.string_at(0)


def test_a_segfault_is_a_verdict(tmp_path):
    assert "an import" in refused(tmp_path, "segv", "import ctypes\nctypes.string_at(0)\n")
    crash, after = corpus.boxed(lambda i: _segfault(i) if i == 0 else {"ok": 1}, [0, 1], FAST)
    assert not crash.ok and "SIGSEGV" in crash.error and not crash.timed_out and after.ok and after.value == {"ok": 1}


def test_a_child_that_exits_or_kills_its_group_is_a_verdict(tmp_path):
    refused(tmp_path, "exits", "import os\nos._exit(0)\n")
    def attack(what):
        if what == "exit": os._exit(0)
        if what == "killpg": os.killpg(0, signal.SIGKILL)           # the box may not signal anything, its group included
        return {"fine": True}
    exits, killer, fine = corpus.boxed(attack, ["exit", "killpg", "fine"], FAST)
    assert "exited with status 0" in exits.error and fine.ok
    assert not killer.ok and ("PermissionError" in killer.error or "SIGKILL" in killer.error)


def test_flooding_stdout_or_the_answer_pipe(tmp_path, capfd):
    printer = kernel(tmp_path, "printer", "while True:\n    print('x' * 1000)\n")
    refused(tmp_path, "flood", "import os\nwhile True:\n    os.write(3, b'x' * 65536)\n")
    def flood(_):
        while True: os.write(3, b"x" * 65536)
    t0 = time.monotonic()
    (r1,) = simulate.execute([(printer, None, X)], "model", FAST)
    (r2,) = corpus.boxed(flood, [None], FAST)
    assert r1.timed_out and not r2.ok and "token" in r2.error and time.monotonic() - t0 < 3 + 10
    assert "x" * 1000 not in capfd.readouterr().out                 # the child's stdout is /dev/null


def test_a_trickle_does_not_reset_the_watchdog(tmp_path):
    "A child that keeps writing (a valid-looking frame, one byte a tenth of a second) is cut at its wall clock."
    def trickle(_):
        serving = sys._getframe(1).f_locals
        frame = struct.pack("<4s16sQQQ", b"LTMS", serving["token"], serving["request_id"], 1000, 0)
        for byte in frame + b" " * 1000:
            os.write(3, bytes([byte])); time.sleep(0.1)
        return {}
    t0 = time.monotonic()
    (outcome,) = corpus.boxed(trickle, [None], Limits(timeout=2))
    assert outcome.timed_out and 2 <= time.monotonic() - t0 < 6


def test_forged_answers_are_errors(tmp_path):
    "A forged frame and a lying one, sent by boxed functions (a kernel file cannot even import os: the loader refuses it)."
    refused(tmp_path, "forged", "import os\nos.write(3, b'LTMS' + bytes(16) + bytes(24))\nos._exit(0)\n")
    def forge(_):
        os.write(3, b"LTMS" + bytes(16) + bytes(24)); os._exit(0)
    (r1,) = corpus.boxed(forge, [None], FAST)
    assert not r1.ok and "token" in r1.error
    t = tmp_path / "lying.py"
    # a child that finds its token and sends a well-formed frame with the wrong output shape
    lying_body = ("import os, sys, json, struct\nf = sys._getframe()\n"
                  "while 'token' not in f.f_locals:\n    f = f.f_back\n"
                  "h = json.dumps({'ok': True, 'value': {'outputs': {'out_ptr': [1.0]}}}).encode()\n"
                  "os.write(3, struct.pack('<4s16sQQQ', b'LTMS', f.f_locals['token'], f.f_locals['request_id'], len(h), 0) + h)\nos._exit(0)\n")
    refused(tmp_path, "lying", lying_body)
    def lie(_):
        import json
        f = sys._getframe()
        while "token" not in f.f_locals: f = f.f_back
        h = json.dumps({"ok": True, "value": {"outputs": {"out_ptr": [1.0]}}}).encode()
        os.write(3, struct.pack("<4s16sQQQ", b"LTMS", f.f_locals["token"], f.f_locals["request_id"], len(h), 0) + h); os._exit(0)
    (lied,) = corpus.boxed(lie, [None], FAST)
    run = simulate._checked_run(corpus.get("vadd"), None, lied, "model")       # what a caller does with the answer
    assert lied.ok and run.failed and "malformed result" in run.error


def test_processes_a_kernel_spawns_die_with_it(tmp_path):
    "The loader refuses the spawn; a boxed function cannot start a process at all, and the box's tree is killed whole."
    refused(tmp_path, "spawner", "import subprocess\np = subprocess.Popen(['sleep', '600'])\n")
    def spawn(_):
        import subprocess
        try: p = subprocess.Popen(["sleep", "600"])
        except OSError as e: return {"spawned": False, "why": str(e)}
        return {"spawned": True, "pid": p.pid}
    (r,) = corpus.boxed(spawn, [None], FAST)
    assert r.ok and r.value["spawned"] is False, r.value
    from litmus.sandbox import kill_tree
    pid = os.fork()
    if pid == 0:                                      # a process tree without the box's seccomp: kill_tree takes it whole
        os.setsid()
        if os.fork() == 0: time.sleep(600)
        time.sleep(600)
    time.sleep(0.2)
    assert kill_tree(pid) >= 2
    os.waitpid(pid, 0)


def test_a_hostile_reference_is_an_error_verdict(tmp_path):
    p = tmp_path / "vadd.py"
    p.write_text(VADD.replace("    return x + y", "    while True:\n        pass"))
    k = load(p)
    (v,) = simulate.check_many([(k, None, X)], "model", FAST)
    assert v.error and "reference" in v.error and "no answer within" in v.error and v.fails


@needs_triton
def test_the_interpreter_boxes_each_kernel_file(tmp_path):
    spin = kernel(tmp_path, "spin", "while True:\n    pass\n")
    broken = kernel(tmp_path, "broken", "q = [][1]\n")
    good = corpus.get("vadd")
    t0 = time.monotonic()
    runs = simulate.run_interpreter([(spin, None, X), (good, None, X), (broken, None, X)], FAST)
    assert time.monotonic() - t0 < 120
    assert runs[0].timed_out and correct_result(runs[1]) and "IndexError" in runs[2].error


@needs_triton
def test_an_interpreter_worker_that_cannot_start_loses_no_caller(monkeypatch):
    "Neither a warm server nor a fresh worker can start: every job of the batch says so."
    simulate._stop_warm_server()                 # a server left warm by an earlier test would take the batch
    monkeypatch.setattr(simulate.sys, "executable", "/bin/false")
    runs = simulate.run_interpreter([(corpus.get("vadd"), None, X), (corpus.get("vadd"), {"N": 8}, None)], FAST)
    assert all(r.failed and "exited with status 1" in r.error for r in runs)


def test_a_dead_warm_server_is_replaced_and_its_batch_still_runs():
    "The warm server killed between batches: the next batch starts a server of its own and gets its results."
    vadd = (corpus.get("vadd"), {"N": 8}, None)
    assert not simulate.run_interpreter([vadd], FAST)[0].failed
    dead = simulate._WARM["server"]
    os.killpg(dead.pid, signal.SIGKILL)
    dead.wait()
    run = simulate.run_interpreter([vadd], FAST)[0]
    assert not run.failed and simulate._WARM["server"] is not dead and simulate._WARM["server"].poll() is None


def test_a_kernel_whose_imports_fail_gets_its_own_error(tmp_path):
    "A body that reads an imported module is refused by the loader, naming the module and the line that reads it."
    message = refused(tmp_path, "broken", "nonexistent_module_xyz.launch()\n", top="import nonexistent_module_xyz\n")
    lineno = 1 + (textwrap.dedent("import nonexistent_module_xyz\n") + VADD).splitlines().index("    pid = tl.program_id(0)") + 1
    assert "nonexistent_module_xyz" in message and f"line {lineno}:" in message, message
