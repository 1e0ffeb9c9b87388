import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def sq_diff_sum_kernel(p_ptr, t_ptr, partial_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    p = tl.load(p_ptr + offs, mask=mask, other=0.0)
    t = tl.load(t_ptr + offs, mask=mask, other=0.0)
    d = p - t
    tl.store(partial_ptr + pid, tl.sum(d * d, axis=0))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, predictions, targets):
        predictions = predictions.contiguous()
        targets = targets.contiguous()
        n = predictions.numel()
        BLOCK_SIZE = 1024
        num_blocks = triton.cdiv(n, BLOCK_SIZE)
        partial = torch.empty(num_blocks, device=predictions.device, dtype=torch.float32)
        sq_diff_sum_kernel[(num_blocks,)](predictions, targets, partial, n, BLOCK_SIZE=BLOCK_SIZE)
        return partial.sum() / n
