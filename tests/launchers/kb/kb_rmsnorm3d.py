import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _rms_norm_fwd(X, Y, W, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    X += row * stride
    Y += row * stride
    _sum = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        a = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        _sum += a * a
    rstd = 1 / tl.sqrt(tl.sum(_sum, axis=0) / N + eps)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.).to(tl.float32)
        tl.store(Y + cols, x * rstd * w, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, hidden: int, eps: float = 1e-6):
        super().__init__()
        self.eps = eps

    def forward(self, x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
        x2d = x.reshape(-1, x.shape[-1])
        y = torch.empty_like(x2d)
        M, N = x2d.shape
        BLOCK_SIZE = min(1024, triton.next_power_of_2(N))
        _rms_norm_fwd[(M,)](x2d, y, weight, x2d.stride(0), N, self.eps, BLOCK_SIZE=BLOCK_SIZE)
        return y.view_as(x)


batch_size = 4
seq_len = 64
hidden = 1536


def get_inputs():
    return [torch.randn(batch_size, seq_len, hidden), torch.randn(hidden)]


def get_init_inputs():
    return [hidden]
