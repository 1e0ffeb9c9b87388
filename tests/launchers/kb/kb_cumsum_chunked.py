import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def cumsum_kernel(x_ptr, out_ptr, n_cols, stride_x, stride_out, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row * stride_x
    out_row = out_ptr + row * stride_out
    carry = tl.zeros((), dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols
        x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
        prefix = tl.cumsum(x, axis=0) + carry
        tl.store(out_row + cols, prefix, mask=mask)
        carry += tl.sum(x, axis=0)


class ModelNew(nn.Module):
    """A cumulative sum along dim 1, in chunks of BLOCK_SIZE columns with the running total carried between them."""
    def __init__(self, dim):
        super(ModelNew, self).__init__()
        self.dim = dim

    def forward(self, x):
        assert x.dim() == 2 and self.dim == 1
        x = x.contiguous()
        out = torch.empty_like(x)
        n_rows, n_cols = x.shape
        cumsum_kernel[(n_rows,)](x, out, n_cols, x.stride(0), out.stride(0), BLOCK_SIZE=256)
        return out


batch_size = 128
input_shape = (4000,)
dim = 1


def get_inputs():
    return [torch.randn(batch_size, *input_shape)]


def get_init_inputs():
    return [dim]
