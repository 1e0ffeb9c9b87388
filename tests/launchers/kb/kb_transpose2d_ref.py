import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x.t().contiguous()


M = 1000
N = 777


def get_inputs():
    return [torch.randn(M, N)]


def get_init_inputs():
    return []
