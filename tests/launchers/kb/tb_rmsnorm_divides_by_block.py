import torch
import triton
import triton.language as tl


@triton.jit
def _rms_norm_fwd(x_ptr, w_ptr, y_ptr, x_row_stride, y_row_stride, n_cols, eps, BLOCK_SIZE: tl.constexpr):
    row_idx = tl.program_id(0)
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols
    x = tl.load(x_ptr + row_idx * x_row_stride + col_offsets, mask=mask, other=0.0)
    w = tl.load(w_ptr + col_offsets, mask=mask, other=0.0)
    mean_sq = tl.sum(x * x, axis=0) / BLOCK_SIZE
    rstd = tl.rsqrt(mean_sq + eps)
    y = x * rstd * w
    tl.store(y_ptr + row_idx * y_row_stride + col_offsets, y, mask=mask)


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    BLOCK_SIZE = triton.next_power_of_2(n_cols)
    _rms_norm_fwd[(n_rows,)](x, weight, y, x.stride(0), y.stride(0), n_cols, eps, BLOCK_SIZE=BLOCK_SIZE)
    return y


def torch_rms_norm(x, weight, eps=1e-6):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight


if __name__ == "__main__":
    x = torch.randn(16, 1000, device="cuda")
    w = torch.randn(1000, device="cuda")
    print(torch.allclose(rms_norm(x, w), torch_rms_norm(x, w), atol=1e-5))
