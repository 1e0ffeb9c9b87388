"""The launcher reader (issue 27, chapter nbs/litmus/14_launcher): a kernel file checked as it ships.

Held to oracles above the reader: Triton's interpreter running the file's own launcher (the derived launch must
compute what the real launch computes), the hand-written LITMUS literals of the real-kernel suite (the same
verdicts), and the trust rules (nothing in a launcher runs; a launcher whose defaults or decorators would run code
is refused). Cheap by default; the whole real-kernel comparison is marked long."""
import json, os, re, subprocess, sys, textwrap
from pathlib import Path
import numpy as np
import pytest
from litmus import corpus, simulate
from litmus.cli import EXAMPLE_LAUNCHER, main
from litmus.launcher import (LauncherError, read_launches, kernel_from, parse_shapes, check_entry, launchers,
                             literal_text, infer_spec)

ROOT = Path(__file__).resolve().parent.parent
REAL = ROOT / "tests" / "real_kernels"
HEAD = "import torch\nimport triton\nimport triton.language as tl\n"

ADD = HEAD + '''

@triton.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    tl.store(output_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask), mask=mask)


def add(x, y):
    output = torch.empty_like(x)
    n_elements = output.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)
    add_kernel[grid](x, y, output, n_elements, BLOCK_SIZE=256)
    return output
'''


def write(tmp_path, name, text):
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    return path


# ---- the derived launch computes what the real launch computes (Triton's interpreter runs the real one) ----

ORACLE = r'''
import importlib.util, json, sys
import numpy as np, torch
answers = []
for path, entry, inputs in json.loads(sys.argv[1]):
    spec = importlib.util.spec_from_file_location("k", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = getattr(module, entry)(*[torch.tensor(np.array(v), dtype=torch.float32) for v in inputs.values()])
    answers.append(out.double().numpy().ravel().tolist())
print(json.dumps(answers))
'''

COPY_ROWS = HEAD + '''

@triton.jit
def copy_rows(x_ptr, y_ptr, M, N, sxm, sxn, sym, syn, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = tl.load(x_ptr + tl.program_id(0) * sxm + offs * sxn, mask=offs < N)
    tl.store(y_ptr + tl.program_id(0) * sym + offs * syn, v + 1, mask=offs < N)


def transposed(x):
    xt = x.t()
    M, N = xt.shape
    y = torch.empty((M, N), device=x.device, dtype=x.dtype)
    copy_rows[(M,)](xt, y, M, N, xt.stride(0), xt.stride(1), y.stride(0), y.stride(1), BLOCK=triton.next_power_of_2(N))
    return y


def permuted(x):
    xt = x.permute(1, 0).contiguous()
    M, N = xt.shape
    y = torch.empty_like(xt)
    copy_rows[(M,)](xt, y, M, N, xt.stride(0), xt.stride(1), y.stride(0), y.stride(1), BLOCK=triton.next_power_of_2(N))
    return y


def batched(x):
    if x.ndim == 2:
        x = x.unsqueeze(0)
    B, M, N = x.shape
    x2 = x.reshape(-1, N)
    y = torch.empty(size=(B * M, N), device=x.device, dtype=torch.float32)
    copy_rows[(B * M,)](x2, y, B * M, N, x2.stride(0), x2.stride(1), y.stride(0), y.stride(1), BLOCK=triton.next_power_of_2(N))
    return y.view(B, M, N).squeeze(0)
'''

UNTYPED = HEAD + '''

@triton.jit
def scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2 + 1, mask=offs < n)


def _launch(x, out):
    n = x.numel()
    if n == 0:
        return out
    scale_kernel[(triton.cdiv(n, 64),)](x, out, n, BLOCK=64)
    return out


def scaled(input):
    x = input
    if not x.is_contiguous():
        x = x.contiguous()
    if not isinstance(x, torch.Tensor) or x.is_complex():
        raise TypeError("a real tensor")
    if not x.is_floating_point():
        x = x.float()
    out = torch.empty_like(x)
    return _launch(x, out)
'''

ZEROED = HEAD + '''

@triton.jit
def row_sum(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    offs = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x_ptr + tl.program_id(0) * N + offs, mask=offs < N, other=0.0)
    tl.atomic_add(y_ptr + tl.program_id(0), tl.sum(v, axis=0))


def summed(x):
    M, N = x.shape
    y = torch.empty((M,), device=x.device, dtype=torch.float32)
    y.zero_()
    row_sum[(M, triton.cdiv(N, 64))](x, y, N, BLOCK=64)
    return y
'''

CASES = [("softmax", EXAMPLE_LAUNCHER, "softmax", {"x": ["M", "N"]}, {"M": 5, "N": 300}, "output_ptr"),
         ("zeroed", ZEROED, "summed", {"x": ["M", "N"]}, {"M": 4, "N": 200}, "y_ptr"),
         ("scaled", UNTYPED, "scaled", {"input": ["M", "N"]}, {"M": 3, "N": 50}, "y_ptr"),
         ("add", ADD, "add", {"x": ["N"], "y": ["N"]}, {"N": 1000}, "output_ptr"),
         ("copy_rows", COPY_ROWS, "transposed", {"x": ["A", "B"]}, {"A": 7, "B": 33}, "y_ptr"),
         ("copy_rows", COPY_ROWS, "permuted", {"x": ["A", "B"]}, {"A": 5, "B": 70}, "y_ptr"),
         ("copy_rows", COPY_ROWS, "batched", {"x": ["M", "N"]}, {"M": 6, "N": 20}, "y_ptr")]


def test_derived_launch_computes_what_the_launcher_computes(tmp_path):
    """Triton's interpreter runs each file's own launcher; the model runs the derived launch; the outputs agree (views:
    a transpose passed with its strides, a packed copy of a permute, an unsqueeze decided by the rank, size=; a
    parameter known as a tensor only through an alias and the helper that launches, isinstance and dtype tests)."""
    rng, jobs, derived = np.random.default_rng(0), [], []
    for name, text, entry, shapes, dims, out in CASES:
        path = write(tmp_path, name, text)
        arrays = {p: rng.uniform(-3, 3, [dims[d] for d in s]).astype(np.float32) for p, s in shapes.items()}
        jobs.append((str(path), entry, {k: v.tolist() for k, v in arrays.items()}))
        metas, _ = read_launches(path, entry, {p: (s, "float32") for p, s in shapes.items()}, dims)
        order = lambda a: a.get("perm") or range(arrays[a["from"]].ndim)   # a packed copy of a transpose: permuted
        inputs = {a["name"]: arrays[a["from"]].transpose(order(a)).astype(np.float64) for a in metas[0]["args"]
                  if a.get("role") == "in"}
        derived.append(np.asarray(simulate.run_model_here(kernel_from(path, metas[0]), None, inputs).outputs[out]).ravel())
    ran = subprocess.run([sys.executable, "-c", ORACLE, json.dumps(jobs)], capture_output=True, text=True,
                         env={**os.environ, "TRITON_INTERPRET": "1"}, timeout=120)
    assert ran.returncode == 0, ran.stderr[-2000:]
    for real, mine in zip(json.loads(ran.stdout.strip().splitlines()[-1]), derived):
        np.testing.assert_allclose(mine, np.array(real), rtol=1e-5, atol=1e-6)


# ---- the trust rules on the launcher path ----

def test_nothing_in_the_file_runs_and_hostile_launchers_are_refused(tmp_path):
    marker = tmp_path / "ran"
    top = f"open({str(marker)!r}, 'w').write('top level')\nimport sys\nsys.exit(0)\n"
    path = write(tmp_path, "softmax", EXAMPLE_LAUNCHER.replace("import torch\n", "import torch\n" + top, 1))
    metas, _ = read_launches(path, "softmax")
    assert metas[0]["grid"] == ["n_rows"] and not marker.exists()
    for bad, what in [("def softmax(x, n=open(%r, 'w')):" % str(marker), "would run"),
                      ("@functools.lru_cache\ndef softmax(x):", "decorator"),
                      ("def softmax(*x):", "named parameters")]:
        hostile = write(tmp_path, "hostile", EXAMPLE_LAUNCHER.replace("def softmax(x):", bad))
        with pytest.raises(LauncherError, match=what):
            read_launches(hostile, "softmax")
    tuned = EXAMPLE_LAUNCHER.replace("@triton.jit", "@triton.autotune(configs=[], key=[], prune_configs_by={'f': open(%r)})\n@triton.jit" % str(marker))
    with pytest.raises(LauncherError, match="would run"):
        read_launches(write(tmp_path, "tuned", tuned), "softmax")
    assert not marker.exists()


def test_the_file_cannot_choose_the_exit_code_on_the_launcher_path(tmp_path, capsys):
    "A kernel file that calls sys.exit(0) at its top level, with a planted bug: litmus check --entry still exits 1."
    bad = EXAMPLE_LAUNCHER.replace("import torch\n", "import torch\nimport sys\nsys.exit(0)\n", 1)
    bad = bad.replace("row_minus_max = row - tl.max(row, axis=0)", "row_minus_max = row")
    path = write(tmp_path, "bad_softmax", bad)
    code = main(["check", str(path), "--entry", "softmax", "--ref", "torch.softmax(x, dim=-1)", "--shape", "x: [M, N]",
                 "--dims", "M=4,N=300", "--domain", "x in [-1000, 1000]", "--quick", "--json"])
    assert code == 1 and json.loads(capsys.readouterr().out)["verdict"] == "REJECT"


# ---- what it cannot read is a usage error naming the construct and the line ----

@pytest.mark.parametrize("old,new,missing", [
    ("softmax_kernel[(n_rows,)]", "softmax_kernel[(int(x.sum().item()),)]", "grid"),
    ("    y = torch.empty_like(x)\n", "    y = torch.empty_like(x)\n    while n_rows > 1:\n        n_rows = n_rows // 2\n", "while"),
    ("    y = torch.empty_like(x)\n", "    y = torch.empty_like(x)\n    if x.max() > 64:\n        softmax_kernel[(1,)](y, x, 0, 0, n_cols, BLOCK_SIZE=BLOCK_SIZE)\n", "condition"),
    ("    y = torch.empty_like(x)\n", "    y = torch.empty_like(x)\n    if n_rows > 64 or x.max() > 64:\n        return y\n", "condition"),
    ("x.stride(0), y.stride(0)", "x.stride(0), numpy.float32(2)", "args"),
])
def test_unreadable_launchers_are_usage_errors(tmp_path, capsys, old, new, missing):
    path = write(tmp_path, "softmax", EXAMPLE_LAUNCHER.replace(old, new))
    assert main(["init", str(path), "--entry", "softmax"]) == 3
    err = capsys.readouterr().err
    assert "line " in err and missing in err and "LITMUS literal" in err


def test_a_literal_fills_what_the_launcher_leaves_unreadable(tmp_path):
    "The grid the launcher computes from the data comes from a LITMUS literal holding just that; nothing else changes."
    text = EXAMPLE_LAUNCHER.replace("softmax_kernel[(n_rows,)]", "softmax_kernel[(int(x.sum().item()),)]")
    path = write(tmp_path, "softmax", text + '\nLITMUS = {"grid": ["n_rows"]}\n')
    metas, _ = read_launches(path, "softmax", literal={"grid": ["n_rows"]})
    plain, _ = read_launches(write(tmp_path, "plain", EXAMPLE_LAUNCHER), "softmax")
    assert metas[0]["args"] == plain[0]["args"] and metas[0]["grid"] == ["n_rows"]


# ---- roles come from what the kernel does ----

ROLES = HEAD + '''

@triton.jit
def k(a_ptr, b_ptr, c_ptr, d_ptr, e_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(a_ptr + offs, mask=m)
    tl.store(b_ptr + offs, x, mask=m)
    tl.store(c_ptr + offs, tl.load(c_ptr + offs, mask=m) + x, mask=m)
    tl.atomic_add(d_ptr, tl.sum(x, axis=0))
    tl.atomic_add(e_ptr, tl.sum(x, axis=0))


def run(a, b, c):
    total = torch.zeros(1, dtype=torch.float32)
    garbage = torch.empty(1, dtype=torch.float32)
    n = a.numel()
    k[(triton.cdiv(n, 128),)](a, b, c, total, garbage, n, BLOCK=128)
    return total
'''

