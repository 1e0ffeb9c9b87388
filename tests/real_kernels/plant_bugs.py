"""The planted-bug siblings of the real-kernel suite, each the correct file with ONE edit.

`BUGS` lists, per buggy case: the correct case it comes from, the family (litmus's corpus labels), the one code edit
(old text -> new text, which must occur exactly once in the correct file), why ordinary testing misses it, and the
answer key (dims and inputs that expose it). `python tests/real_kernels/plant_bugs.py` rewrites every buggy file from
its correct sibling; tests/test_real_kernels.py checks that each buggy file is exactly that rewrite, so a sibling never
drifts from its correct kernel by more than the one planted edit."""
from __future__ import annotations
import json, sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

# case: (correct case, family, (old, new), why, answer_key)
BUGS = {
    "liger_swiglu_mask": ("liger_swiglu", "mask_leak", ("mask = col_offsets < n_cols", "mask = col_offsets <= n_cols"),
        "off-by-one mask: lane n_cols is live, so the last row reads and writes one element past the tensor",
        {"dims": {"M": 4, "N": 1000}, "seed": 0, "observable": "oob_write"}),
    "liger_geglu_nostoremask": ("liger_geglu", "mask_leak",
        ("tl.store(c + col_offsets, c_row, mask=mask)", "tl.store(c + col_offsets, c_row)"),
        "the store is unmasked: the BLOCK_SIZE - n_cols tail lanes write past the row (past the tensor on the last row)",
        {"dims": {"M": 4, "N": 1000}, "seed": 0, "observable": "oob_write"}),
    "liger_softmax_nomaxsub": ("liger_softmax", "no_max_subtract", ("e = tl.exp(x - m)", "e = tl.exp(x)"),
        "torch.rand() inputs never overflow exp; inputs above ~88 do",
        {"dims": {"M": 4, "N": 300}, "inputs": {"X_ptr": {"dist": "uniform", "low": 100.0, "high": 1000.0}},
         "seed": 0, "observable": "numeric"}),
    "liger_layernorm_varmask": ("liger_layernorm", "mask_leak",
        ("X_centered_masked = tl.where(mask, X_centered, 0.0)", "X_centered_masked = X_centered"),
        "the variance sums the BLOCK_SIZE - n_cols masked lanes too (each (0 - mean)^2); invisible at n_cols = 2^k",
        {"dims": {"M": 4, "N": 600}, "inputs": {"X_ptr": {"dist": "uniform", "low": 5.0, "high": 10.0}},
         "seed": 0, "observable": "numeric"}),
    "liger_rmsnorm_blockdiv": ("liger_rmsnorm", "mask_leak",
        ("mean_square = tl.sum(X_row * X_row, axis=0) / n_cols", "mean_square = tl.sum(X_row * X_row, axis=0) / BLOCK_SIZE"),
        "the mean square divides by the padded BLOCK_SIZE, not n_cols; the same at n_cols = 2^k",
        {"dims": {"M": 4, "N": 600}, "seed": 0, "observable": "numeric"}),
    "liger_dyt_mask": ("liger_dyt", "mask_leak", ("mask = col < N", "mask = col <= N"),
        "off-by-one mask: column N is live, one element past each row (past the tensor on the last row)",
        {"dims": {"M": 4, "N": 3000}, "seed": 0, "observable": "oob_write"}),
    "liger_dyt_autotuned_mask": ("liger_dyt_autotuned", "mask_leak", ("mask = col < N", "mask = col <= N"),
        "off-by-one mask: column N is live, one element past each row (past the tensor on the last row)",
        {"dims": {"M": 4, "N": 3000}, "seed": 0, "observable": "oob_write"}),
    "fg_softmax_zeroinit": ("fg_softmax", "reduction_init",
        ('m = tl.full([TILE_N], value=float("-inf"), dtype=tl.float32)', "m = tl.full([TILE_N], value=0.0, dtype=tl.float32)"),
        "the running max starts at 0: harmless for rows with a non-negative entry, 0/0 for an all very negative row",
        {"dims": {"M": 4, "N": 300}, "inputs": {"input_ptr": {"dist": "uniform", "low": -1000.0, "high": -200.0}},
         "seed": 0, "observable": "numeric"}),
    "fg_mean_dim_other1": ("fg_mean_dim", "reduction_init",
        ("tl.load(input_ptr + inp_offsets, mask=mask, other=0)", "tl.load(input_ptr + inp_offsets, mask=mask, other=1)"),
        "masked lanes load 1, not the identity of the sum: each padded lane adds 1/N; invisible when TILE_N divides N",
        {"dims": {"M": 4, "N": 1000}, "seed": 0, "observable": "numeric"}),
    "fg_argmax_zeroinit": ("fg_argmax", "reduction_init", ("max_values = min_value", "max_values = 0.0"),
        "the running maximum starts at 0: right for rows with a positive entry (torch.rand), index 0 for negative rows",
        {"dims": {"M": 4, "N": 1000}, "inputs": {"inp": {"dist": "uniform", "low": -1000.0, "high": -1.0}},
         "seed": 0, "observable": "numeric"}),
    "fg_l2norm_stride": ("fg_l2norm", "stride", ("X = X + pid * N", "X = X + pid * BLOCK_N"),
        "rows are BLOCK_N apart, not N: right only when N == BLOCK_N",
        {"dims": {"M": 10, "N": 1000}, "seed": 0, "observable": "numeric"}),
    "fg_vdot_race": ("fg_vdot", "race", ("tl.atomic_add(out_ptr, out)", "tl.store(out_ptr, out)"),
        "each program stores its partial sum over out[0] instead of adding it: right with one program only",
        {"dims": {"N": 3000}, "seed": 0, "observable": "numeric"}),
    "fg_transpose_mask": ("fg_transpose", "mask_leak", ("mask = (i64 < N) & (j64 < M)", "mask = (i64 < N) & (j64 < N)"),
        "the column bound uses the wrong dim: right for square inputs only",
        {"dims": {"M": 70, "N": 45}, "seed": 0, "observable": "numeric"}),
    "fg_index_select_stride": ("fg_index_select", "stride",
        ("out_off = rows_offsets * index_len + cols_offsets[None, :]", "out_off = rows_offsets * N + cols_offsets[None, :]"),
        "output rows are N apart instead of index_len: right only when the index is as long as the row",
        {"dims": {"M": 6, "N": 300, "L": 100}, "seed": 0, "observable": "oob_write"}),
    "fg_dot_mask": ("fg_dot", "mask_leak", ("mask = offsets < N", "mask = offsets <= N"),
        "off-by-one mask: element N is read past both vectors",
        {"dims": {"N": 3000}, "seed": 0, "observable": "numeric"}),
    "fg_addmm_stride": ("fg_addmm", "stride",
        ("c_ptrs = c_ptr + stride_cm * offs_cm[:, None]", "c_ptrs = c_ptr + stride_am * offs_cm[:, None]"),
        "output rows are written at A's row stride (K) instead of C's (N): right only when K == N",
        {"dims": {"M": 72, "N": 100, "K": 80}, "seed": 0, "observable": "numeric"}),
    "liger_cross_entropy_zeroinit": ("liger_cross_entropy", "reduction_init",
        ('m = float("-inf")  # m is the max value', "m = 0.0  # m is the max value"),
        "the running max starts at 0: harmless when a row has a non-negative logit, log(0) for an all very negative row",
        {"dims": {"M": 4, "N": 1000}, "inputs": {"X_ptr": {"dist": "uniform", "low": -1000.0, "high": -200.0}},
         "seed": 0, "observable": "numeric"}),
    "tut_logsumexp_exp2_nomaxsub": ("tut_logsumexp_exp2", "no_max_subtract", ("m = tl.max(x, axis=0)", "m = 0.0"),
        "no max shift: exact for moderate inputs, exp2 overflows to inf for inputs above ~88",
        {"dims": {"M": 4, "N": 300}, "inputs": {"x_ptr": {"dist": "uniform", "low": 100.0, "high": 1000.0}},
         "seed": 0, "observable": "numeric"}),
    "tut_l2normalize_fp16_fp16acc": ("tut_l2normalize_fp16", "dtype_promotion",
        ("x = tl.load(x_ptr + row * row_stride + cols, mask=mask, other=0.0).to(tl.float32)",
         "x = tl.load(x_ptr + row * row_stride + cols, mask=mask, other=0.0)"),
        "the sum of squares is taken in float16: fine for small rows of small values, inf past 65504",
        {"dims": {"M": 4, "N": 1000}, "inputs": {"x_ptr": {"dist": "uniform", "low": 8.0, "high": 10.0}},
         "seed": 0, "observable": "numeric"}),
    "tut_stencil_leftmask": ("tut_stencil", "mask_leak",
        ("mask=(offs >= 1) & (offs < n), other=0.0)", "mask=offs < n, other=0.0)"),
        "the left neighbour's read is not masked at j = 0: it reads x[-1], one element before the tensor",
        {"dims": {"N": 1000}, "seed": 0, "observable": "numeric"}),
    "tut_vadd_nomask": ("tut_vadd", "mask_leak",
        ("tl.store(output_ptr + offsets, output, mask=mask)", "tl.store(output_ptr + offsets, output)"),
        "the store is unmasked: harmless when BLOCK_SIZE divides n_elements, writes past the tensor otherwise",
        {"dims": {"N": 3000}, "seed": 0, "observable": "oob_write"}),
    "tut_softmax_nomaxsub": ("tut_softmax", "no_max_subtract", ("numerator = tl.exp(row_minus_max)", "numerator = tl.exp(row)"),
        "torch.rand() inputs never overflow exp; inputs above ~88 do",
        {"dims": {"M": 4, "N": 300}, "inputs": {"input_ptr": {"dist": "uniform", "low": 100.0, "high": 1000.0}},
         "seed": 0, "observable": "numeric"}),
    "tut_matmul_leaky_fp16acc": ("tut_matmul_leaky", "dtype_promotion",
        ("accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)",
         "accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float16)"),
        "a float16 accumulator: fine for short K and small values, loses digits as the partial sums grow",
        {"dims": {"M": 32, "N": 32, "K": 4000}, "inputs": {"a_ptr": {"dist": "uniform", "low": 0.0, "high": 4.0},
         "b_ptr": {"dist": "uniform", "low": 0.0, "high": 4.0}}, "seed": 0, "observable": "numeric"}),
    "tut_layernorm_varmask": ("tut_layernorm", "mask_leak", ("x = tl.where(cols < N, x - mean, 0.0)", "x = x - mean"),
        "the variance sums the masked tail lanes too (each (0 - mean)^2); invisible when BLOCK_SIZE divides N",
        {"dims": {"M": 4, "N": 1000}, "inputs": {"X": {"dist": "uniform", "low": 5.0, "high": 10.0}},
         "seed": 0, "observable": "numeric"}),
    "tut_rmsnorm_stride": ("tut_rmsnorm", "stride",
        ("x_ptr + row * x_row_stride + cols", "x_ptr + row * n_cols + cols"),
        "rows are read n_cols apart instead of at the row stride: right only for an unpadded input",
        {"dims": {"M": 4, "N": 1000, "P": 3}, "seed": 0, "observable": "numeric"}),
    "tut_online_softmax_zeroinit": ("tut_online_softmax", "reduction_init", ('m = -float("inf")', "m = 0.0"),
        "the running max starts at 0: harmless for rows with a non-negative entry, 0/0 for an all very negative row",
        {"dims": {"M": 4, "N": 300}, "inputs": {"x_ptr": {"dist": "uniform", "low": -1000.0, "high": -200.0}},
         "seed": 0, "observable": "numeric"}),
    "tut_rowmean_fp16_fp16acc": ("tut_rowmean_fp16", "dtype_promotion",
        ("acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)", "acc = tl.zeros([BLOCK_SIZE], dtype=tl.float16)"),
        "a float16 running sum: fine for short rows, loses digits once the lane sums reach the hundreds",
        {"dims": {"M": 4, "N": 4000}, "inputs": {"x_ptr": {"dist": "uniform", "low": 50.0, "high": 100.0}},
         "seed": 0, "observable": "numeric"}),
    "tut_cumsum_mask": ("tut_cumsum", "mask_leak", ("mask = cols < n_cols", "mask = cols <= n_cols"),
        "off-by-one mask: lane n_cols is live, one element past each row (past the tensor on the last row)",
        {"dims": {"M": 4, "N": 1000}, "seed": 0, "observable": "oob_write"}),
    "tut_splitk_matmul_race": ("tut_splitk_matmul", "race", ("tl.atomic_add(", "tl.store("),
        "each K slice stores its partial tile over C instead of adding it: right with SPLIT_K = 1 only",
        {"dims": {"M": 40, "N": 24, "K": 200}, "seed": 0, "observable": "numeric"}),
    "tut_cross_entropy_nomaxsub": ("tut_cross_entropy", "no_max_subtract",
        ("lse = m + tl.log(tl.sum(tl.exp(x - m), axis=0))", "lse = tl.log(tl.sum(tl.exp(x), axis=0))"),
        "torch.randn() logits never overflow exp; logits above ~88 do",
        {"dims": {"M": 4, "N": 1000}, "inputs": {"logits_ptr": {"dist": "uniform", "low": 100.0, "high": 1000.0}},
         "seed": 0, "observable": "numeric"}),
}


