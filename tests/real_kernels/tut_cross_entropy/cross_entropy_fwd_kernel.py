"""Cross-entropy forward in the style of the Triton tutorials (correct). Written for this suite in the style of the Triton tutorials (MIT licence, triton-lang.org); no upstream code.

One program per row of logits: loss = logsumexp(x) - x[target], with the row max subtracted before exp; the target
logit is read through the row's loaded index (a gather), which the launch declares to lie in [0, n_cols)."""
import numpy as np
import torch
import triton
import triton.language as tl


@triton.jit
def cross_entropy_fwd_kernel(logits_ptr, target_ptr, loss_ptr, row_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(logits_ptr + row * row_stride + cols, mask=mask, other=-float("inf")).to(tl.float32)
    m = tl.max(x, axis=0)
    lse = m + tl.log(tl.sum(tl.exp(x - m), axis=0))
    target = tl.load(target_ptr + row)
    x_t = tl.load(logits_ptr + row * row_stride + target).to(tl.float32)
    tl.store(loss_ptr + row, lse - x_t)


def cross_entropy(logits, target):
    n_rows, n_cols = logits.shape
    loss = torch.empty((n_rows,), dtype=torch.float32, device=logits.device)
    cross_entropy_fwd_kernel[(n_rows,)](logits, target, loss, logits.stride(0), n_cols,
                                        BLOCK_SIZE=triton.next_power_of_2(n_cols))
    return loss


LITMUS = {
    "label": "correct",
    "why": "a tutorial-style cross-entropy forward with a gathered target logit",
    "dims": {"M": 8, "N": 1000},
    "args": [
        {"name": "logits_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "role": "in"},
        {"name": "target_ptr", "kind": "tensor", "dtype": "int64", "shape": ["M"], "role": "in"},
        {"name": "loss_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M"], "role": "out"},
        {"name": "row_stride", "kind": "scalar", "value": "N"},
        {"name": "n_cols", "kind": "scalar", "value": "N"},
        {"name": "BLOCK_SIZE", "kind": "constexpr", "value": "next_pow2(N)"},
    ],
    "grid": ["M"],
    "spec": None,
    "domain": {"logits_ptr": [-1000.0, 1000.0], "target_ptr": [0, "N - 1"]},
    "reduce": "N",
    "answer_key": None,
}


def reference(logits, target):
    m = logits.max(axis=-1)
    lse = m + np.log(np.exp(logits - m[:, None]).sum(axis=-1))
    return lse - logits[np.arange(logits.shape[0]), target.astype(np.int64)]
