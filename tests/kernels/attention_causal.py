"""A causal flash-attention forward written with pointer arithmetic (correct): a 2-D launch over query tiles and
batch-heads, a key loop whose trip count grows with the program id, and a head size passed as a constexpr equal to a
dim (D = E). Test-only."""
import triton
import triton.language as tl

@triton.jit
def attention_causal(Q, K, V, Out, N_CTX, sm_scale, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, D: tl.constexpr):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    base = off_hz * N_CTX * D
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, D)
    q = tl.load(Q + base + offs_m[:, None] * D + offs_d[None, :], mask=offs_m[:, None] < N_CTX, other=0.0)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, D], dtype=tl.float32)
    for start_n in range(0, (start_m + 1) * BLOCK_M, BLOCK_N):
        cols = start_n + offs_n
        k = tl.load(K + base + cols[None, :] * D + offs_d[:, None], mask=cols[None, :] < N_CTX, other=0.0)
        qk = tl.dot(q, k) * sm_scale
        qk = tl.where(offs_m[:, None] >= cols[None, :], qk, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.exp(qk - m_new[:, None])
        alpha = tl.exp(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(V + base + cols[:, None] * D + offs_d[None, :], mask=cols[:, None] < N_CTX, other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p, v)
        m_i = m_new
    acc = acc / l_i[:, None]
    tl.store(Out + base + offs_m[:, None] * D + offs_d[None, :], acc, mask=offs_m[:, None] < N_CTX)

LITMUS = {
    "label": "correct", "why": "test-only", "dims": {"BH": 4, "T": 100, "E": 16},
    "args": [
        {"name": "Q", "kind": "tensor", "dtype": "float32", "shape": ["BH", "T", "E"], "role": "in"},
        {"name": "K", "kind": "tensor", "dtype": "float32", "shape": ["BH", "T", "E"], "role": "in"},
        {"name": "V", "kind": "tensor", "dtype": "float32", "shape": ["BH", "T", "E"], "role": "in"},
        {"name": "Out", "kind": "tensor", "dtype": "float32", "shape": ["BH", "T", "E"], "role": "out"},
        {"name": "N_CTX", "kind": "scalar", "value": "T"},
        {"name": "sm_scale", "kind": "scalar", "value": 0.25},
        {"name": "BLOCK_M", "kind": "constexpr", "value": "32"},
        {"name": "BLOCK_N", "kind": "constexpr", "value": "32"},
        {"name": "D", "kind": "constexpr", "value": "E"},
    ],
    "grid": ["cdiv(T, BLOCK_M)", "BH"], "spec": None, "domain": {}, "answer_key": None,
}

def reference(q, k, v):
    return q
