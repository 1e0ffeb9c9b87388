"""A kernel wrong only at its declared size must not ACCEPT when that size is too large for the model (chapter 12's
lowering of declared dims and shape classes, chapter 13's verdict).

Each hostile file is a KernelBench-style add + relu (kernel, ModelNew launcher, Model reference, get_inputs) that is
correct except past a threshold that only the declared size crosses: an integer constant (a size test, a program id, an
offset in a tl.where, a folded `1 << 19`, a shift of the size by 19, a constexpr global, a derived value, a jit helper's
constant), or a threshold no constant betrays (`tl.log2` of the size against 19.0, a loop counting the size's bits,
a float compare `n * 1e-6 > 0.5`, a local product `lim * lim * 60`). The search's launches run lowered sizes; one
launch at the declared size (chapter 12's `_run_declared`) REJECTs every one. Where that launch cannot run (here: its
size limit set below the declared size), the verdict is UNKNOWN naming why, and the constant rule still names the
constant. Each oracle is the same kernel declared at a size the model can run, with the threshold scaled into it: that
file REJECTs, so the branch really writes garbage."""
from pathlib import Path
import pytest
from litmus import falsify
from litmus.cli import main

KERNEL = '''import torch
import torch.nn as nn
import triton
import triton.language as tl
{globals}

@triton.jit
def add_relu_kernel(a_ptr, b_ptr, c_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    a = tl.load(a_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs, mask=mask)
    c = a + b
    c = tl.where(c > 0, c, 0.0)
{bug}
    tl.store(c_ptr + offs, c, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        c = torch.empty_like(a)
        n = a.numel()
        grid = lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)
        add_relu_kernel[grid](a, b, c, n, BLOCK_SIZE=256)
        return c


batch_size = {batch}
dim = {dim}


def get_inputs():
    return [torch.randn(batch_size, dim), torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
'''

REFERENCE = '''import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.relu(a + b)


batch_size = {batch}
dim = {dim}


def get_inputs():
    return [torch.randn(batch_size, dim), torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
'''

# (globals, the garbage branch) with {big} the constant the declared size crosses; the small oracle's is {small}
BUGS = {
    "size": ("", "    if n_elements > {c}:\n        c = c + 1.0"),
    "program": ("", "    if pid == {c}:\n        c = c + 1.0"),
    "offset": ("", "    c = tl.where(offs > {c}, c + 1.0, c)"),
    "folded": ("", "    c = tl.where(offs > (1 << {c}), c + 1.0, c)"),
    "global": ("LIMIT: tl.constexpr = {c}\n", "    c = tl.where(offs > LIMIT, c + 1.0, c)"),
    "scaled size": ("", "    if n_elements * 2 > {c}:\n        c = c + 1.0"),         # the constant is past every size
    "scaled program": ("", "    if pid * 3 > {c}:\n        c = c + 1.0"),
    "shifted": ("", "    if (n_elements >> {c}) > 0:\n        c = c + 1.0"),     # a size test with no large number in it
    "helper": ("\n@triton.jit\ndef bump(c, offs):\n    return tl.where(offs > {c}, c + 1.0, c)\n", "    c = bump(c, offs)"),
}
# thresholds no constant of the kernel betrays: every number in them is crossed by the lowered runs, or not whole
HIDDEN = {
    "log2": ("", "    if tl.log2(n_elements * 1.0) > {c}:\n        c = c + 1.0"),
    "counting loop": ("", "    bits = 0\n    for i in range(0, 40):\n        bits = bits + tl.where((n_elements >> i) > 0, 1, 0)\n"
                          "    c = tl.where(bits > {c}, c + 1.0, c)"),     # bits: the size's bit length
    "float compare": ("", "    if n_elements * {c} > 0.5:\n        c = c + 1.0"),
    "local product": ("", "    lim = {c}\n    lim = lim * lim * 60\n    c = tl.where(offs > lim, c + 1.0, c)"),
}
BUGS.update(HIDDEN)
# 128 x 5000 = 640000 elements a tensor (three tensors: too large for the model); 1 x 3000 fits
BIG = {"size": 500000, "program": 1000, "offset": 600000, "folded": 19, "global": 600000, "scaled size": 1000000,
       "scaled program": 3000, "shifted": 19, "helper": 600000,
       "log2": 19.0, "counting loop": 19, "float compare": 1e-6, "local product": 100}   # 524288, 2**20, 500000, 600000
SMALL = {"size": 2000, "program": 5, "offset": 2000, "folded": 11, "global": 2000, "scaled size": 4000,
         "scaled program": 15, "shifted": 11, "helper": 2000,
         "log2": 11.0, "counting loop": 11, "float compare": 2.5e-4, "local product": 5}


