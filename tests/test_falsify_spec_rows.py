"""Which rows a spec reduces, read off the launch (chapter 12's Target._spec_dims and Target.reference).

A column sum `sum(transpose(x))` over x [M, N] reduces rows of M elements, so its certified threshold is the bound at
N = M (at x [300, 1] it is not 0: a correct atomic column sum ACCEPTs, where reading N from x.shape[-1] REJECTed it).
A row spec over a rank-3 input x [B, S, D] (what a launcher flattens with x.reshape(-1, D)) is evaluated on the rows of
the last axis, as a 2-D input's are, and held to the bound at N = D; a wrong kernel still REJECTs."""
import numpy as np
import pytest
from litmus import corpus
from litmus.check import check
from litmus.falsify import Target, Case

COL_SUM = '''import numpy as np
import triton
import triton.language as tl


@triton.jit
def col_sum(x_ptr, out_ptr, M, N, stride_m, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    col_mask = cols < N
    tile = tl.load(x_ptr + rows[:, None] * stride_m + cols[None, :], mask=(rows[:, None] < M) & col_mask[None, :], other=0.0)
    tl.atomic_add(out_ptr + cols, tl.sum(tile, axis=0){bug}, mask=col_mask)


LITMUS = {{
    "label": "correct",
    "dims": {{"M": 300, "N": 40}},
    "args": [
        {{"name": "x_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "role": "in"}},
        {{"name": "out_ptr", "kind": "tensor", "dtype": "float32", "shape": ["N"], "role": "acc"}},
        {{"name": "M", "kind": "scalar", "value": "M"}},
        {{"name": "N", "kind": "scalar", "value": "N"}},
        {{"name": "stride_m", "kind": "scalar", "value": "N"}},
        {{"name": "BLOCK_M", "kind": "constexpr", "value": "64"}},
        {{"name": "BLOCK_N", "kind": "constexpr", "value": "32"}},
    ],
    "grid": ["cdiv(M, BLOCK_M)", "cdiv(N, BLOCK_N)"],
    "spec": "sum(transpose(x))",
    "domain": {{"x_ptr": [-10.0, 10.0]}},
    "reduce": "M",
}}


def reference(x):
    return x.sum(axis=0)
'''

RMSNORM = '''import numpy as np
import triton
import triton.language as tl


@triton.jit
def rms_norm(x_ptr, y_ptr, w_ptr, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < N
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / N + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    tl.store(y_ptr + row * stride + cols, x * rstd * w{bug}, mask=mask)


LITMUS = {{
    "label": "correct",
    "dims": {{"B": 3, "S": 5, "D": 17}},
    "args": [
        {{"name": "x_ptr", "kind": "tensor", "dtype": "float32", "shape": ["B", "S", "D"], "role": "in"}},
        {{"name": "y_ptr", "kind": "tensor", "dtype": "float32", "shape": ["B", "S", "D"], "role": "out"}},
        {{"name": "w_ptr", "kind": "tensor", "dtype": "float32", "shape": ["D"], "role": "in"}},
        {{"name": "stride", "kind": "scalar", "value": "D"}},
        {{"name": "N", "kind": "scalar", "value": "D"}},
        {{"name": "eps", "kind": "scalar", "value": 1e-06}},
        {{"name": "BLOCK_SIZE", "kind": "constexpr", "value": "next_pow2(D)"}},
    ],
    "grid": ["B * S"],
    "spec": "rmsnorm(x, eps=1e-06) * w",
    "domain": {{"x_ptr": [-4.0, 4.0], "w_ptr": [-2.0, 2.0]}},
    "reduce": "D",
}}


def reference(x, w):
    return x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + 1e-06) * w
'''


def write(tmp_path, text, name, bug=""):
    path = tmp_path / f"{name}.py"
    path.write_text(text.format(bug=bug))
    return corpus.load(path)


def test_a_column_sum_reduces_rows_of_m_elements(tmp_path):
    kernel = write(tmp_path, COL_SUM, "col_sum")
    target = Target(kernel)
    for dims in ({"M": 300, "N": 40}, {"M": 300, "N": 1}, {"M": 7, "N": 129}):
        launch = corpus.resolve(kernel, dims)
        assert target._spec_dims(launch) == {"N": dims["M"]}
        tb = target.bound(launch)
        square = target.bound(corpus.resolve(kernel, {"M": dims["M"], "N": dims["M"]}))   # rows of M either way
        assert tb.threshold == square.threshold and tb.threshold > 0


def test_a_correct_atomic_column_sum_accepts_and_a_wrong_one_rejects(tmp_path):
    got = check(write(tmp_path, COL_SUM, "col_sum"), quick=True)
    assert got.verdict == "ACCEPT", str(got)
    got = check(write(tmp_path, COL_SUM, "col_sum_bad", " * 1.001"), quick=True)
    assert got.verdict == "REJECT", str(got)


def test_a_row_spec_over_a_rank_3_input_is_evaluated_on_the_rows_of_its_last_axis(tmp_path):
    kernel = write(tmp_path, RMSNORM, "rmsnorm3d")
    target = Target(kernel)
    launch = corpus.resolve(kernel)
    assert target._spec_dims(launch) == {"N": 17}
    rng = np.random.default_rng(0)
    x, w = rng.uniform(-4, 4, (3, 5, 17)), rng.uniform(-2, 2, 17)
    case = Case(kernel, dict(kernel.dims), {"x_ptr": x, "w_ptr": w}, "declared", "float32", "uniform")
    ref = target.reference(case, launch)["y_ptr"]
    torch_like = x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + 1e-06) * w    # float64, rows of the last axis
    np.testing.assert_allclose(ref, torch_like, rtol=1e-13, atol=0)


def test_a_rank_3_rmsnorm_is_searched_to_the_end_and_a_wrong_one_rejects(tmp_path):
    "The correct kernel's search runs every class under the certified bound (its grid B * S leaves race freedom open)."
    got = check(write(tmp_path, RMSNORM, "rmsnorm3d"), quick=True)
    fals = got.falsification
    assert got.certified and fals.complete and not fals.found and fals.worst_ratio < 1, str(got)
    got = check(write(tmp_path, RMSNORM, "rmsnorm3d_bad", " * 1.001"), quick=True)
    assert got.verdict == "REJECT", str(got)
