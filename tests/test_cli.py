"""The `litmus` command line (chapter 15), run as a subprocess the way a user and CI run it: exit codes 0/1/2/3,
--json, the documented examples (the launcher form and the literal form), `init`, `run`, `support`, and a kernel file
that tries to choose the exit code."""
import contextlib, io, json, os, subprocess, sys, tomllib
from pathlib import Path
import pytest
from litmus.cli import EXAMPLE_KERNEL, EXAMPLE_LAUNCHER, main

ROOT = Path(__file__).resolve().parent.parent


def litmus(*args, timeout=300):
    "Run `python -m litmus.cli ARGS` (the console script's function) and return (exit code, stdout, stderr)."
    p = subprocess.run([sys.executable, "-m", "litmus.cli", *map(str, args)], capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


@pytest.fixture(scope="module")
def example(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cli")
    good = folder / "my_softmax.py"; good.write_text(EXAMPLE_KERNEL)
    bad = folder / "my_softmax_bad.py"; bad.write_text(EXAMPLE_KERNEL.replace("z = x - tl.max(x, axis=0)", "z = x"))
    ref = folder / "ref.py"
    ref.write_text("import numpy as np\ndef reference(x):\n    e = np.exp(x - x.max(-1, keepdims=True))\n    return e / e.sum(-1, keepdims=True)\n")
    return folder, good, bad, ref


def test_the_console_script_is_main():
    entry = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]["litmus"]
    assert entry == "litmus.cli:main"


def test_documented_example_is_accepted(example):
    _, good, _, _ = example
    code, out, err = litmus("check", good, "--dims", "N=1024")
    assert code == 0, out + err
    assert "ACCEPT" in out and "certified" in out and "does not mean" in out and "N=1024" in out
    assert "litmus [" in err                              # the progress line


def test_exit_codes(example, capsys):
    folder, good, bad, ref = example
    assert litmus("check", bad, "--quick")[0] == 1
    assert litmus("check", good, "--ref", ref, "--quick")[0] == 2
    code, _, err = litmus("check", good, "--unknown-flag")               # argparse's own exit code 2 would read as UNKNOWN
    assert code == 3 and "litmus: error:" in err
    for args in (["check", folder / "nope.py"], ["check", good, "--ref", "softmax(x"], ["check", good, "--domain", "x in [1, 0]"],
                 ["check", good, "--dims", "N=-3"], ["check", good, "--budget", "0"], ["frobnicate"], ["check"],
                 ["run", "no_such_kernel"], ["check", good, "--timeout", "-1"]):
        code = main([str(a) for a in args])
        assert code == 3, (args, code)
        assert "litmus: error:" in capsys.readouterr().err


def test_malformed_kernel_file_is_a_usage_error(tmp_path):
    bad = tmp_path / "broken.py"; bad.write_text("def k(:\n")
    code, _, err = litmus("check", bad)
    assert code == 3 and "syntax" in err.lower()
    nolaunch = tmp_path / "nolaunch.py"; nolaunch.write_text("import triton\n@triton.jit\ndef nolaunch(x):\n    pass\n")
    code, _, err = litmus("check", nolaunch)
    assert code == 3 and "LITMUS" in err


def test_json_output(example):
    _, _, bad, _ = example
    code, out, _ = litmus("check", bad, "--quick", "--json")
    d = json.loads(out)
    assert code == d["exit_code"] == 1 and d["verdict"] == "REJECT"
    cx = d["falsification"]["counterexample"]
    assert cx["elements"] <= 2 and cx["dims"]["N"] >= 1 and cx["inputs"]


def test_run_softmax_nomaxsub():
    code, out, _ = litmus("run", "softmax_nomaxsub")
    assert code == 1
    for part in ("bound:", "certified", "safety:", "counterexample", "REJECT"): assert part in out, part


def test_safety_shapes_support(example):
    _, good, _, _ = example
    code, out, _ = litmus("safety", good)
    assert code == 0 and "ACCEPT" in out
    def run_main(*args):
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer): code = main(list(map(str, args)))
        return code, buffer.getvalue()
    code, out = run_main("safety", good, "--json")
    assert code == 0 and json.loads(out)["verdict"] == "ACCEPT"
    code, out = run_main("shapes", good)
    assert code == 0 and "block+1" in out and "configurations" in out
    code, out = run_main("support", "--json")
    rows = {r["fragment"]: r["status"] for r in json.loads(out)["fragments"]}
    assert code == 0 and rows["softmax"] == "certified" and rows["attention (chained contraction)"] != "certified"
    assert run_main("run", "--list")[0] == 0