def write_case(tmp_path, bug, batch, dim, constant, block=256):
    globals_, branch = BUGS[bug]
    kernel = tmp_path / f"kb_{bug.replace(' ', '_')}_{batch}.py"
    text = KERNEL.format(globals=globals_.format(c=constant), bug=branch.format(c=constant), batch=batch, dim=dim)
    kernel.write_text(text.replace("BLOCK_SIZE=256", f"BLOCK_SIZE={block}"))
    ref = tmp_path / f"kb_{bug.replace(' ', '_')}_{batch}_ref.py"
    ref.write_text(REFERENCE.format(batch=batch, dim=dim))
    return kernel, ref


def verdict(kernel, ref, capsys):
    code = main(["check", str(kernel), "--quick", "--ref", str(ref)])
    out = capsys.readouterr()
    return {0: "ACCEPT", 1: "REJECT", 2: "UNKNOWN", 3: "usage error"}[code], out.out + out.err


@pytest.mark.parametrize("bug", sorted(BUGS))
def test_a_kernel_wrong_only_at_its_declared_size_is_rejected_by_the_declared_run(tmp_path, capsys, bug):
    kernel, ref = write_case(tmp_path, bug, 128, 5000, BIG[bug])
    got, out = verdict(kernel, ref, capsys)
    assert got == "REJECT", out[-3000:]
    assert "'batch_size': 128, 'dim': 5000" in out, out[-3000:]     # the witness is at the declared size


@pytest.fixture
def no_declared_run(monkeypatch):
    "The declared launch's size limit below 3 x 640000 elements: the declared size cannot run even once."
    monkeypatch.setattr(falsify, "_DECLARED_MAX_ELEMENTS", 100000)


@pytest.mark.parametrize("bug", ["size", "log2"])     # a constant the rule names, a threshold it cannot see
def test_where_the_declared_size_cannot_run_the_verdict_is_unknown_naming_why(tmp_path, capsys, no_declared_run, bug):
    kernel, ref = write_case(tmp_path, bug, 128, 5000, BIG[bug])
    got, out = verdict(kernel, ref, capsys)
    assert got == "UNKNOWN", out[-3000:]
    assert ("the declared sizes (batch_size=128, dim=5000) were not run: too large to run even once (1920000 tensor "
            "elements; at most 100000)") in out, out[-3000:]
    if bug not in HIDDEN:    # the constant rule names the constant too
        assert "was never crossed" in out and "line 16" in out, out[-3000:]


@pytest.mark.parametrize("bug", sorted(BUGS))
def test_the_same_branch_at_a_size_the_model_runs_is_rejected(tmp_path, capsys, bug):
    "The oracle: declared small, with the constant inside it, the garbage branch runs and the kernel REJECTs."
    kernel, ref = write_case(tmp_path, bug, 1, 3000, SMALL[bug])
    got, out = verdict(kernel, ref, capsys)
    assert got == "REJECT", out[-3000:]


def test_a_correct_kernel_at_a_lowered_size_accepts_and_says_what_ran_at_which_size(tmp_path, capsys, monkeypatch):
    kernel, ref = write_case(tmp_path, "size", 128, 5000, 0)
    kernel.write_text(kernel.read_text().replace("    if n_elements > 0:\n        c = c + 1.0\n", ""))
    got, out = verdict(kernel, ref, capsys)
    assert got == "ACCEPT", out[-3000:]
    assert "which ran batch_size=128, dim=1 in their place; then launches at the declared sizes (batch_size=128, " \
           "dim=5000) on a random input from the domain (" in out and "x the threshold) and on same-sign runs (" in out, out[-3000:]
    monkeypatch.setattr(falsify, "_DECLARED_MAX_ELEMENTS", 100000)   # the same kernel, its declared size not run
    got, out = verdict(kernel, ref, capsys)
    assert got == "UNKNOWN" and "were not run: too large to run even once" in out, out[-3000:]


@pytest.mark.parametrize("name", ["kb_add_relu", "kb_transpose2d"])
def test_the_benchmark_files_with_no_such_constant_keep_their_accept(capsys, name):
    "get_inputs' `M = 1000` is a global the kernel's parameter `M` hides: not a constant of the kernel."
    kb = Path(__file__).resolve().parent / "launchers" / "kb"
    got, out = verdict(kb / f"{name}.py", kb / f"{name}_ref.py", capsys)
    assert got == "ACCEPT", out[-3000:]
    assert "then launches at the declared sizes" in out, out[-3000:]


