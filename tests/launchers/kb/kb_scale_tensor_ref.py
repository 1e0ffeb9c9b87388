import torch
import torch.nn as nn


class Model(nn.Module):
    """Multiplies a tensor by a scale held in a one-element tensor."""
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
        return x * scale


batch_size = 16
dim = 4096


def get_inputs():
    x = torch.randn(batch_size, dim)
    scale = torch.randn(1)
    return [x, scale]


def get_init_inputs():
    return []