def test_the_kernel_file_cannot_choose_the_exit_code(tmp_path):
    # top-level sys.exit(0), and a body that tries os._exit(0): neither may turn a wild store into exit code 0
    src = EXAMPLE_KERNEL.replace('import triton\n', 'import os, sys\nimport triton\nsys.exit(0)\n', 1)
    src = src.replace("tl.store(y_ptr + row * n_cols + cols, num / tl.sum(num, axis=0), mask=mask)",
                      "tl.store(y_ptr + row * n_cols + cols + 100000, num / tl.sum(num, axis=0), mask=mask)\n    os._exit(0)")
    path = tmp_path / "exit_zero.py"; path.write_text(src)
    code, out, err = litmus("check", path, "--quick")
    assert code == 3 and "line 17" in err, (code, out, err)       # refused by the loader: an error, never exit 0
    assert main(["check", str(path), "--quick"]) == 3            # in-process too: the verifier survives and decides


SHIPPED = ["--ref", "torch.softmax(x, dim=-1)", "--shape", "x: [M, N] float32", "--dims", "M=4,N=300",
           "--domain", "x in [-1000, 1000]", "--quick", "--json"]


def test_documented_launcher_example_is_checked_as_shipped(tmp_path):
    "The tutorial's softmax with its launcher: ACCEPT with a certified bound; without its max shift: REJECT."
    good = tmp_path / "tutorial_softmax.py"
    good.write_text(EXAMPLE_LAUNCHER)
    code, out, err = litmus("check", good, *SHIPPED)          # one launcher in the file: no --entry needed
    data = json.loads(out)
    assert code == 0 and data["verdict"] == "ACCEPT" and data["launches"][0]["certified"], err[-2000:]
    bad = tmp_path / "tutorial_softmax_bad.py"
    bad.write_text(EXAMPLE_LAUNCHER.replace("row_minus_max = row - tl.max(row, axis=0)", "row_minus_max = row"))
    with contextlib.redirect_stdout(io.StringIO()) as shown:
        assert main(["check", str(bad), "--entry", "softmax", *SHIPPED]) == 1
    assert json.loads(shown.getvalue())["launches"][0]["falsification"]["counterexample"]["kind"] == "numeric"


def test_init_prints_the_derived_launch_and_refuses_what_it_cannot_read(tmp_path, capsys):
    path = tmp_path / "tutorial_softmax.py"
    path.write_text(EXAMPLE_LAUNCHER)
    assert main(["init", str(path), "--entry", "softmax"]) == 0
    printed = capsys.readouterr().out
    assert '"grid": ["n_rows"]' in printed and '"value": "next_pow2(n_cols)"' in printed and '"role": "out"' in printed
    assert main(["init", str(path), "--entry", "nope"]) == 3
    assert "no launcher named 'nope'" in capsys.readouterr().err
    assert main(["check", str(path), "--entry", "softmax", "--shape", "x: M, N"]) == 3
    assert "should read like" in capsys.readouterr().err


# ---- issue 30: many files at once, and a start that imports only what the command runs ----

