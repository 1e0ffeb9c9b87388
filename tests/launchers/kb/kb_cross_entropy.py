import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def cross_entropy_kernel(logits_ptr, target_ptr, loss_ptr, n_classes, stride_row, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_classes
    logits = tl.load(logits_ptr + row * stride_row + cols, mask=mask, other=-float("inf"))
    target = tl.load(target_ptr + row)
    m = tl.max(logits, axis=0)
    lse = m + tl.log(tl.sum(tl.exp(logits - m), axis=0))
    target_logit = tl.load(logits_ptr + row * stride_row + target)
    tl.store(loss_ptr + row, lse - target_logit)


def cross_entropy(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    n_rows, n_classes = logits.shape
    loss = torch.empty(n_rows, device=logits.device, dtype=torch.float32)
    BLOCK_SIZE = triton.next_power_of_2(n_classes)
    cross_entropy_kernel[(n_rows,)](logits, targets, loss, n_classes, logits.stride(0), BLOCK_SIZE=BLOCK_SIZE)
    return loss


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, predictions, targets):
        return cross_entropy(predictions, targets)


batch_size = 128
num_classes = 10


def get_inputs():
    return [torch.randn(batch_size, num_classes), torch.randint(0, num_classes, (batch_size,))]


def get_init_inputs():
    return []
