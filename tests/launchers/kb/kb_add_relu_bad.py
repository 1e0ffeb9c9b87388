import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def add_relu_kernel(a_ptr, b_ptr, c_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    a = tl.load(a_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs + 1, mask=mask)
    c = a + b
    c = tl.where(c > 0, c, 0.0)
    tl.store(c_ptr + offs, c, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        c = torch.empty_like(a)
        n = a.numel()
        grid = lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)
        add_relu_kernel[grid](a, b, c, n, BLOCK_SIZE=2048)
        return c


batch_size = 128
dim = 3000


def get_inputs():
    return [torch.randn(batch_size, dim), torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