def test_check_many_prints_progress_and_a_summary_and_exits_with_the_worst_verdict():
    from litmus import corpus
    paths = [corpus.get(n).path for n in ("vadd", "vadd_nomask")]
    code, out, err = litmus("check-many", "--quick", "--workers", "2", *paths)
    assert code == 1, out + err                                         # one REJECT: the batch is REJECT
    assert len([line for line in err.splitlines() if line.startswith("litmus [")]) == 2      # a line as each file finishes
    rows = out.splitlines()
    assert rows[0].startswith("ACCEPT") and rows[0].endswith(str(paths[0])) and rows[1].startswith("REJECT")
    assert "2 kernels: 1 ACCEPT, 1 REJECT; per kernel p50" in out and "p95" in out and "(local, 2 workers)" in out
    code, out, err = litmus("check-many", "--quick", "--json", "--workers", "1", paths[0])
    data = json.loads(out)
    assert code == 0 and not err and [r["verdict"] for r in data["results"]] == ["ACCEPT"]
    assert data["summary"]["verdicts"] == {"ACCEPT": 1} and data["summary"]["p50_seconds"] == data["results"][0]["seconds"]


def test_check_many_exit_codes_and_usage_errors(tmp_path, capsys):
    from litmus import corpus
    unreadable = tmp_path / "unreadable.py"
    unreadable.write_text("def (:\n")
    with contextlib.redirect_stdout(io.StringIO()) as shown:
        assert main(["check-many", "--quick", "--workers", "1", str(corpus.get("vadd").path), str(unreadable)]) == 2
    assert "UNKNOWN" in shown.getvalue() and "could not check it" in shown.getvalue()
    vadd = str(corpus.get("vadd").path)
    for args in (["check-many"], ["check-many", str(tmp_path / "nope.py")], ["check-many", vadd, "--workers", "0"],
                 ["check-many", vadd, "--budget", "0"], ["check-many", vadd, "--deadline", "-1"]):
        assert main(args) == 3, args
        assert "litmus: error:" in capsys.readouterr().err


def test_check_many_on_ray_without_ray_is_a_usage_error_that_says_how(monkeypatch, capsys):
    from litmus import cli, corpus
    def absent():
        raise ImportError("the Ray backend needs Ray: pip install 'limn[ray]' (ray>=2.9)")
    monkeypatch.setattr(cli, "_ray", absent)
    assert main(["check-many", "--ray", "auto", str(corpus.get("vadd").path)]) == 3
    assert "pip install 'limn[ray]'" in capsys.readouterr().err


def test_the_command_line_imports_only_what_the_command_runs():
    "`litmus --help` imports no numpy; `litmus check` of a literal file does not import the launcher reader (chapter 14)."
    from litmus import corpus
    probe = ("import sys, contextlib, io\nfrom litmus.cli import main\nwith contextlib.redirect_stdout(io.StringIO()):\n"
             "    code = main(sys.argv[1:])\nprint(code, sorted(m for m in ('numpy', 'litmus.launcher', 'litmus.rewards', 'ray') "
             "if m in sys.modules))")
    def loaded(*args):
        p = subprocess.run([sys.executable, "-c", probe, *map(str, args)], capture_output=True, text=True, timeout=300)
        return p.stdout.split(None, 1)
    assert loaded("--help") == ["0", "[]\n"]
    assert loaded("check", corpus.get("vadd").path, "--quick") == ["0", "['numpy']\n"]
    assert loaded("check", corpus.get("vadd").path, "--quick", "--entry", "vadd")[1] == "['litmus.launcher', 'numpy']\n"
    import litmus
    assert litmus.ToleranceBound.__module__ == "litmus.bounds" and litmus.parse_spec.__module__ == "litmus.spec"
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        litmus.nope


def test_init_validates_a_domain_against_the_launch_it_read(tmp_path, capsys):
    path = tmp_path / "tutorial_softmax.py"
    path.write_text(EXAMPLE_LAUNCHER)
    assert main(["init", str(path), "--entry", "softmax", "--domain", "x in [-100, 100]"]) == 0
    assert '"grid": ["n_rows"]' in capsys.readouterr().out
    assert main(["init", str(path), "--entry", "softmax", "--domain", "nope in [0, 1]"]) == 3
    assert "nope" in capsys.readouterr().err