def _replace_once(text: str, old: str, new: str, where: str) -> str:
    if text.count(old) != 1:
        raise ValueError(f"{where}: {old!r} occurs {text.count(old)} times; a planted edit must match exactly once")
    return text.replace(old, new)


def planted(case: str) -> str:
    "The buggy file's text: the correct sibling with its one code edit, its label, why and answer key."
    from report import kernel_file
    correct_case, family, (old, new), why, key = BUGS[case]
    path = kernel_file(correct_case)
    text = path.read_text()
    code, literal = text.split("\nLITMUS = {", 1)
    code = _replace_once(code, old, new, f"{case}: code")
    doc_end = code.index('"""', 3)
    code = code[:doc_end].replace("(correct)", f"(PLANTED BUG, {family}: `{old}` -> `{new}`)", 1) + code[doc_end:]
    literal = _replace_once(literal, '"label": "correct",', f'"label": "{family}",', f"{case}: LITMUS")
    literal = _replace_once(literal, literal.split('"why": ', 1)[1].split("\n", 1)[0], json.dumps(why) + ",", f"{case}: LITMUS")
    literal = _replace_once(literal, '"answer_key": None,', f'"sibling": "{correct_case}",\n    "answer_key": {json.dumps(key)},',
                            f"{case}: LITMUS")
    return code + "\nLITMUS = {" + literal


def target(case: str) -> Path:
    return HERE / case / kernel_file_name(case)


def kernel_file_name(case: str) -> str:
    from report import kernel_file
    return kernel_file(BUGS[case][0]).name


def main():
    sys.path.insert(0, str(HERE))
    for case in BUGS:
        path = target(case)
        path.parent.mkdir(exist_ok=True)
        path.write_text(planted(case))
        print("wrote", path.relative_to(HERE))


if __name__ == "__main__":
    main()