def test_the_rule_holds_where_shape_classes_were_lowered(tmp_path, capsys):
    """Declared 4 x 1000 runs, but with a block of 1024 the shape classes of batch_size and dim (1025 x 1025 elements a
    tensor) are lowered to fit: a size test at 10**6 that only those classes cross is not ACCEPTed; without it, ACCEPT."""
    kernel, ref = write_case(tmp_path, "size", 4, 1000, 1000000, block=1024)
    got, out = verdict(kernel, ref, capsys)
    assert got == "UNKNOWN" and "the constant 1000000 at line 16 was never crossed" in out, out[-3000:]
    kernel.write_text(kernel.read_text().replace("    if n_elements > 1000000:\n        c = c + 1.0\n", ""))
    got, out = verdict(kernel, ref, capsys)
    assert got == "ACCEPT", out[-3000:]


def launch_constant_case(tmp_path, batch, dim, limit):
    "The size test's limit is not in the kernel but a constexpr the launcher passes (`LIMIT=500000`)."
    kernel, ref = write_case(tmp_path, "size", batch, dim, "LIMIT")
    text = kernel.read_text().replace("BLOCK_SIZE: tl.constexpr):", "BLOCK_SIZE: tl.constexpr, LIMIT: tl.constexpr):")
    kernel.write_text(text.replace("BLOCK_SIZE=256)", f"BLOCK_SIZE=256, LIMIT={limit})"))
    return kernel, ref


def test_a_constant_the_launch_passes_is_read_as_the_kernels_own(tmp_path, capsys, monkeypatch):
    got, out = verdict(*launch_constant_case(tmp_path, 128, 5000, 500000), capsys)
    assert got == "REJECT", out[-3000:]                                           # the declared run crosses it
    monkeypatch.setattr(falsify, "_DECLARED_MAX_ELEMENTS", 100000)
    got, out = verdict(*launch_constant_case(tmp_path, 128, 5000, 500000), capsys)
    assert got == "UNKNOWN" and "the constant LIMIT = 500000 at line 16 was never crossed" in out, out[-3000:]
    got, out = verdict(*launch_constant_case(tmp_path, 1, 3000, 2000), capsys)   # the oracle: run, it is garbage
    assert got == "REJECT", out[-3000:]


def clamped_grid_case(tmp_path, batch, dim, programs):
    "Correct in the kernel, but the launcher's grid stops at `programs`: past programs * 256 elements none is written."
    kernel, ref = write_case(tmp_path, "size", batch, dim, 0)
    text = kernel.read_text().replace("    if n_elements > 0:\n        c = c + 1.0\n", "")
    grid = 'grid = lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)'
    kernel.write_text(text.replace(grid, f"grid = (min(triton.cdiv(n, 256), {programs}),)"))
    return kernel, ref


def test_a_grid_that_clamps_below_the_declared_size_is_not_accepted(tmp_path, capsys, monkeypatch):
    got, out = verdict(*clamped_grid_case(tmp_path, 128, 5000, 1000), capsys)
    assert got == "REJECT", out[-3000:]
    monkeypatch.setattr(falsify, "_DECLARED_MAX_ELEMENTS", 100000)
    got, out = verdict(*clamped_grid_case(tmp_path, 128, 5000, 1000), capsys)
    assert got == "UNKNOWN" and "the constant 1000 in the grid" in out, out[-3000:]
    got, out = verdict(*clamped_grid_case(tmp_path, 1, 3000, 5), capsys)   # the oracle: 1280 of 3000 elements written
    assert got == "REJECT", out[-3000:]


def test_a_float16_accumulator_that_drifts_only_on_same_sign_runs_is_rejected_at_the_declared_size(capsys):
    """The fp16-accumulating GEMV over A, x in [-1, 1]: its running sum stalls only past 2048, which needs the declared
    K = 4096 and terms of one sign; the lowered runs have short rows and a uniform draw sums to about +-40, so only the
    declared launch on same-sign runs sees it (it ACCEPTed when that launch drew a random input only). Its oracle: the
    same GEMV accumulating in float32 ACCEPTs on the same domain."""
    kb = Path(__file__).resolve().parent / "launchers" / "kb"
    domain = ["--domain", "A in [-1, 1]; x in [-1, 1]"]
    code = main(["check", str(kb / "kb_gemv_fp16_acc.py"), "--quick", "--ref", str(kb / "kb_gemv_fp16_ref.py"), *domain])
    out = capsys.readouterr().out
    assert code == 1 and "generator same_sign_run" in out and "K=4096" in out, out[-3000:]
    code = main(["check", str(kb / "kb_gemv_fp16.py"), "--quick", "--ref", str(kb / "kb_gemv_fp16_ref.py"), *domain])
    out = capsys.readouterr().out
    assert code == 0, out[-3000:]
