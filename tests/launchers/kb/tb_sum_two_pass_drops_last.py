"""One bug: the second pass masks its partials with `offsets < n_partials - 1`, so the last block is dropped.
A full sum of a tensor in two launches, as a TritonBench operator file writes it: the first kernel sums one block
per program into a buffer of partial sums, the second (one program) sums the partials into a one-element output."""
import torch
import triton
import triton.language as tl


@triton.jit
def partial_sum_kernel(x_ptr, partial_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    tl.store(partial_ptr + pid, tl.sum(x, axis=0))


@triton.jit
def final_sum_kernel(partial_ptr, out_ptr, n_partials, BLOCK_SIZE: tl.constexpr):
    offsets = tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_partials - 1
    partials = tl.load(partial_ptr + offsets, mask=mask, other=0.0)
    tl.store(out_ptr, tl.sum(partials, axis=0))


def triton_sum(x: torch.Tensor) -> torch.Tensor:
    x = x.contiguous().view(-1)
    n_elements = x.numel()
    BLOCK_SIZE = 1024
    n_partials = triton.cdiv(n_elements, BLOCK_SIZE)
    partial = torch.empty(n_partials, device=x.device, dtype=torch.float32)
    out = torch.empty(1, device=x.device, dtype=torch.float32)
    partial_sum_kernel[(n_partials,)](x, partial, n_elements, BLOCK_SIZE=BLOCK_SIZE)
    final_sum_kernel[(1,)](partial, out, n_partials, BLOCK_SIZE=triton.next_power_of_2(n_partials))
    return out


def test_sum():
    x = torch.randn(1 << 20, device="cuda")
    torch.testing.assert_close(triton_sum(x)[0], x.sum(), rtol=1e-4, atol=1e-3)


if __name__ == "__main__":
    test_sum()
