import torch
import triton
import triton.language as tl


@triton.jit
def _load_chunk(X, row, stride, start, N, BLOCK: tl.constexpr):
    cols = start + tl.arange(0, BLOCK)
    return tl.load(X + row * stride + cols, mask=cols < N, other=0.0).to(tl.float32)


@triton.jit
def row_sum_kernel(X, Y, stride, N, BLOCK: tl.constexpr, NUM_CHUNKS: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    # the chunk count is known at compile time: the loop is unrolled
    for c in tl.static_range(NUM_CHUNKS):
        acc += _load_chunk(X, row, stride, c * BLOCK, N, BLOCK)
    tl.store(Y + row, tl.sum(acc, axis=0))


def row_sum(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    y = torch.empty(M, device=x.device, dtype=torch.float32)
    BLOCK = 256
    NUM_CHUNKS = N // BLOCK
    row_sum_kernel[(M,)](x, y, x.stride(0), N, BLOCK=BLOCK, NUM_CHUNKS=NUM_CHUNKS)
    return y


##################################################################################################################################################


def test_row_sum():
    x = torch.randn(17, 1000, device='cuda')
    return {'test_case_1': row_sum(x)}
