import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, value: float = -1.0):
        super().__init__()
        self.value = value

    def forward(self, x, mask):
        return x.masked_fill(mask, self.value)


batch_size = 32
dim = 4096


def get_inputs():
    x = torch.randn(batch_size, dim)
    mask = torch.rand(batch_size, dim) > 0.5
    return [x, mask]


def get_init_inputs():
    return [-1.0]