def test_roles_follow_the_kernel(tmp_path):
    metas, _ = read_launches(write(tmp_path, "roles", ROLES), "run")
    roles = {a["name"]: a["role"] for a in metas[0]["args"] if a["kind"] == "tensor"}
    inout = "inout" if "inout" in corpus.ROLES else None
    assert roles == {"a_ptr": "in", "b_ptr": "out", "c_ptr": inout or roles["c_ptr"], "d_ptr": "acc", "e_ptr": "out"}


# ---- autotune configs, several launches ----

TUNED = ADD.replace("@triton.jit", '@triton.autotune(configs=[triton.Config({"BLOCK_SIZE": 128}), '
                    'triton.Config({"BLOCK_SIZE": 512}, num_warps=8)], key=["n_elements"])\n@triton.jit', 1).replace(", BLOCK_SIZE=256)", ")")

def test_every_autotune_config_is_a_launch_the_check_covers(tmp_path):
    path = write(tmp_path, "tuned", TUNED)
    metas, _ = read_launches(path, "add", dims={"n_elements": 1000})
    assert [m["config"] for m in metas] == [{"BLOCK_SIZE": 128}, {"BLOCK_SIZE": 512}]
    assert [corpus.resolve(kernel_from(path, m)).grid for m in metas] == [(8,), (2,)]
    r = check_entry(path, "add", None, dims="n_elements=1000", quick=True)       # static: safety of each config
    assert [x.split("[")[-1] for x in r.checked] == ["BLOCK_SIZE=128]", "BLOCK_SIZE=512]"] and len(r.results) == 2
    assert "BLOCK_SIZE=512" in str(r)
    listed = ADD.replace("@triton.jit", 'def configs():\n    "the configs it is tuned over"\n    return [triton.Config('
                         '{"BLOCK_SIZE": 128}), triton.Config({"BLOCK_SIZE": 512}, num_warps=8)]\n\n\n'
                         '@triton.autotune(configs=configs(), key=["n_elements"])\n@triton.jit', 1).replace(", BLOCK_SIZE=256)", ")")
    by_def, _ = read_launches(write(tmp_path, "listed", listed), "add", dims={"n_elements": 1000})
    assert [m["config"] for m in by_def] == [{"BLOCK_SIZE": 128}, {"BLOCK_SIZE": 512}]     # a def returning the list
    chosen = listed.replace("    return [", "    if BIG:\n        return []\n    return [")
    with pytest.raises(LauncherError, match="configs litmus cannot read"):
        read_launches(write(tmp_path, "chosen", chosen), "add", dims={"n_elements": 1000})


TWO_PASS = HEAD + '''

@triton.jit
def scale(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)


@triton.jit
def shift(y_ptr, z_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(z_ptr + offs, tl.load(y_ptr + offs, mask=offs < n) + 1, mask=offs < n)


def two_pass(x):
    y = torch.empty_like(x)
    z = torch.empty_like(x)
    n = x.numel()
    scale[(triton.cdiv(n, 64),)](x, y, n, BLOCK=64)
    shift[(triton.cdiv(n, 64),)](y, z, n, BLOCK=64)
    return z
'''

def test_several_launches_each_found_by_the_launch_that_names_it(tmp_path):
    path = write(tmp_path, "two_pass", TWO_PASS)
    assert launchers(path) == ["two_pass"]
    metas, _ = read_launches(path, "two_pass")
    assert [m["kernel"] for m in metas] == ["scale", "shift"]
    assert metas[1]["args"][0]["from"].startswith("empty at line") and metas[1]["args"][0]["role"] == "in"


def test_a_chained_launch_is_never_held_to_the_entrys_reference(tmp_path):
    """scale writes y, which shift reads: y is an intermediate the reference (of z) does not describe, so neither launch
    is held to it alone; the pair is composed (run in sequence, one memory) and held to it as a whole."""
    path = write(tmp_path, "two_pass", TWO_PASS)
    result = check_entry(path, "two_pass", "x * 2 + 1", shapes="x: [N] float32", dims="N=300", domain="x in [-10, 10]",
                         quick=True)
    assert result.verdict == "ACCEPT" and result.checked == ["scale", "shift"], str(result)
    assert all(r.verdict == "UNKNOWN" and r.safety.verdict == "ACCEPT" for r in result.results), str(result)
    assert [c.kernels for c in result.composed] == [["scale", "shift"]] and result.composed[0].certified
    assert any("each sequence is run as a whole" in n for n in result.notes), result.notes


# ---- passes composed: a two-pass kernel checked as a whole, held to Triton's interpreter running its launcher ----

LAUNCHERS = ROOT / "tests" / "launchers"
SOFTMAX_2 = dict(entry="softmax", ref="torch.softmax(x, dim=-1)", shapes="x: [M, N] float32", dims="M=4, N=100",
                 domain="x in [-100, 100]")
ROW_SUM_2 = dict(entry="row_sum", ref="x.sum(dim=-1)", shapes="x: [M, N] float32", dims="M=4, N=300", domain="x in [-100, 100]")
TWO_PASSES = {"two_pass_softmax": SOFTMAX_2, "split_row_sum": ROW_SUM_2}
# (file, what the bug replaces, with what): a planted bug in pass 1 and one in pass 2 of each file
PLANTED = [("two_pass_softmax", 'other=-float("inf"))\n    m = tl.max', 'other=0.0)\n    m = tl.max'),
           ("two_pass_softmax", "/ tl.load(sum_ptr + row)", "/ tl.load(sum_ptr)"),
           ("split_row_sum", "mask=offs < n_cols, other=0.0", "mask=offs < n_cols - 1, other=0.0"),
           ("split_row_sum", "mask=offs < n_parts, other=0.0", "mask=offs < n_parts - 1, other=0.0")]

def planted(tmp_path, name, old, new, tag=""):
    text = (LAUNCHERS / f"{name}.py").read_text()
    assert old in text
    return write(tmp_path, f"{name}_bug{tag}", text.replace(old, new, 1))


@pytest.mark.parametrize("name", sorted(TWO_PASSES))
def test_a_correct_two_pass_kernel_is_accepted_as_a_whole(name):
    o = TWO_PASSES[name]
    result = check_entry(LAUNCHERS / f"{name}.py", o["entry"], o["ref"], shapes=o["shapes"], dims=o["dims"],
                         domain=o["domain"], quick=True)
    assert result.verdict == "ACCEPT" and len(result.results) == 2, str(result)
    assert result.composed[0].certified and result.composed[0].cases > 0, str(result)
    assert result.as_dict()["composed"][0]["verdict"] == "ACCEPT"


@pytest.mark.parametrize("bug", range(len(PLANTED)))
def test_a_planted_bug_in_either_pass_is_rejected_with_a_witness(tmp_path, bug):
    name, old, new = PLANTED[bug]
    o = TWO_PASSES[name]
    result = check_entry(planted(tmp_path, name, old, new), o["entry"], o["ref"], shapes=o["shapes"], dims=o["dims"],
                         domain=o["domain"], quick=True)
    composed = result.composed[0]
    assert result.verdict == "REJECT" and composed.verdict == "REJECT", str(result)
    assert "torch says" in composed.witness and "certified" in composed.bound, str(composed)

def test_the_composed_verdicts_hold_to_tritons_interpreter(tmp_path):
    """Triton's interpreter runs each file's own launcher (both passes) at the checked sizes, on an all-negative input
    (the one that shows a 0 fill in place of -inf): the ACCEPTed files agree with torch, and every planted bug REJECTed
    above gives a wrong result there too (so none of those REJECTs is false)."""
    rng, jobs, refs, correct = np.random.default_rng(1), [], [], []
    files = [(LAUNCHERS / f"{n}.py", n, True) for n in sorted(TWO_PASSES)]
    files += [(planted(tmp_path, n, old, new, i), n, False) for i, (n, old, new) in enumerate(PLANTED)]
    import torch
    for path, name, ok in files:
        o = TWO_PASSES[name]
        dims = {k: int(v) for k, v in (part.split("=") for part in o["dims"].split(", "))}
        x = rng.uniform(-100, -1, (dims["M"], dims["N"])).astype(np.float32)    # all negative: pass 1's 0 fill shows
        jobs.append((str(path), o["entry"], {"x": x.tolist()}))
        refs.append(eval(o["ref"], {"torch": torch}, {"x": torch.from_numpy(x.astype(np.float64))}).numpy().ravel())
        correct.append(ok)
    ran = subprocess.run([sys.executable, "-c", ORACLE, json.dumps(jobs)], capture_output=True, text=True,
                         env={**os.environ, "TRITON_INTERPRET": "1"}, timeout=300)
    assert ran.returncode == 0, ran.stderr[-2000:]
    for real, ref, ok, job in zip(json.loads(ran.stdout.strip().splitlines()[-1]), refs, correct, jobs):
        assert np.allclose(np.array(real), ref, rtol=1e-4, atol=1e-6) == ok, job[0]


def test_init_prints_a_literal_that_loads_as_the_same_launch(tmp_path):
    "The printed literal, kept in the file, is read by chapter 06's loader into the launch the reader derived."
    path = write(tmp_path, "softmax", EXAMPLE_LAUNCHER)
    metas, notes = read_launches(path, "softmax", parse_shapes("x: [M, N] float16"), {"M": 8, "N": 1000})
    text = literal_text(metas, notes)
    body = "\n".join(line for line in text.splitlines() if not line.startswith("#"))
    kept = write(tmp_path, "softmax_kernel", EXAMPLE_LAUNCHER + "\n" + body + "\n")
    loaded = corpus.resolve(corpus.load(kept))
    derived = corpus.resolve(kernel_from(path, metas[0]))
    assert loaded.grid == derived.grid == (8,)
    assert {k: v for k, v in loaded.values.items() if not hasattr(v, "shape")} == \
           {k: v for k, v in derived.values.items() if not hasattr(v, "shape")}
    assert [(t.name, t.dtype, t.shape, t.role) for t in loaded.tensors] == [(t.name, t.dtype, t.shape, t.role) for t in derived.tensors]


def test_a_torch_reference_is_a_spec_only_where_it_agrees():
    assert infer_spec("torch.softmax(x, dim=-1)", {"x": "input_ptr"}) == "softmax(input_ptr)"
    assert infer_spec("torch.relu(a @ b)", {"a": "a_ptr", "b": "b_ptr"}) == "max(matmul(a_ptr, b_ptr), 0.0)"
    assert infer_spec("torch.linalg.vector_norm(x, dim=-1)", {"x": "X"}) == "sqrt(sum(X * X))"
    assert infer_spec("torch.cumsum(x, dim=0)", {"x": "x"}) is None and infer_spec("x.numpy()", {"x": "x"}) is None
    mv = {"A": "a_ptr", "x": "x_ptr"}        # a matrix times a vector: row sums, K the row length (was a crash in _agree)
    assert infer_spec("torch.matmul(A, x)", mv, ranks={"A": 2, "x": 1}) == "sum(a_ptr * x_ptr)" == infer_spec("A @ x", mv, ranks={"A": 2, "x": 1})
    assert infer_spec("torch.mv(A, x)", mv, ranks={"A": 2, "x": 1}) == "sum(a_ptr * x_ptr)"
    assert infer_spec("x @ A", mv, ranks={"A": 2, "x": 1}) is None
    assert infer_spec("A @ x", mv, ranks={"A": 2, "x": 2}) == "matmul(a_ptr, x_ptr)"
    cols = {"x": "X"}                        # a matrix's first dim: its columns, the rows of its transpose
    assert infer_spec("x.sum(dim=0)", cols, ranks={"x": 2}) == "sum(transpose(X))" == infer_spec("torch.sum(x, 0)", cols, ranks={"x": 2})
    assert infer_spec("x.mean(dim=-2)", cols, ranks={"x": 2}) == "mean(transpose(X))"
    assert infer_spec("torch.softmax(x, dim=0)", cols, ranks={"x": 2}) == "transpose(softmax(transpose(X)))"
    assert infer_spec("x.sum(dim=0)", cols, ranks={"x": 3}) is None and infer_spec("x.sum(dim=0)", cols) is None


def test_a_reference_without_a_spec_says_which_part_has_no_word():
    """F.cross_entropy's default reduction='mean' averages the rows' losses, a reduction across rows the DSL cannot
    say: the note names that (was only 'the reference is a function'); a translatable one has no gap to name."""
    from litmus.launcher import spec_gap
    names, ranks = {"x": "X", "t": "T"}, {"x": 2, "t": 1}
    assert infer_spec("F.cross_entropy(x, t)", names, {}, ranks) is None
    assert "reduction='mean'" in spec_gap("F.cross_entropy(x, t)", names, {}, ranks)
    assert "reduction='sum'" in spec_gap("F.cross_entropy(x, t, reduction='sum')", names, {}, ranks)
    assert infer_spec("F.cross_entropy(x, t, reduction='none')", names, {}, ranks) is not None
    assert "torch.sort" in spec_gap("torch.sort(x, dim=-1)", names) and "file" in spec_gap("ref.py", names)


