"""The launch description's newer parts in the search: an inout tensor, two outputs with a spec each, a string
constexpr and an `assume` precondition, each held to numpy (the spec's float64 reference) through the GPU-free model."""
import textwrap
import numpy as np
import pytest
from litmus import corpus, simulate
from litmus.falsify import TargetedFalsification, generate, GENERATORS
from litmus.spec import DTYPES

AXPY = '''
import triton
import triton.language as tl

@triton.jit
def axpy_inplace(x_ptr, y_ptr, sq_ptr, n, ACT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    if ACT == "double":
        x = x * 2.0
    tl.store(y_ptr + offs, tl.load(y_ptr + offs) + x)
    tl.store(sq_ptr + offs, SQUARE)

LITMUS = {"dims": {"N": 64}, "grid": ["N // BLOCK"], "assume": ["N % BLOCK == 0"],
          "args": [{"name": "x_ptr", "kind": "tensor", "dtype": "float32", "shape": ["N"], "role": "in"},
                   {"name": "y_ptr", "kind": "tensor", "dtype": "float32", "shape": ["N"], "role": "inout"},
                   {"name": "sq_ptr", "kind": "tensor", "dtype": "float32", "shape": ["N"], "role": "out"},
                   {"name": "n", "kind": "scalar", "value": "N"},
                   {"name": "ACT", "kind": "constexpr", "value": 'MODE'},
                   {"name": "BLOCK", "kind": "constexpr", "value": "16"}],
          "spec": ["y + 2 * x", "4 * (x * x)"], "domain": {"x": [-4, 4], "y": [-4, 4]}}
'''

def _kernel(tmp_path, mode='"double"', square="x * x"):
    path = tmp_path / "axpy_inplace.py"
    path.write_text(AXPY.replace("MODE", mode).replace("SQUARE", square))
    return corpus.load(path)

def _search(kernel, launched):
    def runner(k, dims, inputs, trace):
        launched.append(dict(dims))
        return simulate.run_model_here(k, dims, inputs, trace=trace)
    return TargetedFalsification(kernel, budget=30, dtypes=False, spsa_steps=2, runner=runner, sandbox=False)

def test_a_correct_inplace_kernel_with_two_outputs_passes_and_no_launch_breaks_its_assumption(tmp_path):
    launched = []
    result = _search(_kernel(tmp_path), launched).run()
    assert not result.found and not result.failure and result.evaluations > 5, str(result)
    assert launched and all(d["N"] % 16 == 0 for d in launched)    # the unmasked tail never exists
    assert any("outside the kernel's assumptions" in n for n in result.notes)

@pytest.mark.parametrize("mode, square, wrong", [('"none"', "x * x", "y_ptr"), ('"double"', "x * x * 0.5", "sq_ptr")])
def test_a_wrong_inout_or_second_output_is_rejected(tmp_path, mode, square, wrong):
    kernel = _kernel(tmp_path, mode, square)
    result = _search(kernel, []).run()
    assert result.found and result.counterexample.kind == "numeric", str(result)
    cx = result.counterexample
    launch = corpus.resolve(kernel, cx.dims)
    run = simulate.run_model_here(kernel, cx.dims, cx.inputs)
    x, y = np.asarray(cx.inputs["x_ptr"]), np.asarray(cx.inputs["y_ptr"])
    exact = {"y_ptr": y + 2 * x, "sq_ptr": 4 * x * x}      # numpy, the spec's meaning
    errors = {n: np.abs(run.outputs[n] - exact[n]).max() for n in exact}
    assert max(errors.values()) == pytest.approx(cx.error) and errors[wrong] > cx.threshold
    assert launch.values["ACT"] == mode.strip('"')      # the string constexpr reached the kernel as a string

def test_the_reduction_identity_generator_is_launched_at_every_variant(tmp_path):
    search = TargetedFalsification(_kernel(tmp_path), dtypes=False, sandbox=False)
    variants = {v for label, _, _, g, v in search.plan() if g == "past_identity" and label == "declared"}
    assert variants == {0, 1, 2, 3} and "past_identity" in GENERATORS
    f32 = DTYPES["float32"]
    low = generate("past_identity", (3, 40), -1000.0, 1000.0, f32, np.random.default_rng(0), 0)
    assert (np.exp(low.astype(np.float32) - np.float32(0.0)) == 0).all()    # a max seeded with 0 loses every entry


@pytest.mark.parametrize("name, rejected", [("rowsum", False), ("rowsum_fp16acc", True)])
def test_half_width_tensors_are_held_to_a_float32_accumulator_by_default(tmp_path, name, rejected):
    "The corpus's row sums with a float16 input, without `accumulate`: the fp16 accumulator falls outside the contract."
    text = (corpus.KERNEL_DIR / f"{name}.py").read_text()
    text = text.replace('"name": "x_ptr", "kind": "tensor", "dtype": "float32"', '"name": "x_ptr", "kind": "tensor", "dtype": "float16"')
    (tmp_path / f"{name}.py").write_text(text)
    kernel = corpus.load(tmp_path / f"{name}.py")
    assert kernel.accumulate is None and kernel.arg("x_ptr")["dtype"] == "float16"
    search = TargetedFalsification(kernel, budget=40, dtypes=False, spsa_steps=0, sandbox=False)
    tb = search.target.bound(corpus.resolve(kernel))
    assert tb.certified and tb.acc_dtype == "float32", tb
    result = search.run()
    assert result.found == rejected and not result.failure, str(result)
    if rejected:   # the witness, replayed: the kernel's float16 sum against the exact float64 sum (numpy)
        cx = result.counterexample
        out = simulate.run_model_here(kernel, cx.dims, cx.inputs).outputs["out_ptr"]
        exact = np.asarray(cx.inputs["x_ptr"], np.float64).sum(axis=-1)
        assert np.abs(out - exact).max() > tb.at({"N": cx.dims["N"]}).threshold


def test_an_online_softmax_seeded_with_zero_is_found_by_the_identity_generator_alone():
    "Over the file's own domain [-1e3, 1e3], no narrowing: whole very negative rows make every exp(x - 0) underflow."
    result = TargetedFalsification("softmax_online_zeroinit", generators=["past_identity"], dtypes=False, spsa_steps=0).run()
    assert result.found and result.counterexample.generator == "past_identity", str(result)
    clean = TargetedFalsification("softmax_online", generators=["past_identity"], dtypes=False, spsa_steps=0).run()
    assert not clean.found and not clean.failure, str(clean)
