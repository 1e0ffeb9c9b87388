import torch
import torch.nn as nn


class Model(nn.Module):
    """Matrix-vector product y = A x."""
    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, x)


M = 1024
K = 4096


def get_inputs():
    A = torch.randn(M, K, dtype=torch.float16)
    x = torch.randn(K, dtype=torch.float16)
    return [A, x]


def get_init_inputs():
    return []
