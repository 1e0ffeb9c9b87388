import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def mean_dim_kernel(x_ptr, out_ptr, n_rows, n_cols, stride_x_row, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols
        vals = tl.load(x_ptr + row * stride_x_row + cols, mask=mask, other=0.0)
        acc += vals
    total = tl.sum(acc, axis=0)
    tl.store(out_ptr + row, total / n_cols)


class ModelNew(nn.Module):
    """Mean over the last dimension using Triton."""

    def __init__(self, dim: int):
        super(ModelNew, self).__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        n_rows, n_cols = x.shape
        out = torch.empty(n_rows, device=x.device, dtype=x.dtype)
        BLOCK_SIZE = 256
        mean_dim_kernel[(n_rows,)](x, out, n_rows, n_cols, x.stride(0), BLOCK_SIZE=BLOCK_SIZE)
        return out


batch_size = 16
dim1 = 4093


def get_inputs():
    x = torch.randn(batch_size, dim1)
    return [x]


def get_init_inputs():
    return [1]
