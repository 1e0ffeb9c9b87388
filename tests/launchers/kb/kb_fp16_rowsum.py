import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def rowsum_fp16_kernel(x_ptr, y_ptr, n_cols, stride_row, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, n_cols, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_ptr + row * stride_row + cols, mask=cols < n_cols, other=0.0)
        acc += x.to(tl.float32)
    s = tl.sum(acc, axis=0)
    tl.store(y_ptr + row, s.to(tl.float16))


class ModelNew(nn.Module):
    def __init__(self, dim: int = 1):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape
        y = torch.empty(rows, device=x.device, dtype=torch.float16)
        rowsum_fp16_kernel[(rows,)](x, y, cols, x.stride(0), BLOCK_SIZE=1024)
        return y


batch_size = 64
dim = 8000


def get_inputs():
    return [torch.randn(batch_size, dim).half()]


def get_init_inputs():
    return [1]