def test_a_select_by_a_bool_parameter_is_arithmetic_and_a_computed_condition_is_no_spec():
    """masked_fill and torch.where on a bool parameter read as mask * a + (1 - mask) * b, which is the select exactly at
    mask in {0, 1} (the oracle: torch's own); a condition the expression computes (x > 0) has no DSL word: no spec."""
    import torch
    from litmus.spec import Spec
    names = {"x": "x_ptr", "mask": "m_ptr", "y": "y_ptr"}
    fill = infer_spec("x.masked_fill(mask, -2.5)", names)
    pick = infer_spec("torch.where(mask, x, y * 2)", names)
    assert fill == "(m_ptr * (-2.5) + (1 - m_ptr) * x_ptr)" and pick == "(m_ptr * x_ptr + (1 - m_ptr) * (y_ptr * 2))"
    rng = np.random.default_rng(0)
    x, y, m = rng.normal(size=64), rng.normal(size=64), rng.random(64) > 0.5
    inputs = {"x_ptr": x, "y_ptr": y, "m_ptr": m.astype(np.float64)}
    domains = {"x_ptr": (-6, 6), "y_ptr": (-6, 6), "m_ptr": (0, 1)}
    tx, ty, tm = torch.from_numpy(x), torch.from_numpy(y), torch.from_numpy(m)
    np.testing.assert_array_equal(Spec(fill, domains, {}).reference(inputs), tx.masked_fill(tm, -2.5).numpy())
    np.testing.assert_array_equal(Spec(pick, domains, {}).reference(inputs), torch.where(tm, tx, ty * 2).numpy())
    assert infer_spec("torch.where(x > 0, x, y)", names) is None
    assert infer_spec("x.masked_fill(x > 0, 0.0)", names) is None and infer_spec("torch.where(z, x, y)", names) is None


# ---- acceptance: the real-kernel suite's upstream kernels, launcher vs literal ----

REFS = {'fg_addmm': ('mat1 @ mat2 + bias', ''), 'fg_argmax': ('torch.argmax(inp, dim=-1).double()', 'dim=-1'),
        'fg_dot': ('(x * y).sum()', ''), 'fg_index_select': ('torch.index_select(inp, 1, index.long())', 'dim=1'),
        'fg_l2norm': ('torch.linalg.vector_norm(x, dim=-1)', 'dim=-1'), 'fg_mean_dim': ('inp.mean(dim=-1)', 'dim=-1'),
        'fg_softmax': ('torch.softmax(self, dim=-1)', 'dim=-1'), 'fg_transpose': ('input.T', ''),
        'fg_vdot': ('(input * other).sum()', ''), 'liger_cross_entropy': ('F.cross_entropy(_input, target.long())', ''),
        'liger_dyt': ('torch.tanh(alpha * x) * gamma + beta', ''), 'liger_geglu': ('F.gelu(a, approximate="tanh") * b', ''),
        'liger_layernorm': ('F.layer_norm(X, (X.shape[-1],), W, B, eps), X.mean(-1), '      # Y, Mean, RSTD: every output
                            'torch.rsqrt(((X - X.mean(-1, keepdim=True)) ** 2).mean(-1) + eps)', 'eps=1e-5'),
        'liger_rmsnorm': ('X * torch.rsqrt((X * X).mean(-1, keepdim=True) + eps) * W, torch.rsqrt((X * X).mean(-1) + eps)',
                          'eps=1e-6, offset=0.0'),
        'liger_softmax': ('torch.softmax(x, dim=-1)', ''), 'liger_swiglu': ('F.silu(a) * b', '')}

PARTIAL_REFS = ('liger_cross_entropy',)   # the entry's loss is a torch sum of what the kernel writes (an epilogue)


def launcher_and_literal_verdicts(case: str) -> tuple[str, str]:
    """(the verdict from the unmodified launcher, with --entry, a torch reference and the --shape/--dims/--domain a user
    would give to name the literal's sizes; the verdict from the file's hand-written literal). ERROR: refused."""
    from litmus.check import check
    from litmus.launcher import _file_literal, _parse_sizes
    path = sorted((REAL / case).glob("*.py"))[0]
    literal = _file_literal(path)
    ref, extra = next(v for k, v in sorted(REFS.items(), key=lambda kv: -len(kv[0])) if case.startswith(k))
    extra = _parse_sizes(extra)
    out = []
    try:
        entry = launchers(path)[0]
        metas, _ = read_launches(path, entry, None, extra, literal)
        by_name = {a["name"]: a for a in literal["args"]}
        shapes = {a["from"]: (by_name[a["name"]]["shape"], by_name[a["name"]]["dtype"]) for m in metas for a in m["args"]
                  if a["kind"] == "tensor" and " " not in a.get("from", " ") and a["from"] != "LITMUS" and a["name"] in by_name}
        out.append(check_entry(path, entry, ref, shapes, extra, literal.get("domain"), quick=True).verdict)   # dims: the literal's
    except ValueError:
        out.append("ERROR")
    try:
        out.append(check(path, quick=True).verdict)
    except ValueError:
        out.append("ERROR")
    return tuple(out)


def upstream_cases():
    return sorted(p.name for p in REAL.iterdir() if p.is_dir() and p.name.startswith(("fg_", "liger_")))


@pytest.mark.parametrize("case", ["liger_softmax", "liger_softmax_nomaxsub", "fg_dot", "fg_dot_mask"])
def test_upstream_kernels_get_their_literals_verdict_short(case):
    launcher, literal = launcher_and_literal_verdicts(case)
    assert launcher == literal != "ERROR"


@pytest.mark.long
@pytest.mark.parametrize("case", upstream_cases() if REAL.is_dir() else [])
def test_upstream_kernels_get_their_literals_verdict(case):
    """The same verdict; or ACCEPT where the literal, holding a numpy reference and no spec, is UNKNOWN for a kernel
    labelled correct: the torch reference translates to a spec whose bound is certified (Liger's DyT); or a usage error
    where the entry finishes in torch: Liger's cross entropy returns `(torch.sum(loss_1d), None, None, None, _input)`
    at its default reduction='mean', the sum taken in torch after the launch (the literal states the kernel's own
    outputs). It was UNKNOWN while the reader dropped the sum and compared the per-row losses with the mean."""
    launcher, literal = launcher_and_literal_verdicts(case)
    if launcher != literal and case.startswith(PARTIAL_REFS):
        assert launcher == "ERROR", (case, launcher, literal)
    elif launcher != literal:
        label = corpus.load(sorted((REAL / case).glob("*.py"))[0]).label
        assert (launcher, literal, label) == ("ACCEPT", "UNKNOWN", "correct")


def test_flag_and_string_constexprs_are_described_as_chapter_06_reads_them(tmp_path):
    text = ADD.replace("BLOCK_SIZE: tl.constexpr):", "BLOCK_SIZE: tl.constexpr, EVEN: tl.constexpr, ACT: tl.constexpr):")
    text = text.replace("BLOCK_SIZE=256)", 'BLOCK_SIZE=256, EVEN=n_elements % 256 == 0 if False else True, ACT="relu")')
    path = write(tmp_path, "flags", text)
    metas, _ = read_launches(path, "add", dims={"n_elements": 1000})
    values = {a["name"]: a["value"] for a in metas[0]["args"] if a["kind"] == "constexpr"}
    assert values == {"BLOCK_SIZE": 256, "EVEN": True, "ACT": '"relu"'}
    assert corpus.resolve(kernel_from(path, metas[0])).values["ACT"] == "relu"


LLM_STYLE = HEAD.replace("import torch", "import math\nimport torch") + '''

@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=offs < n), 0.0), mask=offs < n)


def triton_relu(x: torch.Tensor) -> torch.Tensor:
    assert x.is_cuda
    x = x.contiguous().float()
    out = torch.empty_like(x)
    n = x.numel()
    def grid(meta):
        return (math.ceil(n / meta["BLOCK"]),)
    relu_kernel[grid](x, out, n, BLOCK=1024)
    return out
'''

