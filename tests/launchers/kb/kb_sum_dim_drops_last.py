import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def sum_kernel(x_ptr, out_ptr, M, N, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    acc = 0.0
    for off in range(0, N, BLOCK_N):
        cols = off + tl.arange(0, BLOCK_N)
        vals = tl.load(x_ptr + row * N + cols, mask=cols < N - 1, other=0.0)
        acc += tl.sum(vals, axis=0)
    tl.store(out_ptr + row, acc)


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super(ModelNew, self).__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        M, N = x.shape
        out = torch.empty((M, 1), device=x.device, dtype=x.dtype)
        sum_kernel[(M,)](x, out, M, N, BLOCK_N=1024)
        return out


batch_size = 16
dim1 = 256
reduce_dim = 1


def get_inputs():
    x = torch.randn(batch_size, dim1)
    return [x]


def get_init_inputs():
    return [reduce_dim]
