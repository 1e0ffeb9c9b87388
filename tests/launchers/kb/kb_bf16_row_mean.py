import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_mean_kernel(x_ptr, out_ptr, n_cols, stride_x, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_ptr + row * stride_x + cols, mask=cols < n_cols, other=0.0)
        acc += x.to(tl.float32)
    total = tl.sum(acc, axis=0)
    tl.store(out_ptr + row, (total / n_cols).to(out_ptr.dtype.element_ty))


class ModelNew(nn.Module):
    """Mean over the last dimension of a bfloat16 tensor, accumulated in float32."""
    def __init__(self, dim: int = -1):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, D = x.shape
        out = torch.empty(B, device=x.device, dtype=x.dtype)
        mean_kernel_block = 256
        row_mean_kernel[(B,)](x, out, D, x.stride(0), BLOCK_SIZE=mean_kernel_block)
        return out


batch_size = 64
dim = 8191


def get_inputs():
    x = torch.randn(batch_size, dim, dtype=torch.bfloat16)
    return [x]


def get_init_inputs():
    return [-1]
