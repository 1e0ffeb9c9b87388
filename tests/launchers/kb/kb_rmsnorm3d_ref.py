import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, hidden: int, eps: float = 1e-6):
        super().__init__()
        self.eps = eps

    def forward(self, x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * weight


batch_size = 4
seq_len = 64
hidden = 1536


def get_inputs():
    return [torch.randn(batch_size, seq_len, hidden), torch.randn(hidden)]


def get_init_inputs():
    return [hidden]
