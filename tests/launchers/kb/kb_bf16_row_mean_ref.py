import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim: int = -1):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.mean(x, dim=self.dim)


batch_size = 64
dim = 8191


def get_inputs():
    x = torch.randn(batch_size, dim, dtype=torch.bfloat16)
    return [x]


def get_init_inputs():
    return [-1]
