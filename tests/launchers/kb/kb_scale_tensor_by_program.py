import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, scale_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    scale = tl.load(scale_ptr + pid)
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x * scale, mask=mask)


class ModelNew(nn.Module):
    """One bug: the scale is read at scale_ptr + pid, past its one element for every program but the first.
    Multiplies a tensor by a scale held in a one-element tensor, read once per program."""
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, x: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
        out = torch.empty_like(x)
        n_elements = x.numel()
        grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)
        scale_kernel[grid](x, scale, out, n_elements, BLOCK_SIZE=1024)
        return out


batch_size = 16
dim = 4096


def get_inputs():
    x = torch.randn(batch_size, dim)
    scale = torch.randn(1)
    return [x, scale]


def get_init_inputs():
    return []
