import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def cross_entropy_mean_kernel(logits_ptr, target_ptr, loss_ptr, n_rows, n_classes, stride_row,
                              BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_classes
    logits = tl.load(logits_ptr + row * stride_row + cols, mask=mask, other=-float("inf")).to(tl.float32)
    target = tl.load(target_ptr + row)
    lse = tl.log(tl.sum(tl.exp(logits), axis=0))
    target_logit = tl.load(logits_ptr + row * stride_row + target).to(tl.float32)
    # each row adds its share of the mean
    tl.atomic_add(loss_ptr, (lse - target_logit) / n_rows)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, predictions, targets):
        predictions = predictions.contiguous()
        n_rows, n_classes = predictions.shape
        loss = torch.zeros(1, device=predictions.device, dtype=torch.float32)
        BLOCK_SIZE = triton.next_power_of_2(n_classes)
        cross_entropy_mean_kernel[(n_rows,)](predictions, targets, loss, n_rows, n_classes, predictions.stride(0),
                                             BLOCK_SIZE=BLOCK_SIZE)
        return loss[0]


batch_size = 256
num_classes = 10
input_shape = (num_classes,)
dim = 1


def get_inputs():
    return [torch.randn(batch_size, *input_shape), torch.randint(0, num_classes, (batch_size,))]


def get_init_inputs():
    return []
