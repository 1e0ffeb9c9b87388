"""A correct kernel (every access masked) with a while loop and a block pointer: outside the static model, so UNKNOWN."""
import triton
import triton.language as tl

@triton.jit
def unsupported_while(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    i = 0
    while i < 4:
        tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)
        i += 1
    p = tl.make_block_ptr(x_ptr, shape=(n,), strides=(1,), offsets=(pid * BLOCK,), block_shape=(BLOCK,), order=(0,))
    tl.store(y_ptr + offs, tl.load(p, boundary_check=(0,)), mask=offs < n)

LITMUS = {
    "label": "correct",
    "why": "test-only: unsupported constructs",
    "dims": {"N": 100},
    "args": [
        {"name": "x_ptr", "kind": "tensor", "dtype": "float32", "shape": ["N"], "role": "in"},
        {"name": "y_ptr", "kind": "tensor", "dtype": "float32", "shape": ["N"], "role": "out"},
        {"name": "n", "kind": "scalar", "value": "N"},
        {"name": "BLOCK", "kind": "constexpr", "value": "32"},
    ],
    "grid": ["cdiv(N, BLOCK)"],
    "spec": None,
    "domain": {},
    "answer_key": None,
}

def reference(x):
    return x
