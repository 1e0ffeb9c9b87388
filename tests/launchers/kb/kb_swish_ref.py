import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.sigmoid(x)


batch_size = 16
dim = 16384


def get_inputs():
    x = torch.randn(batch_size, dim).cuda().half()
    return [x]


def get_init_inputs():
    return []
