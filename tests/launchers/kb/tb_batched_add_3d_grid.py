"""A batched elementwise add over [B, M, N] tensors on a 3-D grid: program_id(0) picks the batch, program_id(1) and
program_id(2) a BLOCK_M x BLOCK_N tile of it; every stride passed from the tensors, every access masked in M and N."""
import torch
import triton
import triton.language as tl


@triton.jit
def batched_add_kernel(x_ptr, y_ptr, out_ptr, M, N,
                       stride_xb, stride_xm, stride_xn,
                       stride_yb, stride_ym, stride_yn,
                       stride_ob, stride_om, stride_on,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_b = tl.program_id(0)
    pid_m = tl.program_id(1)
    pid_n = tl.program_id(2)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    x = tl.load(x_ptr + pid_b * stride_xb + offs_m[:, None] * stride_xm + offs_n[None, :] * stride_xn, mask=mask)
    y = tl.load(y_ptr + pid_b * stride_yb + offs_m[:, None] * stride_ym + offs_n[None, :] * stride_yn, mask=mask)
    tl.store(out_ptr + pid_b * stride_ob + offs_m[:, None] * stride_om + offs_n[None, :] * stride_on, x + y, mask=mask)


def batched_add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    assert x.shape == y.shape and x.dim() == 3
    B, M, N = x.shape
    out = torch.empty_like(x)
    BLOCK_M, BLOCK_N = 32, 64
    grid = (B, triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    batched_add_kernel[grid](x, y, out, M, N,
                             x.stride(0), x.stride(1), x.stride(2),
                             y.stride(0), y.stride(1), y.stride(2),
                             out.stride(0), out.stride(1), out.stride(2),
                             BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


if __name__ == "__main__":
    x = torch.randn(4, 100, 300, device="cuda")
    y = torch.randn(4, 100, 300, device="cuda")
    torch.testing.assert_close(batched_add(x, y), x + y)
