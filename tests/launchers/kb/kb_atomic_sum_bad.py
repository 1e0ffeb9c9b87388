import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def sum_atomic_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    partial = tl.sum(x, axis=0)
    tl.atomic_add(out_ptr, partial)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        n = x.numel()
        out = torch.empty(1, device=x.device, dtype=torch.float32)
        BLOCK_SIZE = 1024
        grid = (triton.cdiv(n, BLOCK_SIZE),)
        sum_atomic_kernel[grid](x, out, n, BLOCK_SIZE=BLOCK_SIZE)
        return out


N = 100000


def get_inputs():
    return [torch.randn(N)]


def get_init_inputs():
    return []
