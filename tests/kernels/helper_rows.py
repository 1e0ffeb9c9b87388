"""Row scaling written with two @triton.jit helpers (correct); the model inlines them at each call."""
import triton
import triton.language as tl


@triton.jit
def _row_offsets(row, stride, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    return row * stride + cols, cols


@triton.jit
def _store_scaled(y_ptr, offs, x, scale, mask):
    tl.store(y_ptr + offs, x * scale, mask=mask)


@triton.jit
def helper_rows(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs, cols = _row_offsets(row, stride, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    _store_scaled(y_ptr, offs, x, 2.0, mask)


LITMUS = {
    "label": "correct",
    "why": "test-only: helper functions",
    "dims": {"M": 8, "N": 100, "P": 0},
    "pads": ["P"],
    "args": [
        {"name": "x_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "strides": ["N + P", "1"], "role": "in"},
        {"name": "y_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "strides": ["N + P", "1"], "role": "out"},
        {"name": "n_cols", "kind": "scalar", "value": "N"},
        {"name": "stride", "kind": "scalar", "value": "N + P"},
        {"name": "BLOCK", "kind": "constexpr", "value": "next_pow2(N)"},
    ],
    "grid": ["M"],
    "spec": "2 * x",
    "domain": {},
    "answer_key": None,
}


def reference(x):
    return 2.0 * x
