"""Row prefix sum that addresses the input rows with n_cols instead of the row stride (planted bug: stride).

The load uses row * n_cols where the rows are stride = N + P elements apart. On a contiguous tensor (P = 0) the two
agree; on a row-padded tensor row r scans a window r * P elements behind its own row, padding included."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def cumsum_stride(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    tl.store(y_ptr + row * stride + cols, tl.cumsum(x, axis=0), mask=mask)


LITMUS = {
    "label": "stride",
    "why": "benchmarks pass contiguous tensors, where n_cols equals the row stride and the wrong base is a no-op",
    "dims": {"M": 16, "N": 1000, "P": 0},
    "pads": ["P"],
    "args": [
        {"name": "x_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "strides": ["N + P", "1"], "role": "in"},
        {"name": "y_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "strides": ["N + P", "1"], "role": "out"},
        {"name": "n_cols", "kind": "scalar", "value": "N"},
        {"name": "stride", "kind": "scalar", "value": "N + P"},
        {"name": "BLOCK", "kind": "constexpr", "value": "next_pow2(N)"},
    ],
    "grid": ["M"],
    "spec": "cumsum(x)",
    "domain": {"x_ptr": [-1000.0, 1000.0]},
    "reduce": "N",
    "sibling": "cumsum",
    "answer_key": {"dims": {"M": 4, "N": 100, "P": 7}, "inputs": {"x_ptr": {"dist": "normal", "loc": 0.0, "scale": 1.0}},
                   "seed": 0, "observable": "numeric", "note": "rows 1-3 scan the wrong window, padding included"},
}


def reference(x):
    return np.cumsum(x, axis=-1)
