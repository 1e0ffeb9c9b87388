"""An early return, an unrolled static_range loop and a barrier inside a loop whose trip count is the program id
(a divergent barrier: program p reaches it p times). Test-only."""
import triton
import triton.language as tl

@triton.jit
def early_exit_barrier(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if pid * BLOCK >= n:
        return
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    for i in tl.static_range(2):
        x = tl.load(x_ptr + offs, mask=offs < n)
        tl.store(y_ptr + offs, x, mask=offs < n)
    for j in range(pid):
        tl.debug_barrier()

LITMUS = {
    "label": "race",
    "why": "test-only",
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
    "answer_key": {"dims": {"N": 100}},
}

def reference(x):
    return x
