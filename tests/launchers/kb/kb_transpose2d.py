import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def transpose_kernel(in_ptr, out_ptr, M, N, stride_im, stride_in, stride_om, stride_on,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    tile = tl.load(in_ptr + offs_m[:, None] * stride_im + offs_n[None, :] * stride_in, mask=mask)
    # out[n, m] = in[m, n]
    tl.store(out_ptr + offs_n[None, :] * stride_om + offs_m[:, None] * stride_on, tile, mask=mask)


def triton_transpose(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((N, M), device=x.device, dtype=x.dtype)
    BLOCK_M, BLOCK_N = 32, 32
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    transpose_kernel[grid](x, out, M, N, x.stride(0), x.stride(1), out.stride(0), out.stride(1),
                           BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return triton_transpose(x)


M = 1000
N = 777


def get_inputs():
    return [torch.randn(M, N)]


def get_init_inputs():
    return []