def test_the_forms_a_generated_launcher_takes(tmp_path):
    "A nested grid def, math.ceil of a ratio (cdiv), a cast to float32: read, and at every size the grid is cdiv."
    path = write(tmp_path, "relu", LLM_STYLE)
    metas, _ = read_launches(path, "triton_relu", parse_shapes("x: [N] float16"), {"N": 5000})
    assert metas[0]["grid"] == ["cdiv(N, 1024)"] and metas[0]["args"][0]["dtype"] == "float32"
    for n in (0, 1, 1023, 1024, 1025, 99999):
        assert corpus.evaluate(metas[0]["grid"][0], {"N": n}) == -(-n // 1024)


def test_a_launcher_that_passes_strides_on_is_checked_with_padded_rows(tmp_path):
    "x.stride(0) read by the launcher: x may be padded, so its row stride carries a pad dim; .contiguous() packs it."
    path = write(tmp_path, "softmax", EXAMPLE_LAUNCHER)
    metas, _ = read_launches(path, "softmax", parse_shapes("x: [M, N]"), {"M": 4, "N": 300})
    x = next(a for a in metas[0]["args"] if a["name"] == "input_ptr")
    assert x["strides"] == ["N + x_pad", 1] and metas[0]["pads"] == ["x_pad"] and metas[0]["dims"]["x_pad"] == 0
    assert {a["name"]: a.get("value") for a in metas[0]["args"]}["input_row_stride"] == "N + x_pad"
    kernel = kernel_from(path, metas[0])
    assert kernel.pads == ("x_pad",) and corpus.resolve(kernel, {"x_pad": 3}).values["input_ptr"].strides == (303, 1)
    packed = write(tmp_path, "packed", EXAMPLE_LAUNCHER.replace("    n_rows, n_cols = x.shape\n", "    x = x.contiguous()\n    n_rows, n_cols = x.shape\n"))
    metas, _ = read_launches(packed, "softmax", parse_shapes("x: [M, N]"), {"M": 4, "N": 300})
    assert "strides" not in metas[0]["args"][1] and metas[0]["pads"] == []


# ---- an if on the sizes: each side a launch, under its side as a precondition ----

COPY = HEAD + '''

@triton.jit
def copy(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)
'''


def paths_of(tmp_path, body, shapes=None, dims=None):
    metas, notes = read_launches(write(tmp_path, "paths", COPY + body), "f", parse_shapes(shapes) if shapes else None, dims)
    return metas, notes


@pytest.mark.parametrize("body,says", [
    ("""
def f(x):
    y = torch.empty_like(x)
    n = x.numel()
    for start in range(0, n, 1024):
        copy[(4,)](x, y, n, BLOCK=256)
    return y
""", r"line \d+: .*inside the loop `for start in range\(0, n, 1024\)` \(line \d+\), whose trip count cdiv\(N, 1024\) depends on the sizes"),
    ("""
def f(x, dim=None):
    if dim < 0:
        dim = dim + x.ndim
    y = torch.empty_like(x)
    n = x.numel()
    copy[(triton.cdiv(n, 256),)](x, y, n, BLOCK=256 * (dim + 1))
    return y
""", r"line \d+: .*the comparison `dim < 0` \('<' not supported"),
    ("""
def f(x, flag):
    BLOCK = 256 if isinstance(flag, bool) else 128
    y = torch.empty_like(x)
    n = x.numel()
    copy[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK)
    return y
""", r"line \d+: .*the type of the parameter flag"),
])
def test_what_python_itself_cannot_say_is_refused_naming_it(tmp_path, body, says):
    """A launch in a loop whose trip count depends on the sizes, a comparison Python would raise on (None < 0), the
    type of a parameter litmus only reads as a size: each a usage error naming it and its line, never a crash."""
    with pytest.raises(LauncherError, match=says):
        paths_of(tmp_path, body, "x: [N]")


def test_an_or_and_an_and_are_read_part_by_part(tmp_path):
    """`if a or b` is `if a: ... elif b: ...` (Python short-circuits it): one launch per side of each part, a flag of
    the sizes (`or row_mode`) a test of it against 0, and a raise under an `or` the precondition `not a and not b`."""
    metas, notes = paths_of(tmp_path, """
def f(x, row_mode):
    y = torch.empty_like(x)
    n = x.numel()
    if n == 0 or n > 1 << 30:
        raise ValueError("size")
    if n > 4096 or row_mode:
        copy[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
    elif n > 64 and n % 64 == 0:
        copy[(n // 64,)](x, y, n, BLOCK=64)
    else:
        copy[(triton.cdiv(n, 16),)](x, y, n, BLOCK=16)
    return y
""", "x: [N]")
    sides = sorted((m["when"], m["grid"]) for m in metas)
    assert sides == sorted([(["N > 4096"], ["cdiv(N, 1024)"]), (["N <= 4096", "row_mode != 0"], ["cdiv(N, 1024)"]),
                     (["N <= 4096", "row_mode == 0", "N > 64", "N % 64 == 0"], ["N // 64"]),
                     (["N <= 4096", "row_mode == 0", "N > 64", "N % 64 != 0"], ["cdiv(N, 16)"]),
                     (["N <= 4096", "row_mode == 0", "N <= 64"], ["cdiv(N, 16)"])])
    assert all(m["assume"][:2] == ["N != 0", "N <= 1073741824"] for m in metas)
    holds = lambda text, env: eval(re.sub(r"\b(\w+)\b", lambda w: str(env.get(w.group(1), w.group(1))), text))
    for m in metas:         # each path's grid covers the elements its block leaves, at every size the path admits
        block = next(a["value"] for a in m["args"] if a["name"] == "BLOCK")
        for n in range(1, 9000, 7):
            env = {"N": n, "row_mode": int("row_mode != 0" in m["when"])}
            if all(holds(t, env) for t in m["assume"]):
                assert corpus.evaluate(m["grid"][0], {"N": n}) * block >= n


@pytest.mark.parametrize("guard,paths", [
    ("assert n % 128 == 0 or n < 128", [["N % 128 == 0"], ["N % 128 != 0", "N < 128"]]),
    ("if n > 4096 and n % 2 == 1:\n        raise ValueError('odd')", [["N <= 4096"], ["N > 4096", "N % 2 != 1"]]),
])
def test_a_guard_of_several_tests_is_a_precondition_on_each_path(tmp_path, guard, paths):
    """An `assert a or b`, or an `if a and b: raise`, cannot be said as one list of comparisons: it is read part by
    part, and each path that launches carries the tests that let it through (none of the sizes it refuses is checked)."""
    metas, notes = paths_of(tmp_path, f"""
def f(x):
    n = x.numel()
    {guard}
    y = torch.empty_like(x)
    copy[(triton.cdiv(n, 128),)](x, y, n, BLOCK=128)
    return y
""", "x: [N]")
    assert sorted(m["assume"] for m in metas) == sorted(paths) and any("raises when" in n for n in notes)


def test_types_and_dtypes_are_decided_from_the_binding(tmp_path):
    """isinstance of a tensor, of a size read from a shape, of a parameter --dims gives; is_floating_point, is_complex,
    is_conj: each decided, so one launch per dtype, its block the one the launcher picks for it."""
    body = """
def f(x, flag):
    assert isinstance(x, torch.Tensor) and not x.is_complex() and not x.is_conj()
    BLOCK = 64 if isinstance(x.shape[0], int) and x.is_floating_point() else 32
    BLOCK = BLOCK * 2 if isinstance(flag, (int, float)) else BLOCK
    y = torch.empty_like(x)
    n = x.numel()
    copy[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK)
    return y
"""
    for shapes, block in [("x: [N] int32", 64), ("x: [N] float16", 128)]:
        metas, _ = paths_of(tmp_path, body, shapes, {"flag": 3})
        assert len(metas) == 1 and [a["value"] for a in metas[0]["args"] if a["name"] == "BLOCK"] == [block]


def test_a_launch_keyword_named_like_a_kernel_parameter_binds_to_it(tmp_path):
    "`num_warps=` passed to a kernel with a `num_warps` parameter is that argument, as Triton binds it (Liger's sparsemax)."
    path = write(tmp_path, "warps", HEAD + '''
@triton.jit
def k(x_ptr, y_ptr, n, BLOCK: tl.constexpr, num_warps: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * num_warps, mask=offs < n)


def f(x):
    y = torch.empty_like(x)
    k[(triton.cdiv(x.numel(), 128),)](x, y, x.numel(), BLOCK=128, num_warps=4)
    return y
''')
    metas, _ = read_launches(path, "f", parse_shapes("x: [N]"))
    assert [a["value"] for a in metas[0]["args"] if a["name"] == "num_warps"] == [4]


def test_a_parameter_the_launcher_unpacks_is_a_tuple_of_sizes(tmp_path):
    """`kh, kw = kernel_size` and `stride[1]`: each such parameter is a tuple of sizes (an int there raises in Python), its
    entries dims the command line sizes; the model runs the launch at them as the kernel computes it (numpy)."""
    path = write(tmp_path, "pool", HEAD + '''
@triton.jit
def k(x_ptr, y_ptr, n, KH, KW, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * KH + KW, mask=offs < n)


def f(x, kernel_size, stride):
    kh, kw = kernel_size
    y = torch.empty_like(x)
    n = x.numel()
    k[(triton.cdiv(n, 128) * stride[1],)](x, y, n, kh, kw, BLOCK=128)
    return y
''')
    dims = {"N": 300, "kernel_size_0": 3, "kernel_size_1": 5, "stride_1": 2}
    metas, notes = read_launches(path, "f", parse_shapes("x: [N]"), dims)
    assert metas[0]["grid"] == ["cdiv(N, 128) * stride_1"] and any("kernel_size: read as a tuple of 2" in n for n in notes)
    x = np.random.default_rng(0).uniform(-2, 2, 300)
    out = simulate.run_model_here(kernel_from(path, metas[0]), None, {"x_ptr": x}).outputs["y_ptr"]
    np.testing.assert_allclose(np.asarray(out, np.float64), (x.astype(np.float32) * 3 + 5), rtol=1e-6)
    with pytest.raises(LauncherError, match="unpacks 3 names from a value of 2 items"):
        read_launches(write(tmp_path, "pool3", path.read_text().replace("    kh, kw = kernel_size\n",
                                                                         "    kh, kw = kernel_size\n    a, b, c = kernel_size\n")), "f")


def test_a_tensor_changed_in_place_is_read_as_changed_or_refused(tmp_path):
    """`y.zero_()` of an allocation makes it a zeroed accumulator; a change litmus does not read (`y.add_(1)`, an
    `out=` of a torch call, a fill of another value) leaves its contents unknown, so a launch that reads it is refused."""
    body = """
def f(x):
    y = torch.empty_like(x)
    CHANGE
    n = x.numel()
    copy[(triton.cdiv(n, 256),)](y, x, n, BLOCK=256)
    return x
"""
    metas, _ = paths_of(tmp_path, body.replace("CHANGE", "y.fill_(1.0)"), "x: [N]")
    assert metas[0]["args"][0]["from"].startswith("ones at line")
    for change in ("y.add_(1)", "torch.cumsum(x, 0, out=y)", "y.fill_(2.0)", "torch.nn.init.ones_(y)"):
        with pytest.raises(LauncherError, match="`y`, handed to|fills `y`"):
            paths_of(tmp_path, body.replace("CHANGE", change), "x: [N]")


@pytest.mark.parametrize("test", ["if x.ndim != 3:\n        raise ValueError('3D')", "assert x.dim() == 3",
                                  "if x.ndim == 3:\n        pass\n    else:\n        raise ValueError('3D')"])
def test_the_rank_an_undeclared_tensor_is_tested_against_is_its_rank(tmp_path, test):
    "With no --shape, the rank the launcher itself demands (a raise or an assert on x.ndim) is the rank it is read at."
    metas, _ = paths_of(tmp_path, f"""
def f(x):
    {test}
    y = torch.empty_like(x)
    copy[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), BLOCK=256)
    return y
""")
    assert metas[0]["args"][0]["shape"] == ["x_0", "x_1", "x_2"]
    if test.startswith("assert"):
        return            # an assert failing at the ranks read from the uses is a note (--shape declares them)
    with pytest.raises(LauncherError, match="raises on every path"):     # a rank it contradicts: refused
        paths_of(tmp_path, f"""
def f(x):
    {test}
    M, N = x.shape
    y = torch.empty_like(x)
    copy[(triton.cdiv(M * N, 256),)](x, y, M * N, BLOCK=256)
    return y
""")


def test_a_block_chosen_by_size_is_one_launch_per_side(tmp_path):
    metas, _ = paths_of(tmp_path, '''
def f(x):
    n = x.numel()
    if n > 4096:
        BLOCK = 1024
    else:
        BLOCK = 128
    y = torch.empty_like(x)
    copy[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK, num_warps=8 if n > 100 else 4)
    return y
''', "x: [N]")
    assert [(m["assume"], m["grid"]) for m in metas] == [(["N > 4096"], ["cdiv(N, 1024)"]), (["N <= 4096"], ["cdiv(N, 128)"])]
    kernels = [kernel_from(tmp_path / "paths.py", m) for m in metas]
    assert [corpus.violated(k) for k in kernels] == [[], []]           # each path sized inside its own side
    assert corpus.violated(kernels[0], {"N": 100}) == ["N > 4096"] and "when N > 4096" in kernels[0].name


def test_an_early_return_for_empty_input_is_a_precondition(tmp_path):
    metas, notes = paths_of(tmp_path, '''
def f(x):
    y = torch.empty_like(x)
    n = x.numel()
    if n == 0:
        return y
    assert n <= 1 << 20, "too big"
    copy[(triton.cdiv(n, 256),)](x, y, n, BLOCK=256)
    return y
''', "x: [N]")
    assert len(metas) == 1 and metas[0]["assume"] == ["N <= 1048576", "N != 0"]
    assert any("launches nothing when N == 0" in n for n in notes)


def test_dtype_and_rank_tests_are_decided(tmp_path):
    body = '''
def f(x):
    assert x.is_cuda and x.is_contiguous()
    if x.dtype == torch.float16:
        BLOCK = 512
    elif x.dtype in (torch.float32, torch.bfloat16):
        BLOCK = 256
    else:
        raise TypeError("dtype")
    if x.ndim == 2:
        x = x.view(-1)
    y = torch.empty_like(x)
    n = x.numel()
    copy[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK)
    return y
'''
    for shapes, block in [("x: [N] float16", 512), ("x: [M, N] float32", 256)]:
        metas, _ = paths_of(tmp_path, body, shapes)
        assert len(metas) == 1 and metas[0]["args"][-1]["value"] == block and "assume" not in metas[0]
    with pytest.raises(LauncherError, match="raises on every path"):
        paths_of(tmp_path, body, "x: [N] int32")


def test_slices_out_and_inout_tensors(tmp_path):
    metas, _ = paths_of(tmp_path, '''
def f(x, n: int, out=None):
    if out is None:
        out = torch.empty((n,), device=x.device, dtype=x.dtype)
    copy[(triton.cdiv(n, 256),)](x[:n], out, n, BLOCK=256)
    return out
''', "x: [N]")
    assert metas[0]["args"][0]["shape"] == ["N"] and metas[0]["assume"] == ["n <= N"]
    assert [(a["from"], a["role"]) for a in metas[0]["args"][:2]] == [("x", "in"), ("out", "out")]   # the caller's out=
    with pytest.raises(LauncherError, match="same tensor"):
        paths_of(tmp_path, '''
def f(x):
    n = x.numel()
    copy[(triton.cdiv(n, 256),)](x, x[:n], n, BLOCK=256)
    return x
''')
    with pytest.raises(LauncherError, match="starts inside"):
        paths_of(tmp_path, '''
def f(x):
    n = x.numel()
    y = torch.empty_like(x)
    copy[(triton.cdiv(n, 256),)](x[1:], y, n - 1, BLOCK=256)
    return y
''')


def test_a_domain_names_tensors_of_the_launcher(tmp_path):
    from litmus.launcher import parse_entry_domain
    metas, _ = read_launches(write(tmp_path, "softmax", EXAMPLE_LAUNCHER), "softmax")
    assert parse_entry_domain("x in [-100, 100]", metas, ["x"]) == {"x": (-100.0, 100.0)}
    assert parse_entry_domain("input_ptr in [0, 1]", metas, ["x"]) == {"input_ptr": (0.0, 1.0)}
    assert parse_entry_domain(None, metas, ["x"]) == {}
    with pytest.raises(ValueError, match=r"\['w'\].*tensor parameters are \['x'\]"):
        parse_entry_domain("w in [0, 1]", metas, ["x"])
    with pytest.raises(ValueError, match="should read like"):
        parse_entry_domain("x between 0 and 1", metas, ["x"])


def test_helpers_and_heuristics_that_would_run_code_are_refused(tmp_path):
    marker = tmp_path / "ran"
    helper = EXAMPLE_LAUNCHER.replace("def softmax(x):", f"def settings(n, log=open({str(marker)!r}, 'w')):\n    return n\n\n\n"
                                      "def softmax(x):\n    settings(1)")
    with pytest.raises(LauncherError, match="would run"):
        read_launches(write(tmp_path, "helper", helper), "softmax")
    tuned = TUNED.replace("@triton.jit", f"@triton.heuristics({{'BLOCK_SIZE': lambda args: open({str(marker)!r}, 'w')}})\n@triton.jit")
    with pytest.raises(LauncherError):
        read_launches(write(tmp_path, "heur", tuned), "add", dims={"n_elements": 1000})
    assert not marker.exists()


def test_upstream_launcher_forms(tmp_path):
    """A comprehension of autotune configs (one launch per distinct constexpr set), continue and break in a helper's
    loop, an assert over a helper litmus cannot read (skipped, noted), None for a pointer (an empty tensor), an axis
    picked by a given parameter, and the device's multiprocessor count as a dim."""
    text = COPY.replace("@triton.jit", '@triton.autotune(configs=[triton.Config({"BLOCK": b}, num_warps=w) for b in [128, 256] '
                        'for w in [4, 8]], key=["n"])\n@triton.jit') + '''

def fits(shape, limit):
    for s in shape:
        if s == 1:
            continue
        if s > limit:
            return False
        break
    return True


def f(x, axis: int, scratch=None):
    assert fits(x.shape, 1 << 20), "too big"
    n = x.shape[axis]
    sms = torch.cuda.get_device_properties(x.device).multi_processor_count
    y = torch.empty((n,), device=x.device, dtype=x.dtype)
    copy[(min(sms, triton.cdiv(n, 128)),)](x, y, n)
    return y
'''
    metas, notes = read_launches(write(tmp_path, "forms", text), "f", parse_shapes("x: [A, B]"), {"axis": 1})
    assert [m["config"] for m in metas] == [{"BLOCK": 128}, {"BLOCK": 256}]
    assert metas[0]["args"][2]["value"] == "B" and metas[0]["grid"] == ["min(NUM_SMS, cdiv(B, 128))"]
    assert metas[0]["assume"] == ["NUM_SMS >= 1"] and any("assert `fits" in n for n in notes)
    loop = COPY + '''

def first_big(shape):
    out = 0
    for s in shape:
        if s == 1:
            continue
        out = s
        break
    return out


def f(x, z):
    n = first_big((1, 1, x.numel()))
    y = torch.empty_like(x)
    copy[(triton.cdiv(n, 64),)](z, y, n, BLOCK=64)
    return y
'''
    metas, notes = read_launches(write(tmp_path, "loop", loop), "f", parse_shapes("x: [N]"))
    assert [(m["grid"], m["assume"]) for m in metas] == [([0], ["N == 1"]), (["cdiv(N, 64)"], ["N != 1"])]   # continue, break
    nothing = COPY + "\n\ndef f(x):\n    y = torch.empty_like(x)\n    copy[(1,)](None, y, x.numel(), BLOCK=64)\n    return y\n"
    metas, notes = read_launches(write(tmp_path, "none", nothing), "f")
    assert metas[0]["args"][0]["shape"] == [0] and any("passed None" in n for n in notes)


def test_a_tuple_reference_is_one_spec_per_output():
    assert infer_spec("(x * 2, x.sum(-1))", {"x": "X"}) == ["(X * 2)", "sum(X)"]
    assert infer_spec('F.gelu(a, approximate="tanh")', {"a": "A"}).startswith("(0.5 * A * (1 + tanh(")
    assert infer_spec("(x.sort(), x)", {"x": "X"}) is None


def test_a_per_row_loss_is_a_pick_of_each_rows_target():
    "F.cross_entropy / F.nll_loss with reduction='none' over [B, C] scores: one target index per row (pick), not a row of them."
    names, ranks = {"x": "X", "t": "T"}, {"x": 2, "t": 1}
    assert infer_spec("F.cross_entropy(x, t, reduction='none')", names, {}, ranks) == "(logsumexp(X) - pick(X, T))"
    assert infer_spec("F.nll_loss(torch.log_softmax(x, dim=-1), t, reduction='none')", names, {}, ranks) == "(-pick(log_softmax(X), T))"
    for mean in ("F.cross_entropy(x, t)", "F.cross_entropy(x, t, reduction='sum')", "F.cross_entropy(x, t, reduction='none', weight=t)"):
        assert infer_spec(mean, names, {}, ranks) is None, mean          # a sum across rows, or a weighting: the reference runs
    assert infer_spec("F.cross_entropy(x, t, reduction='none')", names, {}, {"x": 3, "t": 2}) is None     # not [B, C] scores
    assert infer_spec("torch.bmm(a, b)", {"a": "A", "b": "B"}) == "matmul(A, B)"      # a matmul of each batch's matrices


def test_contiguity_and_flags_are_conditions(tmp_path):
    "assert x.is_contiguous() on a parameter whose strides are read: its pad is 0; a flag parameter: one path per side."
    metas, _ = paths_of(tmp_path, '''
def f(x, y, with_copy):
    assert x.is_contiguous()
    z = torch.empty_like(x) if with_copy else y
    n = x.numel()
    copy[(triton.cdiv(n, 256),)](x, z, x.stride(0), BLOCK=256)
    return z
''', "x: [M, N]; y: [M, N]")
    assert [m["assume"] for m in metas] == [["x_pad == 0", "with_copy != 0"], ["x_pad == 0", "with_copy == 0"]]
    assert [m["args"][1]["from"].split(" at ")[0] for m in metas] == ["empty", "y"]


def test_the_launcher_example_reads_as_documented():
    "examples/launcher_layernorm.py: one launch, BLOCK_SIZE tied to N, the raise a precondition, the reference a spec."
    path = ROOT / "examples" / "launcher_layernorm.py"
    metas, notes = read_launches(path, "layer_norm", parse_shapes("x: [M, N]; weight: [N]; bias: [N]"), {"M": 8, "N": 1000})
    values = {a["name"]: a.get("value") for a in metas[0]["args"]}
    assert len(metas) == 1 and values["BLOCK_SIZE"] == "min(16384, next_pow2(N))" and metas[0]["grid"] == ["M"]
    assert metas[0]["assume"] == ["N <= min(16384, next_pow2(N))"] and launchers(path) == ["layer_norm"]
    for n in (1, 1000, 16384, 16385):
        assert corpus.holds(metas[0]["assume"][0], {"N": n}) == (n <= 16384)
    names = {a["from"]: a["name"] for a in metas[0]["args"] if a.get("role") == "in"}
    assert infer_spec("F.layer_norm(x, (x.shape[-1],), weight, bias, eps)", names, {"eps": 1e-5}) == "layernorm(X, W, B, eps=1e-05)"


def test_a_method_is_an_entry(tmp_path):
    "--entry ModelNew.forward (KernelBench) and an autograd Function's staticmethod forward(ctx, x): self and ctx opaque."
    text = COPY.replace("import torch\n", "import torch\nimport torch.nn as nn\n", 1) + '''

class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        y = torch.empty_like(x)
        n = x.numel()
        copy[(triton.cdiv(n, 256),)](x, y, n, BLOCK=256)
        self.calls = 1
        return y


class CopyFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.empty_like(x)
        n = x.numel()
        copy[(triton.cdiv(n, 128),)](x, y, n, BLOCK=128)
        ctx.save_for_backward(x)
        ctx.n = n
        return y
'''
    path = write(tmp_path, "methods", text)
    for entry, block in [("ModelNew.forward", 256), ("CopyFunction.forward", 128)]:
        metas, _ = read_launches(path, entry, parse_shapes("x: [N]"))
        assert metas[0]["grid"] == [f"cdiv(N, {block})"] and metas[0]["args"][0]["from"] == "x"
    with pytest.raises(LauncherError, match="no launcher named"):
        read_launches(path, "ModelNew.backward")
    weights = text.replace("copy[(triton.cdiv(n, 256),)](x, y,", "copy[(triton.cdiv(n, 256),)](self.weight, y,")
    with pytest.raises(LauncherError, match="self.weight"):
        read_launches(write(tmp_path, "weights", weights), "ModelNew.forward", parse_shapes("x: [N]"))


def test_a_try_and_a_walrus_read_as_the_plain_launcher(tmp_path):
    "A `try` whose `except` does not launch and a walrus binding the size: the same launch as the plain launcher."
    plain, _ = read_launches(write(tmp_path, "plain", ADD), "add", dims={"n_elements": 1000})
    text = ADD.replace("    n_elements = output.numel()\n",
                       "    try:\n        block = 256\n    except RuntimeError:\n        block = 256\n"
                       "    if (n_elements := output.numel()) < 0:\n        raise ValueError\n")
    text = text.replace("BLOCK_SIZE=256)", "BLOCK_SIZE=256 if block else 128)")
    metas, _ = read_launches(write(tmp_path, "forms", text), "add", dims={"n_elements": 1000})
    assert [m["args"] for m in metas] == [m["args"] for m in plain] and metas[0]["grid"] == plain[0]["grid"]
    differing = text.replace("        block = 256\n    except RuntimeError:\n        block = 256\n", "        block = 256\n    except RuntimeError:\n        block = 128\n")
    with pytest.raises(LauncherError, match="depends on the sizes|set differently"):
        read_launches(write(tmp_path, "differing", differing), "add", dims={"n_elements": 1000})
    launching = ADD.replace("    add_kernel[grid]", "    try:\n        pass\n    except RuntimeError:\n"
                            "        add_kernel[grid](x, y, output, n_elements, BLOCK_SIZE=128)\n    add_kernel[grid]")
    with pytest.raises(LauncherError, match="a second way to launch"):
        read_launches(write(tmp_path, "second", launching), "add", dims={"n_elements": 1000})


def test_a_bit_length_shift_is_the_next_power_of_two(tmp_path):
    "`1 << (n - 1).bit_length()` for a block size: next_pow2(n) at every size, with n - 1 >= 0 a precondition."
    text = ADD.replace("BLOCK_SIZE=256)", "BLOCK_SIZE=1 << (n_elements - 1).bit_length())")
    metas, _ = read_launches(write(tmp_path, "bits", text), "add", dims={"n_elements": 1000})
    kernel = kernel_from(write(tmp_path, "bits", text), metas[0])
    for n in (1, 2, 3, 1000, 1024, 1025):
        assert corpus.resolve(kernel, {"n_elements": n}).values["BLOCK_SIZE"] == 1 << (n - 1).bit_length()
    assert any(">= 0" in a for a in metas[0]["assume"])


# ---- benchmark-style files it was never tuned to (tests/launchers/kb): KernelBench's ModelNew + get_inputs, with the
# reference Model in a file of its own, and TritonBench's launcher + __main__ test block; each correct file beside one
# or two broken ones. Written from the formats, then checked: the verdicts below are what the files are (a correct
# kernel ACCEPT, a broken one REJECT with a witness), never what litmus happened to say.
KB = ROOT / "tests" / "launchers" / "kb"
WIDE = "x in [-100, 100]"
MATRIX = ("A: [M, K] float32; B: [K, N] float32", "M=256,K=512,N=128", "A in [-1, 1]; B in [-1, 1]")
RMS = ("x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * weight", "x: [M, N] float32; weight: [N] float32",
       "M=16,N=1000", "x in [-100, 100]; weight in [-2, 2]")
LN = ("torch.nn.functional.layer_norm(x, (x.shape[-1],), weight, bias, eps)",
      "x: [M, N] float32; weight: [N] float32; bias: [N] float32", "M=32,N=1000", "x in [-100, 100]; weight in [-2, 2]; bias in [-2, 2]")
CE = "torch.nn.functional.cross_entropy(predictions, targets, reduction='none')"
NORM = "x / (torch.linalg.vector_norm(x, dim=1, keepdim=True) + 1e-6)"
# case: (file, --entry or None, --ref (a kb/ file or a torch expression), --shape, --dims, --domain, the verdict it is).
# None for --shape/--dims/--domain: what the file's get_inputs() says (KernelBench's form), as a user runs it bare.
KB_CASES = {
    "relu": ("kb_relu.py", None, "kb_relu_ref.py", None, None, None, "ACCEPT"),
    "relu flags": ("kb_relu.py", "ModelNew.forward", "torch.relu(x)", "x: [B, D] float32", "B=16,D=1024", WIDE, "ACCEPT"),
    "relu mask <=": ("kb_relu_mask_off_by_one.py", None, "kb_relu_ref.py", None, None, None, "REJECT"),
    "gelu": ("kb_gelu.py", None, "kb_gelu_ref.py", None, None, None, "ACCEPT"),
    "gelu constant": ("kb_gelu_wrong_constant.py", None, "kb_gelu_ref.py", None, None, None, "REJECT"),
    "add bias": ("tb_add_bias.py", "add_bias", "x + bias", "x: [M, N] float32; bias: [N] float32", "M=128,N=300",
                 "x in [-100, 100]; bias in [-100, 100]", "ACCEPT"),
    "add bias index": ("tb_add_bias_wrong_index.py", "add_bias", "x + bias", "x: [M, N] float32; bias: [N] float32",
                       "M=128,N=300", "x in [-100, 100]; bias in [-100, 100]", "REJECT"),
    "softmax": ("tb_softmax.py", "softmax", "torch.softmax(x, dim=-1)", "x: [M, N] float32", "M=64,N=781", WIDE, "ACCEPT"),
    "softmax no max": ("tb_softmax_no_max.py", "softmax", "torch.softmax(x, dim=-1)", "x: [M, N] float32", "M=64,N=781", WIDE, "REJECT"),
    "softmax other 0": ("tb_softmax_other_zero.py", None, "torch.softmax(x, dim=-1)", "x: [M, N] float32", "M=64,N=781", WIDE, "REJECT"),
    "layernorm": ("tb_layernorm.py", "layer_norm", *LN, "ACCEPT"),
    "layernorm module": ("kb_layernorm.py", None, "kb_layernorm_ref.py", None, None, None, "ACCEPT"),
    "layernorm module unmasked var": ("kb_layernorm_unmasked_var.py", None, "kb_layernorm_ref.py", None, None, None, "REJECT"),
    "layernorm unmasked var": ("tb_layernorm_unmasked_var.py", "layer_norm", *LN, "REJECT"),
    "rmsnorm": ("tb_rmsnorm.py", "rms_norm", *RMS, "ACCEPT"),
    "rmsnorm / BLOCK": ("tb_rmsnorm_divides_by_block.py", "rms_norm", *RMS, "REJECT"),
    "matmul": ("kb_matmul.py", None, "kb_matmul_ref.py", None, None, None, "ACCEPT"),
    "matmul flags": ("kb_matmul.py", "ModelNew.forward", "torch.matmul(A, B)", *MATRIX, "ACCEPT"),
    "matmul no K mask": ("kb_matmul_no_k_mask.py", "ModelNew.forward", "torch.matmul(A, B)", *MATRIX, "REJECT"),
    "matmul stride": ("kb_matmul_wrong_stride.py", None, "kb_matmul_ref.py", None, None, None, "REJECT"),
    "matmul fp16 acc": ("kb_matmul_fp16_acc.py", "ModelNew.forward", "torch.matmul(A, B)", *MATRIX, "REJECT"),
    "kb leaky relu": ("kb_leaky_relu.py", None, "kb_leaky_relu_ref.py", None, None, None, "ACCEPT"),     # autotuned
    "kb leaky relu swapped": ("kb_leaky_relu_swapped.py", None, "kb_leaky_relu_ref.py", None, None, None, "REJECT"),
    "kb sum dim": ("kb_sum_dim.py", None, "kb_sum_dim_ref.py", None, None, None, "ACCEPT"),
    "kb sum drops last": ("kb_sum_dim_drops_last.py", None, "kb_sum_dim_ref.py", None, None, None, "REJECT"),
    "kb softmax": ("kb_softmax.py", None, "kb_softmax_ref.py", None, None, None, "ACCEPT"),
    # without max-subtraction exp(x) is exact enough over get_inputs' +-6 (ACCEPT there, rightly); over +-100 it overflows
    "kb softmax no max": ("kb_softmax_no_max.py", None, "kb_softmax_ref.py", None, None, WIDE, "REJECT"),
    "kb hardtanh": ("kb_hardtanh.py", None, "kb_hardtanh_ref.py", None, None, None, "ACCEPT"),     # F.hardtanh: a clamp
    "kb hardtanh max": ("kb_hardtanh_wrong_max.py", None, "kb_hardtanh_ref.py", None, None, None, "REJECT"),
    "kb min dim": ("kb_min_dim.py", None, "kb_min_dim_ref.py", None, None, None, "ACCEPT"),     # torch.min(x, dim=1)[0]
    "kb min dim other 0": ("kb_min_dim_other_zero.py", None, "kb_min_dim_ref.py", None, None, None, "REJECT"),
    "kb bmm": ("kb_bmm.py", None, "kb_bmm_ref.py", None, None, None, "ACCEPT"),       # torch.bmm: a matmul per batch
    "kb bmm batch stride": ("kb_bmm_wrong_batch_stride.py", None, "kb_bmm_ref.py", None, None, None, "REJECT"),
    # written blind in session 12 from the KernelBench format, as a language model writes them; each bad sibling has one
    # bug: gelu tanh via sigmoid(z) not sigmoid(2z); the leaky slope hard-coded; a mean over BLOCK_SIZE; log-softmax's sum
    # of the unshifted exp; the bias read by row; the fp16 row sum's mask one past the row (its fp32 accumulator kept);
    # the atomic sum into torch.empty; b read one on; the transpose's column mask testing M; the mask's sense inverted
    "kb gelu tanh": ("kb_gelu_tanh.py", None, "kb_gelu_tanh_ref.py", None, None, None, "ACCEPT"),
    "kb gelu tanh bad": ("kb_gelu_tanh_bad.py", None, "kb_gelu_tanh_ref.py", None, None, None, "REJECT"),
    "kb leaky slope": ("kb_leaky_slope.py", None, "kb_leaky_slope_ref.py", None, None, None, "ACCEPT"),
    "kb leaky slope bad": ("kb_leaky_slope_bad.py", None, "kb_leaky_slope_ref.py", None, None, None, "REJECT"),
    "kb mean dim": ("kb_mean_dim.py", None, "kb_mean_dim_ref.py", None, None, None, "ACCEPT"),
    "kb mean dim bad": ("kb_mean_dim_bad.py", None, "kb_mean_dim_ref.py", None, None, None, "REJECT"),
    "kb log softmax": ("kb_log_softmax.py", None, "kb_log_softmax_ref.py", None, None, None, "ACCEPT"),
    "kb log softmax bad": ("kb_log_softmax_bad.py", None, "kb_log_softmax_ref.py", None, None, None, "REJECT"),
    "kb matmul bias relu": ("kb_matmul_bias_relu.py", None, "kb_matmul_bias_relu_ref.py", None, None, None, "ACCEPT"),
    "kb matmul bias relu bad": ("kb_matmul_bias_relu_bad.py", None, "kb_matmul_bias_relu_ref.py", None, None, None, "REJECT"),
    "kb fp16 rowsum": ("kb_fp16_rowsum.py", None, "kb_fp16_rowsum_ref.py", None, None, None, "ACCEPT"),
    "kb fp16 rowsum bad": ("kb_fp16_rowsum_bad.py", None, "kb_fp16_rowsum_ref.py", None, None, None, "REJECT"),
    "kb atomic sum": ("kb_atomic_sum.py", None, "kb_atomic_sum_ref.py", None, None, None, "ACCEPT"),
    "kb atomic sum bad": ("kb_atomic_sum_bad.py", None, "kb_atomic_sum_ref.py", None, None, None, "REJECT"),
    "kb add relu": ("kb_add_relu.py", None, "kb_add_relu_ref.py", None, None, None, "ACCEPT"),
    "kb add relu bad": ("kb_add_relu_bad.py", None, "kb_add_relu_ref.py", None, None, None, "REJECT"),
    "kb transpose2d": ("kb_transpose2d.py", None, "kb_transpose2d_ref.py", None, None, None, "ACCEPT"),
    "kb transpose2d bad": ("kb_transpose2d_bad.py", None, "kb_transpose2d_ref.py", None, None, None, "REJECT"),
    "kb masked fill": ("kb_masked_fill.py", None, "kb_masked_fill_ref.py", None, None, None, "ACCEPT"),
    "kb masked fill bad": ("kb_masked_fill_bad.py", None, "kb_masked_fill_ref.py", None, None, None, "REJECT"),
    # F.cross_entropy's default reduction='mean': the rows' losses averaged (here by an atomic add of loss / B), a
    # reduction across rows the DSL cannot say, so the reference runs and no bound is certified: UNKNOWN with that reason;
    # get_inputs draws torch.randn(batch_size, *input_shape), as KernelBench's loss files do
    "kb cross entropy mean": ("kb_cross_entropy_mean.py", None, "kb_cross_entropy_mean_ref.py", None, None, None, "UNKNOWN"),
    "kb cross entropy mean no max": ("kb_cross_entropy_mean_no_max.py", None, "kb_cross_entropy_mean_ref.py", None, None,
                                     "predictions in [-100, 100]", "REJECT"),
    "kb scalar mul": ("kb_scalar_mul.py", None, "kb_scalar_mul_ref.py", None, None, None, "ACCEPT"),    # get_inputs: [A, 3.14]
    "kb scalar mul bad": ("kb_scalar_mul_bad.py", None, "kb_scalar_mul_ref.py", None, None, None, "REJECT"),  # 3.0 hard-coded
    # written blind in session 13 from the shipped formats (Triton's tutorial launchers, TritonBench files with a test
    # harness at module level, several @triton.jit functions and jit helpers, autotune with key=, heuristics, 2-D grids,
    # strided views, bf16/fp16 inputs with fp32 accumulators, atomics), each beside one bug: the tutorial's mask `<=`;
    # silu's exp(x) for exp(-x); the row max's padding 0 for -inf; y.t()'s strides swapped; the bias indexed by row;
    # the bf16 mean accumulated in bf16; the column sum's atomic unmasked; the stable sigmoid's branches swapped
    "tut vector add": ("tut_vector_add.py", None, "x + y", "x: [N] float32; y: [N] float32", "N=98432",
                       "x in [-100, 100]; y in [-100, 100]", "ACCEPT"),
    "tut vector add mask <=": ("tut_vector_add_mask_le.py", None, "x + y", "x: [N] float32; y: [N] float32", "N=98432",
                               "x in [-100, 100]; y in [-100, 100]", "REJECT"),
    "tb silu autotune": ("tb_silu_autotune.py", None, "F.silu(x)", "x: [N] float16", "N=4097", "x in [-10, 10]", "ACCEPT"),
    "tb silu autotune sign": ("tb_silu_autotune_sign.py", None, "F.silu(x)", "x: [N] float16", "N=4097", "x in [-10, 10]", "REJECT"),
    "tb row max heuristics": ("tb_rowmax_heuristics.py", None, "torch.amax(x, dim=-1)", "x: [M, N] float16", "M=33,N=1000",
                              WIDE, "ACCEPT"),
    "tb row max other 0": ("tb_rowmax_heuristics_other_zero.py", None, "torch.amax(x, dim=-1)", "x: [M, N] float16",
                           "M=33,N=1000", WIDE, "REJECT"),
    "tb add transposed": ("tb_add_transposed_2d.py", None, "x + y.t()", "x: [M, N] float32; y: [N, M] float32", "M=100,N=70",
                          "x in [-100, 100]; y in [-100, 100]", "ACCEPT"),
    "tb add transposed strides": ("tb_add_transposed_2d_strides_swapped.py", None, "x + y.t()", "x: [M, N] float32; y: [N, M] float32",
                                  "M=100,N=70", "x in [-100, 100]; y in [-100, 100]", "REJECT"),
    "tb bias gelu": ("tb_bias_gelu_helpers.py", None, "F.gelu(x + bias, approximate='tanh')", "x: [M, N] float32; bias: [N] float32",
                     "M=100,N=300", "x in [-10, 10]; bias in [-2, 2]", "ACCEPT"),
    "tb bias gelu by row": ("tb_bias_gelu_helpers_bias_by_row.py", None, "F.gelu(x + bias, approximate='tanh')",
                            "x: [M, N] float32; bias: [N] float32", "M=100,N=300", "x in [-10, 10]; bias in [-2, 2]", "REJECT"),
    "kb bf16 row mean": ("kb_bf16_row_mean.py", None, "kb_bf16_row_mean_ref.py", None, None, None, "ACCEPT"),
    "kb bf16 row mean bf16 acc": ("kb_bf16_row_mean_bf16_acc.py", None, "kb_bf16_row_mean_ref.py", None, None, None, "REJECT"),
    # torch.sum(x, dim=0): a column sum, the spec sum(transpose(x)) (its row length x.shape[-2] since chapter 12's
    # fix of request 10; UNKNOWN before, the reference run with no bound)
    "kb col sum atomic": ("kb_col_sum_atomic.py", None, "kb_col_sum_atomic_ref.py", None, None, None, "ACCEPT"),
    "kb col sum atomic unmasked": ("kb_col_sum_atomic_unmasked.py", None, "kb_col_sum_atomic_ref.py", None, None, None, "REJECT"),
    "tut stable sigmoid": ("tut_stable_sigmoid.py", None, "torch.sigmoid(x)", "x: [N] float32", "N=10000", WIDE, "ACCEPT"),
    "tut stable sigmoid swapped": ("tut_stable_sigmoid_swapped.py", None, "torch.sigmoid(x)", "x: [N] float32", "N=10000", WIDE,
                                   "REJECT"),
    # torch.matmul(A, x) with x a vector: the row sums sum(A * x); over get_inputs' +-6 the fp16 output may overflow
    # (6 * 6 * 4096 > 65504: UNKNOWN, rightly), so both are held over [-3, 3]; the bad one accumulates in fp16
    "kb gemv fp16": ("kb_gemv_fp16.py", None, "kb_gemv_fp16_ref.py", None, None, "A in [-3, 3]; x in [-3, 3]", "ACCEPT"),
    "kb gemv fp16 acc": ("kb_gemv_fp16_acc.py", None, "kb_gemv_fp16_ref.py", None, None, "A in [-3, 3]; x in [-3, 3]", "REJECT"),
    # tl.static_range over a constexpr chunk count the launcher computes, through a jit helper; the bad one floors it
    "tb row sum static range": ("tb_row_sum_static_range.py", None, "x.sum(dim=-1)", "x: [M, N] float32", "M=17,N=1000",
                                WIDE, "ACCEPT"),
    "tb row sum static range floor": ("tb_row_sum_static_range_floor.py", None, "x.sum(dim=-1)", "x: [M, N] float32",
                                      "M=17,N=1000", WIDE, "REJECT"),
    # a launcher as language models write one (assert x.is_cuda, an is_contiguous branch, empty_like(x, dtype=...),
    # .view(-1) arguments, num_warps, torch.cuda.synchronize(), get_inputs' .cuda().half()); the bad one rounds to fp16
    "kb swish half": ("kb_swish_half.py", None, "kb_swish_ref.py", None, None, WIDE, "ACCEPT"),
    "kb swish half rounded": ("kb_swish_half_rounded.py", None, "kb_swish_ref.py", None, None, WIDE, "REJECT"),
    # an online softmax: written blind without the guard, it is nan on a lane past the row on every pass (n_cols <
    # BLOCK_SIZE: exp(-inf - -inf)), a real bug litmus found; the guarded one is correct
    "kb online softmax guarded": ("kb_online_softmax_guarded.py", None, "kb_online_softmax_ref.py", None, None, WIDE, "ACCEPT"),
    "kb online softmax nan": ("kb_online_softmax.py", None, "kb_online_softmax_ref.py", None, None, WIDE, "REJECT"),
    # [B, S, D] flattened by x.reshape(-1, D), the result returned as y.view_as(x) (was a usage error: view_as
    # unread); the spec of a row reduction over a rank-3 input reads the rows of its last axis (chapter 12's fix of
    # request 11; UNKNOWN before), so the bound is certified, and the rms over BLOCK_SIZE REJECTs against it
    "kb rmsnorm 3d": ("kb_rmsnorm3d.py", None, "kb_rmsnorm3d_ref.py", None, None, None, "ACCEPT"),
    "kb rmsnorm 3d / BLOCK": ("kb_rmsnorm3d_block.py", None, "kb_rmsnorm3d_ref.py", None, None, None, "REJECT"),
    "sum dim": ("tb_sum_dim.py", "sum_dim1", "x.sum(dim=1)", "x: [M, N] float32", "M=37,N=1000", WIDE, "ACCEPT"),
    "sum wrong axis": ("tb_sum_dim_wrong_axis.py", "sum_dim1", "x.sum(dim=1)", "x: [M, N] float32", "M=37,N=1000", WIDE, "REJECT"),
    "cross entropy": ("kb_cross_entropy.py", None, CE, None, None, "predictions in [-100, 100]", "ACCEPT"),
    "cross entropy no max": ("kb_cross_entropy_no_max.py", None, CE, None, None, "predictions in [-100, 100]", "REJECT"),
    "l2 normalize": ("tb_l2_normalize.py", None, NORM, "x: [M, N] float32", "M=8,N=300", WIDE, "ACCEPT"),
    "l2 normalize by rms": ("tb_l2_normalize_rms.py", None, NORM, "x: [M, N] float32", "M=8,N=300", WIDE, "REJECT"),
    "two kernels": ("tb_two_kernel_normalize.py", "l2_normalize", NORM, "x: [M, N] float32", "M=64,N=500", WIDE, "ACCEPT"),
    "two kernels wrong norm": ("tb_two_kernel_normalize_wrong_norm.py", "l2_normalize", NORM, "x: [M, N] float32", "M=64,N=500",
                               WIDE, "REJECT"),
    # written blind in session 14 in formats not covered before, each beside one bug: the matmul tutorial (autotune
    # configs from a helper, grouped tile order, loads wrapped by % M, fp16 in, fp32 accumulator: its three configs
    # read, its search clean, but its safety proofs run out of the solver's 8 s budget, so it is UNKNOWN, a verdict
    # that hangs on the machine's speed and is held by no case here) and its K-tail mask testing K; the layer-norm
    # tutorial's forward in its autograd Function (mean and 1/std stored for the backward, never returned: held to
    # safety alone) and its variance over the padded lanes; a full sum in two launches (partials, then one program)
    # and its second pass dropping the last partial; torch.argmax by tl.argmax and its padding loaded as 0.0;
    # torch.cumsum by tl.cumsum in chunks with a carried total and without the carry; a 3-D grid over [B, M, N] and
    # y's batch offset taken with x's row stride
    "tut matmul k mask": ("tut_matmul_autotune_helper_k_mask.py", None, "a @ b", "a: [M, K] float16; b: [K, N] float16",
                          "M=100,K=200,N=72", "a in [-1, 1]; b in [-1, 1]", "REJECT"),
    "tut layer norm fwd": ("tut_layer_norm_fwd.py", "LayerNorm.forward", LN[0], LN[1], LN[2] + ",eps=1e-5", LN[3], "ACCEPT"),
    "tut layer norm fwd unmasked var": ("tut_layer_norm_fwd_unmasked_var.py", "LayerNorm.forward", LN[0], LN[1],
                                        LN[2] + ",eps=1e-5", LN[3], "REJECT"),
    "two pass sum": ("tb_sum_two_pass.py", None, "x.sum()", "x: [N] float32", "N=10000", WIDE, "ACCEPT"),
    "two pass sum drops last": ("tb_sum_two_pass_drops_last.py", None, "x.sum()", "x: [N] float32", "N=10000", WIDE, "REJECT"),
    "kb argmax": ("kb_argmax_dim.py", None, "kb_argmax_dim_ref.py", None, None, None, "ACCEPT"),
    "kb argmax other 0": ("kb_argmax_dim_other_zero.py", None, "kb_argmax_dim_ref.py", None, None, None, "REJECT"),
    "kb cumsum chunked": ("kb_cumsum_chunked.py", None, "kb_cumsum_ref.py", None, None, None, "ACCEPT"),
    "kb cumsum no carry": ("kb_cumsum_chunked_no_carry.py", None, "kb_cumsum_ref.py", None, None, None, "REJECT"),
    "3d grid add": ("tb_batched_add_3d_grid.py", None, "x + y", "x: [B, M, N] float32; y: [B, M, N] float32", "B=4,M=100,N=300",
                    "x in [-100, 100]; y in [-100, 100]", "ACCEPT"),
    # a persistent grid, min(SM count, rows) programs striding by tl.num_programs (the SM count a dim of its own, NUM_SMS
    # >= 1), and its row loop stopping one row short
    "persistent softmax": ("tb_softmax_persistent.py", None, "torch.softmax(x, dim=-1)", "x: [M, N] float32", "M=200,N=781",
                           WIDE, "ACCEPT"),
    "persistent softmax last row": ("tb_softmax_persistent_last_row.py", None, "torch.softmax(x, dim=-1)", "x: [M, N] float32",
                                    "M=200,N=781", WIDE, "REJECT"),
    # block pointers (tl.make_block_ptr, tl.advance, boundary_check): the model runs them, the safety prover does not
    # read them, so the correct one is UNKNOWN naming that; A's tiles checked in M only REJECTs from the search
    "kb matmul block ptr": ("kb_matmul_block_ptr.py", None, "kb_matmul_ref.py", None, None, "A in [-1, 1]; B in [-1, 1]", "UNKNOWN"),
    "kb matmul block ptr k unchecked": ("kb_matmul_block_ptr_k_unchecked.py", None, "kb_matmul_ref.py", None, None,
                                        "A in [-1, 1]; B in [-1, 1]", "REJECT"),
    # a scale held in a one-element tensor (get_inputs' torch.randn(1)), loaded once per program, and read at + pid
    "kb scale tensor": ("kb_scale_tensor.py", None, "kb_scale_tensor_ref.py", None, None, None, "ACCEPT"),
    "kb scale tensor by program": ("kb_scale_tensor_by_program.py", None, "kb_scale_tensor_ref.py", None, None, None, "REJECT"),
    # torch.softmax(x, dim=0): one program per column, strided by the row; the column's padding loaded as 0.0
    "kb softmax dim0": ("kb_softmax_dim0.py", None, "kb_softmax_dim0_ref.py", None, None, None, "ACCEPT"),
    "kb softmax dim0 other 0": ("kb_softmax_dim0_other_zero.py", None, "kb_softmax_dim0_ref.py", None, None, None, "REJECT"),
    "3d grid add batch stride": ("tb_batched_add_3d_grid_batch_stride.py", None, "x + y", "x: [B, M, N] float32; y: [B, M, N] float32",
                                 "B=4,M=100,N=300", "x in [-100, 100]; y in [-100, 100]", "REJECT"),
}
KB_SHORT = ("relu", "relu mask <=", "sum dim")
# Correct files litmus still leaves UNKNOWN, and why (each a gap in a layer below the reader, named, not hidden):
KB_GAPS = {}
VERDICTS = {0: "ACCEPT", 1: "REJECT", 2: "UNKNOWN", 3: "usage error"}


def kb_check(case, capsys) -> tuple[str, str]:
    "(the verdict of `litmus check` on a kb case, its output)."
    file, entry, ref, shape, dims, domain, _ = KB_CASES[case]
    argv = ["check", str(KB / file), "--quick", "--ref", str(KB / ref) if ref.endswith(".py") else ref]
    for flag, value in (("--entry", entry), ("--shape", shape), ("--dims", dims), ("--domain", domain)):
        argv += [flag, value] if value is not None else []
    code = main(argv)
    captured = capsys.readouterr()
    return VERDICTS[code], captured.out + captured.err


def assert_kb_verdict(case, capsys):
    verdict, out = kb_check(case, capsys)
    expected = KB_CASES[case][-1]
    assert verdict == expected, (case, out[-3000:])
    if expected == "REJECT":
        assert re.search(r"counterexample|DEFECT|witness:", out), out[-2000:]


@pytest.mark.parametrize("case", KB_SHORT)
def test_benchmark_style_files_get_their_verdicts_short(case, capsys):
    assert_kb_verdict(case, capsys)


@pytest.mark.long
@pytest.mark.parametrize("case", [pytest.param(c, marks=pytest.mark.xfail(strict=True, reason=KB_GAPS[c])) if c in KB_GAPS
                                  else c for c in sorted(set(KB_CASES) - set(KB_SHORT))])
def test_benchmark_style_files_get_their_verdicts(case, capsys):
    assert_kb_verdict(case, capsys)


def test_an_entry_that_finishes_in_torch_is_refused_naming_its_return(tmp_path, capsys):
    """`return partial.sum() / n` after the launch: the kernel's partial sums are not the reference's scalar, so a check
    against a reference is a usage error naming the line (never an UNKNOWN comparing the two); a view of the output is
    what the kernel wrote, and no reference means safety alone."""
    code = main(["check", str(KB / "kb_mse_partial_sums.py"), "--ref", str(KB / "kb_mse_ref.py"), "--quick"])
    err = capsys.readouterr().err
    assert code == 3 and "line 30: the entry returns `partial.sum() / n`" in err and "epilogue" in err, err
    viewed = write(tmp_path, "viewed", (KB / "kb_relu.py").read_text().replace("    return out\n", "    return out.view(-1)\n", 1))
    assert "return out.view(-1)" in viewed.read_text()
    metas, _ = read_launches(viewed, "ModelNew.forward", parse_shapes("x: [B, D] float32"))
    assert all("returns" not in m for m in metas)
    metas, _ = read_launches(KB / "kb_mse_partial_sums.py", "ModelNew.forward", parse_shapes("predictions: [B, D]; targets: [B, D]"))
    assert all(m["returns"].startswith("line 30") for m in metas)
    pair = write(tmp_path, "pair", (KB / "kb_relu.py").read_text().replace("        return triton_relu(x)\n",
                                                                           "        out = triton_relu(x)\n        return out, out.sum()\n", 1))
    metas, _ = read_launches(KB / "kb_rmsnorm3d.py", "ModelNew.forward", parse_shapes("x: [B, S, D]; weight: [D]"))
    assert all("returns" not in m for m in metas)        # y.view_as(x): the kernel's output in x's shape, no epilogue
    assert "return out, out.sum()" in pair.read_text()      # the kernel's output beside a sum torch takes of it: not dropped
    code = main(["check", str(pair), "--ref", "torch.relu(x), torch.relu(x).sum()", "--quick"])
    err = capsys.readouterr().err
    assert code == 3 and "line 35: the entry returns `(out, out.sum())`" in err and "epilogue" in err, err


def test_a_tensor_the_entry_never_returns_is_not_held_to_the_reference(tmp_path, capsys):
    """The layer-norm tutorial's forward stores each row's mean and 1/std for its backward and returns y alone: the
    reference of y says nothing of Mean and Rstd, so they are marked `compared: false` (held to memory safety) and
    the check compares Y (was: 'the reference returned 1 outputs for the kernel's outputs [Y, Mean, Rstd]'); a tensor
    the entry returns, or a later launch reads, or a parameter the launcher writes into, stays compared."""
    shapes = parse_shapes(LN[1])
    metas, _ = read_launches(KB / "tut_layer_norm_fwd.py", "LayerNorm.forward", shapes)
    marks = {a["name"]: a.get("compared", True) for a in metas[0]["args"] if a["kind"] == "tensor"}
    assert marks == {"X": True, "Y": True, "W": True, "B": True, "Mean": False, "Rstd": False}, marks
    assert kernel_from(KB / "tut_layer_norm_fwd.py", metas[0], None, {}).outputs == ["Y"]     # what is compared
    body = "\n".join(line for line in literal_text(metas).splitlines() if not line.startswith("#"))
    kept = write(tmp_path, "_layer_norm_fwd_fused", (KB / "tut_layer_norm_fwd.py").read_text() + "\n" + body + "\n")
    assert '"compared": False' in body and corpus.load(kept).outputs == ["Y"]      # `litmus init` shows it; it loads
    metas, _ = read_launches(KB / "tb_sum_two_pass.py", "triton_sum", parse_shapes("x: [N] float32"))
    assert all(a.get("compared", True) for m in metas for a in m["args"])        # the partials feed the second launch
    metas, _ = read_launches(KB / "tb_batched_add_3d_grid.py", "batched_add", parse_shapes("x: [B, M, N]; y: [B, M, N]"))
    assert all(a.get("compared", True) for m in metas for a in m["args"])
    verdict, out = kb_check("tut layer norm fwd", capsys)
    assert verdict == "ACCEPT" and "writes ['Mean', 'Rstd'], which the entry allocates and never returns" in out, out[-2000:]


DTENSOR = """import torch
import triton
import triton.language as tl

try:
    from torch.distributed.tensor import DTensor as _DTensor
except Exception:
    _DTensor = ()


@triton.jit
def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def copy(x):
    if isinstance(x, _DTensor):
        x = x.full_tensor()
    y = torch.empty_like(x)
    copy_kernel[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), BLOCK=256)
    return y
"""


def test_a_type_imported_under_try_is_decided_for_a_plain_tensor(tmp_path):
    """Liger's `try: from torch.distributed.tensor import DTensor as _DTensor / except Exception: _DTensor = ()`: either
    way a parameter declared a tensor is no DTensor, so `if isinstance(X, _DTensor)` is read as False (was a usage error:
    a type litmus does not decide); a fallback that binds a real type leaves the test undecided, as before."""
    metas, _ = read_launches(write(tmp_path, "dtensor", DTENSOR), "copy", parse_shapes("x: [N] float32"))
    assert [m["kernel"] for m in metas] == ["copy_kernel"] and "assume" not in metas[0]
    other = write(tmp_path, "fallback", DTENSOR.replace("    _DTensor = ()", "    _DTensor = torch.Tensor"))
    with pytest.raises(LauncherError, match="a type litmus does not decide"):
        read_launches(other, "copy", parse_shapes("x: [N] float32"))


def test_a_reference_naming_a_parameter_without_a_value_is_a_usage_error(capsys):
    """The layer-norm tutorial's forward takes `eps` with no default: a --ref that names it, with no --dims eps=...,
    is a usage error saying how to give it (was an UNKNOWN: NameError: name 'eps' is not defined, in the box)."""
    file, entry, ref, shape, dims, domain, _ = KB_CASES["tut layer norm fwd"]
    code = main(["check", str(KB / file), "--entry", entry, "--ref", ref, "--shape", shape, "--dims", "M=32,N=1000",
                 "--domain", domain, "--quick"])
    err = capsys.readouterr().err
    assert code == 3 and "the reference names 'eps'" in err and "--dims eps=" in err, err


UPSTREAM = ROOT / "tests" / "launchers" / "upstream"


def test_upstream_files_are_checked_as_shipped(tmp_path, capsys):
    """Liger's relu_squared.py, unmodified: its `from liger_kernel.ops.utils import calculate_settings` is read as Liger
    ships it (was a usage error: a call litmus cannot read), so the kernel ACCEPTs and its one-bug sibling REJECTs;
    its autograd Function's forward under Liger's @ensure_contiguous (only a layout: the identity here) is read too, and
    a file's own decorator of that name is refused; FlagGems' mv.py behind @libentry/@libtuner is a usage error
    naming the decorator's line, never a guess."""
    relu2 = ["--entry", "relu_squared_forward", "--ref", "torch.relu(X) ** 2", "--shape", "X: [M, N] float32",
             "--dims", "M=16,N=1000", "--domain", "X in [-100, 100]", "--quick"]
    assert main(["check", str(UPSTREAM / "liger_relu_squared.py"), *relu2]) == 0
    out = capsys.readouterr().out
    assert "line 5: the launcher raises when `BLOCK_SIZE > MAX_FUSED_SIZE`" in out, out[-2000:]    # the import's line
    assert main(["check", str(UPSTREAM / "liger_relu_squared_mask_le.py"), *relu2]) == 1
    assert "out_of_bounds" in capsys.readouterr().out
    autograd = ["--entry", "LigerReLUSquaredFunction.forward", *relu2[2:]]     # under Liger's @ensure_contiguous
    assert main(["check", str(UPSTREAM / "liger_relu_squared.py"), *autograd]) == 0
    capsys.readouterr()
    own = (UPSTREAM / "liger_relu_squared.py").read_text() + "\n\ndef ensure_contiguous(fn):\n    return fn\n"
    hostile = tmp_path / "own_decorator.py"                 # the file's own ensure_contiguous would run: refused
    hostile.write_text(own)
    assert main(["check", str(hostile), *autograd]) == 3 and "@ensure_contiguous" in capsys.readouterr().err
    code = main(["check", str(UPSTREAM / "fg_mv.py"), "--entry", "mv", "--ref", "torch.mv(inp, vec)", "--shape",
                 "inp: [N, M] float32; vec: [M] float32", "--dims", "N=300,M=1000", "--quick"])
    err = capsys.readouterr().err
    assert code == 3 and "line 16" in err and "libentry" in err, err


def test_a_test_harness_is_neither_the_entry_nor_a_caller_hiding_it():
    """TritonBench's `def test_silu():` (no inputs: it makes its own) and a tutorial's `benchmark(size, provider)` call
    the launcher; the launcher is the entry, never the harness that calls it (it was: the harness's torch.randn refused)."""
    from litmus.launcher import default_entry, launchers
    assert launchers(KB / "tb_silu_autotune.py") == ["silu"] and default_entry(KB / "tb_silu_autotune.py") == "silu"
    assert launchers(KB / "tb_bias_gelu_helpers.py") == ["bias_gelu"]      # its backward kernel is never launched
    assert launchers(KB / "tut_vector_add.py") == ["add"]


def test_a_kernelbench_file_is_read_as_a_user_expects(tmp_path, capsys):
    """No --entry: ModelNew.forward (not its helper); no --shape: get_inputs, read and never run; a missing domain is
    asked for by the launcher's parameter name, never the kernel's pointer."""
    from litmus.launcher import default_entry, declared_inputs
    assert default_entry(KB / "kb_relu.py") == "ModelNew.forward"
    marker = tmp_path / "ran"
    hostile = (KB / "kb_relu.py").read_text().replace("    x = torch.randn(batch_size, dim)\n",
                                                      f"    open({str(marker)!r}, 'w')\n    x = torch.randn(batch_size, dim)\n")
    path = write(tmp_path, "hostile_inputs", hostile)
    assert declared_inputs(path, ["x"]) == ({}, {}, {}) and not marker.exists()      # unreadable: --shape says it
    shapes, dims, spreads = declared_inputs(KB / "kb_scalar_mul.py", ["A", "s"])       # a number beside the matrix
    assert shapes == {"A": (["M", "N"], "float32")} and dims == {"M": 256, "N": 1024, "s": 3.14} and spreads == {"A": (-6.0, 6.0)}
    shapes, dims, _ = declared_inputs(KB / "kb_cross_entropy_mean.py", ["predictions", "targets"])   # *input_shape
    assert shapes == {"predictions": (["batch_size", "num_classes"], "float32"), "targets": (["batch_size"], "int64")}
    assert dims == {"batch_size": 256, "num_classes": 10}
    shapes, _, spreads = declared_inputs(KB / "kb_masked_fill.py", ["x", "mask"])        # torch.rand(...) > 0.5: a bool
    assert shapes["mask"] == (["batch_size", "dim"], "bool") and spreads["mask"] == (0, 1)
    code = main(["check", str(KB / "kb_relu.py"), "--ref", "torch.relu(x)", "--shape", "x: [B, D] float32", "--dims", "B=4,D=8"])
    err = capsys.readouterr().err
    assert code == 3 and "inputs ['x'] have no declared domain" in err and "x_ptr" not in err, err


def test_a_composed_check_whose_declared_sizes_were_not_run_is_unknown_naming_them(capsys, monkeypatch):
    """A two-launch sum ACCEPTs at its declared N; where its composed runs cannot include the declared sizes (here the
    plan made to drop them, as a launch that does not resolve there would), the composed verdict is UNKNOWN naming the
    sizes, never an ACCEPT that covers only shape classes."""
    import litmus.launcher as launcher
    args = ["check", str(KB / "tb_sum_two_pass.py"), "--entry", "triton_sum", "--ref", "x.sum()", "--shape", "x: [N] float32",
            "--dims", "N=10000", "--domain", WIDE, "--quick"]
    assert main(args) == 0, capsys.readouterr().out[-3000:]
    capsys.readouterr()
    planned = launcher._plan
    monkeypatch.setattr(launcher, "_plan", lambda *a, **k: [d for d in planned(*a, **k) if d.get("N") != 10000])
    code, out = main(args), capsys.readouterr().out
    assert code == 2 and "the declared sizes (N=10000" in out and "were not run" in out, out[-3000:]
