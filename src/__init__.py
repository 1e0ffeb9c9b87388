"""A deep learning framework built to be read, and a verifier for GPU kernels

Modules:

- `src.litmus.kernels.cumsum`: Row prefix sum (inclusive cumsum), one program per row, the whole row in one BLOCK = next_pow2(N) tile (correct).
- `src.litmus.kernels.cumsum_stride`: Row prefix sum that addresses the input rows with n_cols instead of the row stride (planted bug: stride).
- `src.litmus.kernels.histogram`: Histogram of bin indices: each program counts its tile into hist with tl.atomic_add (correct).
- `src.litmus.kernels.histogram_race`: Histogram whose counters are bumped with a plain load and store (planted bug: race).
- `src.litmus.kernels.layernorm`: Row layernorm, one program per row, the whole row in one tile (correct).
- `src.litmus.kernels.logsumexp`: Row logsumexp, one program per row, the whole row in one BLOCK = next_pow2(N) tile (correct).
- `src.litmus.kernels.logsumexp_nomaxsub`: Row logsumexp computed as log(sum(exp(x))) without the max shift (planted bug: no_max_subtract).
- `src.litmus.kernels.matmul_fp16acc`: Tiled matmul with a float16 accumulator (planted bug: dtype_promotion).
- `src.litmus.kernels.matmul_nomask_k`: Tiled matmul whose K-loop loads are masked on M and N but not on K (planted bug: mask_leak).
- `src.litmus.kernels.matmul_stride`: Tiled matmul that steps through the rows of B by N instead of by its row stride (planted bug: stride).
- `src.litmus.kernels.rowmax_zeroinit`: Row maximum whose per-lane accumulator starts at 0.0 (planted bug: reduction_init).
- `src.litmus.kernels.rowmean_mixed`: Row mean of a float16 tensor with a float32 accumulator and a float16 result (correct).
- `src.litmus.kernels.rowmean_mixed_fp16acc`: Row mean of a float16 tensor accumulated in float16 (planted bug: dtype_promotion).
- `src.litmus.kernels.rowsum_fp16acc`: Chunked row sum with a float16 accumulator (planted bug: dtype_promotion).
- `src.litmus.kernels.rowsum_nomask`: Chunked row sum whose loads are not masked (planted bug: mask_leak).
- `src.litmus.kernels.rowsum_race`: Row sum split over a 2-D grid, each program adding its chunk into out[row] with a plain load and store (planted bug: race).
- `src.litmus.kernels.softmax`: Row softmax, one program per row, the whole row in one BLOCK = next_pow2(N) tile (correct).
- `src.litmus.kernels.softmax_barrier`: Row softmax with a barrier that only even rows reach (planted bug: race, a divergent barrier).
- `src.litmus.kernels.softmax_nomask`: Row softmax that loads the whole BLOCK without a mask (planted bug: mask_leak).
- `src.litmus.kernels.softmax_nomaxsub`: Row softmax without the max shift (planted bug: no_max_subtract).
- `src.litmus.kernels.softmax_online`: Row softmax in BLOCK-wide chunks with a running maximum (the online softmax; correct).
- `src.litmus.kernels.softmax_online_nomaxsub`: Chunked row softmax that sums exp(x) without any shift (planted bug: no_max_subtract).
- `src.litmus.kernels.softmax_online_zeroinit`: Online row softmax whose running maximum starts at 0.0 instead of -inf (planted bug: reduction_init).
- `src.litmus.kernels.softmax_stride`: Row softmax that addresses the input rows with n_cols instead of the row stride (planted bug: stride).
- `src.litmus.kernels.softmax_zero_other`: Row softmax whose masked lanes load 0.0 instead of -inf (planted bug: reduction_init).
- `src.litmus.kernels.sum_atomic`: Sum of a vector: each program reduces its tile and adds it into out[0] with tl.atomic_add (correct).
- `src.litmus.kernels.sum_race`: Sum of a vector where each program adds its tile into out[0] with a plain load and store (planted bug: race).
- `src.litmus.kernels.vadd_nomask`: Vector add with the tail tile unmasked (planted bug: mask_leak, an out-of-bounds write past the tensor)."""
