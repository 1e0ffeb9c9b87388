import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B, bias):
        return torch.relu(torch.matmul(A, B) + bias)


M = 256
K = 300
N = 200


def get_inputs():
    return [torch.randn(M, K), torch.randn(K, N), torch.randn(N)]


def get_init_inputs():
    return []
