import torch
import torch.nn as nn


class Model(nn.Module):
    """Simple model that performs Argmax over a specified dimension."""
    def __init__(self, dim: int):
        super(Model, self).__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.argmax(x, dim=self.dim)


batch_size = 16
dim1 = 1000


def get_inputs():
    x = torch.randn(batch_size, dim1)
    return [x]


def get_init_inputs():
    return [1]
