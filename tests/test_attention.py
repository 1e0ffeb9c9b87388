"""Fused attention (limn.attention, chapter 12) held to torch's scaled_dot_product_attention and to the composed form,
forward and backward, on the numpy and c devices: causal and not, key masks, ragged tiles, rectangular keys."""
import itertools
import numpy as np
import pytest
import torch
import limn
import limn.attention
from limn import Tensor, grad, use_device, realize
from limn.ops import toposort
from limn.attention import attention, composed_attention, sdpa_forward, sdpa_bwd_q, sdpa_bwd_kv

SHAPES = [((1, 2, 8, 8), (1, 2, 8, 8)),           # square, one tile
          ((2, 3, 37, 16), (2, 3, 150, 16)),      # rectangular, ragged: 150 keys = 2 tiles of 64 and a tail of 22
          ((1, 1, 70, 4), (1, 1, 65, 4)),         # more queries than keys, a 1-key tail
          ((2, 5, 32), (2, 5, 32))]               # one batch dim only, 5 tokens


def seeded(shapes, dtype, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(dtype) for s in shapes]


def key_mask(shape, seed=1):
    rng = np.random.default_rng(seed)
    mask = (rng.random(shape) < 0.7).astype(np.float32)
    mask[..., 0] = 1                                    # every query row sees at least key 0 (causal included)
    return mask


def torch_reference(qa, ka, va, causal, mask, seed):
    q, k, v = (torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in (qa, ka, va))
    allowed = torch.ones(qa.shape[-2], ka.shape[-2], dtype=torch.bool)
    if causal: allowed = allowed.tril()
    if mask is not None: allowed = allowed & torch.tensor(mask != 0)[..., None, :]
    o = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    o.backward(torch.tensor(seed, dtype=torch.float64))
    return [x.detach().numpy() for x in (o, q.grad, k.grad, v.grad)]


def limn_run(device, qa, ka, va, causal, mask, seed, fused=None):
    with use_device(device):
        q, k, v = (Tensor(a, requires_grad=True) for a in (qa, ka, va))
        o = q.attention(k, v, causal=causal, key_mask=None if mask is None else Tensor(mask), fused=fused)
        outs = (o,) + grad((o * Tensor(seed.astype(qa.dtype))).sum(), [q, k, v])
        realize(*outs)
        return [t.numpy() for t in outs]


@pytest.mark.parametrize("device", ["numpy", "c"])
@pytest.mark.parametrize("shapes", SHAPES, ids=lambda s: "x".join(map(str, s[0])) + "_" + str(s[1][-2]))
@pytest.mark.parametrize("causal,masked", list(itertools.product([False, True], [False, True])))
def test_fused_against_torch(device, shapes, causal, masked):
    qs, ks = shapes
    qa, ka, va = seeded([qs, ks, ks[:-1] + (ks[-1] // 2 or 1,)], np.float64)
    mask = key_mask(ks[:-1]) if masked else None
    seed = np.cos(np.arange(np.prod(qs[:-1]) * va.shape[-1])).reshape(qs[:-1] + (va.shape[-1],))
    want = torch_reference(qa, ka, va, causal, mask, seed)
    got = limn_run(device, qa, ka, va, causal, mask, seed)
    for name, a, b in zip("o dq dk dv".split(), got, want):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-10, err_msg=f"{name} on {device}")
    got32 = limn_run(device, *(x.astype(np.float32) for x in (qa, ka, va)), causal, mask, seed)
    for name, a, b in zip("o dq dk dv".split(), got32, want):
        np.testing.assert_allclose(a, b, rtol=2e-4, atol=2e-4, err_msg=f"{name} float32 on {device}")


@pytest.mark.parametrize("device", ["numpy", "c", "interpreter"])
def test_composed_as_a_model_writes_it_equals_attention(device):
    qa, ka, va = seeded([(2, 3, 9, 8), (2, 3, 9, 8), (2, 3, 9, 8)], np.float32, seed=3)
    with use_device(device):
        q, k, v = Tensor(qa), Tensor(ka), Tensor(va)
        scale = 8 ** -0.5
        s = q @ k.transpose(-1, -2) * scale
        s = limn.where(Tensor(np.tril(np.ones((9, 9), np.float32))), s, -np.inf)
        by_hand = (s.softmax(-1) @ v).numpy()
        fused = q.attention(k, v, causal=True).numpy()
    np.testing.assert_allclose(fused, by_hand, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("device", ["numpy", "c"])
def test_key_mask_equals_slicing_the_keys_away(device):
    qa, ka, va = seeded([(2, 6, 4), (2, 11, 4), (2, 11, 5)], np.float64, seed=4)
    keep = np.array([1, 1, 0, 1, 0, 0, 1, 1, 0, 1, 1], np.float64)
    for causal in (False, True):
        with use_device(device):
            masked = Tensor(qa).attention(Tensor(ka), Tensor(va), key_mask=Tensor(keep)).numpy()
            sliced = Tensor(qa).attention(Tensor(ka[:, keep == 1]), Tensor(va[:, keep == 1])).numpy()
        np.testing.assert_allclose(masked, sliced, rtol=1e-12, atol=1e-12)


def test_backward_graph_holds_no_tq_by_tk_node():
    qa, ka, va = seeded([(2, 3, 13, 8), (2, 3, 21, 8), (2, 3, 21, 8)], np.float32)
    with use_device("numpy"):
        for fused in (True, False):
            q, k, v = (Tensor(a, requires_grad=True) for a in (qa, ka, va))
            gs = grad((q.attention(k, v, causal=True, key_mask=Tensor(key_mask((21,))), fused=fused) ** 2).sum(), [q, k, v])
            nodes = toposort([g.node for g in gs])
            pairs = [n for n in nodes if len(n.shape) >= 2 and {n.shape[-2], n.shape[-1]} == {13, 21}]
            assert bool(pairs) != fused, (fused, pairs[:3])
            if fused: assert sum(n.op is limn.Ops.CUSTOM for n in nodes) >= 3


def test_c_kernels_are_deterministic_and_flat():
    qa, ka, va = seeded([(1, 6, 300, 32)] * 3, np.float32, seed=5)
    seed = np.cos(np.arange(qa.size)).reshape(qa.shape)
    first = limn_run("c", qa, ka, va, True, None, seed)
    second = limn_run("c", qa, ka, va, True, None, seed)
    for a, b in zip(first, second): assert np.array_equal(a, b)
    with use_device("c") as d:
        q, k, v = (Tensor(a, requires_grad=True) for a in (qa, ka, va))
        o = q.attention(k, v, causal=True)
        outs = (o,) + grad(o.sum(), [q, k, v])
        realize(*outs)
        (plan,) = d.executor.plans.values()
        biggest = max(ref.numel for ref in plan.schedule.buffers)
    assert biggest <= 6 * 300 * 32, f"a buffer of {biggest} elements: the step holds something t_q by t_k"


def test_reference_tiles_do_not_change_the_answer():
    qa, ka, va = seeded([(3, 10, 4), (3, 29, 4), (3, 29, 6)], np.float64, seed=6)
    mask = key_mask((3, 29))
    ref = sdpa_forward(qa, ka, va, mask, causal=True, scale=0.3, masked=True, tile=64)
    do, D = seeded([(3, 10, 6)], np.float64, seed=7)[0], None
    D = (do * ref[0]).sum(-1)
    bq = sdpa_bwd_q(qa, ka, va, mask, do, ref[1], D, causal=True, scale=0.3, masked=True, tile=64)
    bkv = sdpa_bwd_kv(qa, ka, va, mask, do, ref[1], D, causal=True, scale=0.3, masked=True, tile=64)
    for tile in (1, 3, 7, 28, 29):
        for a, b in zip(ref + bq + bkv, sdpa_forward(qa, ka, va, mask, causal=True, scale=0.3, masked=True, tile=tile)
                        + sdpa_bwd_q(qa, ka, va, mask, do, ref[1], D, causal=True, scale=0.3, masked=True, tile=tile)
                        + sdpa_bwd_kv(qa, ka, va, mask, do, ref[1], D, causal=True, scale=0.3, masked=True, tile=tile)):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("device", ["numpy", "c"])
def test_a_row_that_sees_no_key_is_zero_with_zero_gradient(device):
    qa, ka, va = seeded([(1, 3, 4), (1, 5, 4), (1, 5, 4)], np.float64)
    mask = np.zeros((1, 5))
    with use_device(device):
        q, k, v = (Tensor(a, requires_grad=True) for a in (qa, ka, va))
        o = q.attention(k, v, key_mask=Tensor(mask))
        outs = (o,) + grad(o.sum(), [q, k, v])
        realize(*outs)
        for t in outs: assert np.array_equal(t.numpy(), np.zeros(t.shape))


def test_second_derivative_uses_the_composed_backward():
    qa, ka, va = seeded([(2, 5, 4), (2, 7, 4), (2, 7, 4)], np.float64, seed=8)
    with use_device("numpy"):
        q, k = Tensor(qa, requires_grad=True), Tensor(ka, requires_grad=True)
        dq, dk = grad(q.attention(k, Tensor(va), causal=True).sum(), [q, k], create_graph=True)
        ddq, ddk = grad((dq * dq).sum() + (dk * dk).sum(), [q, k])
    tq, tk = torch.tensor(qa, requires_grad=True), torch.tensor(ka, requires_grad=True)
    o = torch.nn.functional.scaled_dot_product_attention(tq, tk, torch.tensor(va), is_causal=True)
    tdq, tdk = torch.autograd.grad(o.sum(), [tq, tk], create_graph=True)
    want = torch.autograd.grad((tdq * tdq).sum() + (tdk * tdk).sum(), [tq, tk])
    np.testing.assert_allclose(ddq.numpy(), want[0].numpy(), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(ddk.numpy(), want[1].numpy(), rtol=1e-8, atol=1e-10)


def test_batch_dims_broadcast_and_gradients_sum_back():
    qa, ka, va = seeded([(2, 3, 5, 4), (1, 3, 6, 4), (3, 6, 4)], np.float64, seed=9)
    with use_device("numpy"):
        q, k, v = (Tensor(a, requires_grad=True) for a in (qa, ka, va))
        o = q.attention(k, v)
        gs = grad(o.sum(), [q, k, v])
    tq, tk, tv = (torch.tensor(a, requires_grad=True) for a in (qa, ka, va))
    to = torch.nn.functional.scaled_dot_product_attention(tq, tk.expand(2, 3, 6, 4), tv.expand(2, 3, 6, 4))
    want = torch.autograd.grad(to.sum(), [tq, tk, tv])
    np.testing.assert_allclose(o.numpy(), to.detach().numpy(), rtol=1e-10)
    for a, b in zip(gs, want): np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-9, atol=1e-12)


def test_bad_operands_are_refused_where_they_are_made():
    q = Tensor(np.zeros((2, 3, 4), np.float32))
    with pytest.raises(ValueError, match="width"): q.attention(Tensor(np.zeros((2, 3, 5), np.float32)), q)
    with pytest.raises(ValueError, match="one value per key"): q.attention(q, Tensor(np.zeros((2, 4, 4), np.float32)))
    with pytest.raises(ValueError, match="key_mask"): q.attention(q, q, key_mask=Tensor(np.ones((2, 4), np.float32)))
    with pytest.raises(TypeError, match="float"): Tensor(np.zeros((2, 3), np.int32)).attention(q, q)
    with pytest.raises(ValueError, match="at least 2 dims"): q.attention(Tensor(np.zeros(4, np.float32)), q)
    with pytest.raises(ValueError, match="registers no 'sdpa'"):
        with use_device("interpreter"): q.attention(q, q, fused=True)


@pytest.mark.parametrize("dtype,tol", [(limn.float16, 1e-2), (limn.bfloat16, 6e-2)], ids=["float16", "bfloat16"])
def test_half_widths_on_the_numpy_device(dtype, tol):
    qa, ka, va = seeded([(2, 9, 8), (2, 21, 8), (2, 21, 8)], np.float64, seed=10)
    seed = np.cos(np.arange(2 * 9 * 8)).reshape(2, 9, 8)
    want = torch_reference(qa, ka, va, True, None, seed)
    with use_device("numpy"):
        q, k, v = (Tensor(a.astype(np.float32), dtype=dtype, requires_grad=True) for a in (qa, ka, va))
        o = q.attention(k, v, causal=True)
        outs = (o,) + grad((o * Tensor(seed.astype(np.float32), dtype=dtype)).sum(), [q, k, v])
        assert o.dtype is dtype and all(g.dtype is dtype for g in outs[1:])
        realize(*outs)
        for t, w in zip(outs, want): np.testing.assert_allclose(t.numpy().astype(np.float64), w, rtol=tol, atol=tol)


def test_a_description_that_could_reach_unshown_memory_is_refused():
    "check_described refuses raw subscripts, buffer names, writes to counters, unbalanced braces, unscoped indices and a nested threaded loop."
    from limn.attention import Buf, Described, For, Line, Sym, render_described, line, C_SDPA_NESTS, touches
    n, i, j = Sym("n"), Sym("i"), Sym("j")
    x = Buf("x", (n,), "out")
    def one(text, threads=False, **refs):
        return Described("bad", (x,), (n,), (), [For(i, 0, n, [For(j, 0, n, [line(text, **refs)], threads=threads)])])
    cases = [(one("x[i] = 0;"), "subscript"), (one("*(x + i) = 0;"), "names buffer"), (one("{a} = 0; i += 1;", a=x[i]), "assigns"),
             (one("{a} = 0; } {", a=x[i]), "unbalanced"), (one("{a} = 0;", a=Buf("x", (n,), "out")[Sym("k")]), "outside their scope"),
             (one("{a} = 0;", threads=True, a=x[i]), "threaded loop"), (one("{a} = 0; {b} = 1;", a=x[i]), "placeholders"),
             (one("int64_t *p = &i; {a} = 0;", a=x[i]), "address"), (one("T *p = &{a};", a=x[i]), "address of an access")]
    for desc, words in cases:
        with pytest.raises(ValueError, match=words): render_described(desc)
    kinds = [t.kind for t in touches(one("{a}++; ++{a}; {a} <<= 1; {a} == 0 ? {a} : 1;", a=x[i]))]
    assert kinds == ["update", "update", "update", "load", "load"]
    assert all(t.ref.buf.name in {b.name for b in desc.bufs} | {"kt", "vt", "qt", "dot", "s", "pr", "dp", "p", "ds", "m", "l", "acc", "acc2", "lsum", "vtile", "acc_k", "acc_v"}
               for desc in C_SDPA_NESTS.values() for t in touches(desc))


def test_the_c_builder_holds_every_buffer_to_its_described_shape():
    "A launch whose buffer sizes disagree with the description's shapes at its sizes is refused before any C runs."
    from limn.attention import C_SDPA_BUILDERS
    from limn.ops import float32
    q, k = ((1, 4, 8), float32), ((1, 6, 8), float32)
    with pytest.raises(ValueError, match="mask has 5 elements"):
        C_SDPA_BUILDERS["sdpa"](None, [q, k, k, ((1, 5), float32)], {"masked": True})
    with pytest.raises(ValueError, match="takes 7 inputs"):
        C_SDPA_BUILDERS["sdpa_bwd_q"](None, [q, k, k], {"masked": False})
    with pytest.raises(ValueError, match="L has 3 elements"):
        C_SDPA_BUILDERS["sdpa_bwd_kv"](None, [q, k, k, ((1, 4, 8), float32), ((1, 3), float32), ((1, 4), float32)], {"masked": False})


def padding_mask(batch, tk, seed=11):
    rng = np.random.default_rng(seed)
    lengths = rng.integers(1, tk + 1, size=batch)
    lengths[0] = max(1, tk - 2)
    return (np.arange(tk)[None, :] < lengths[:, None]).astype(np.float32)


@pytest.mark.parametrize("device", ["numpy", "c"])
@pytest.mark.parametrize("fused", [None, False])
@pytest.mark.parametrize("shape", [(3, 3, 5, 4), (2, 4, 6, 8), (4, 2, 7, 4)], ids=lambda s: "x".join(map(str, s)))
def test_a_padding_mask_b_tk_is_per_batch_entry_as_torch_attn_mask(device, fused, shape):
    B, H, T, d = shape
    tk = T + 2
    qa, ka, va, ga = seeded([shape, (B, H, tk, d), (B, H, tk, d), shape], np.float64, seed=12)
    pad = padding_mask(B, tk)
    tq, tkk, tv = (torch.tensor(a, requires_grad=True) for a in (qa, ka, va))
    to = torch.nn.functional.scaled_dot_product_attention(tq, tkk, tv, attn_mask=torch.tensor(pad != 0)[:, None, None, :])
    want = [to.detach().numpy()] + [t.numpy() for t in torch.autograd.grad(to, [tq, tkk, tv], torch.tensor(ga))]
    for mask in (pad, pad[:, None, None, :], pad[:, None, :], pad.astype(np.int32)):
        with use_device(device):
            q, k, v = (Tensor(a, requires_grad=True) for a in (qa, ka, va))
            o = q.attention(k, v, key_mask=Tensor(mask), fused=fused)
            outs = (o,) + grad((o * Tensor(ga)).sum(), [q, k, v])
            realize(*outs)
            got = [t.numpy() for t in outs]
        for name, a, b in zip("o dq dk dv".split(), got, want):
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12, err_msg=f"{name} with key_mask {mask.shape}")


@pytest.mark.parametrize("bad", [(3, 6), (2, 4, 6), (2, 3, 5, 6), (1, 2, 3, 6), (7,), (2, 6, 1)])
def test_a_key_mask_of_an_ambiguous_or_wrong_shape_raises_naming_the_accepted_ones(bad):
    q = Tensor(np.zeros((2, 3, 5, 4)))
    k = Tensor(np.zeros((2, 3, 6, 4)))
    with pytest.raises(ValueError, match=r"key_mask.*accepted"):
        q.attention(k, k, key_mask=Tensor(np.ones(bad)))


def test_every_accepted_key_mask_shape_gives_the_full_mask_answer():
    qa, ka, va = seeded([(2, 3, 4, 4), (2, 3, 5, 4), (2, 3, 5, 4)], np.float64, seed=13)
    full = key_mask((2, 3, 5), seed=14)
    with use_device("numpy"):
        q, k, v = Tensor(qa), Tensor(ka), Tensor(va)
        ref = q.attention(k, v, key_mask=Tensor(full)).numpy()
        per_key = full[0, 0]
        shared = np.broadcast_to(per_key, full.shape)
        want_shared = q.attention(k, v, key_mask=Tensor(np.ascontiguousarray(shared))).numpy()
        np.testing.assert_allclose(q.attention(k, v, key_mask=Tensor(per_key)).numpy(), want_shared, rtol=1e-12)
        np.testing.assert_allclose(q.attention(k, v, key_mask=Tensor(per_key[None])).numpy(), want_shared, rtol=1e-12)
        np.testing.assert_allclose(q.attention(k, v, key_mask=Tensor(full[:, :, None, :])).numpy(), ref, rtol=1e-12)


def test_fused_backward_is_templated(monkeypatch):
    """The fused attention's backward is a named rule over (q, k, v, L), so a repeated step rebuilds it from its
    template (chapter 02) instead of walking the tape again: the second backward records nothing new, and both give the
    bits of a plain walk's gradients."""
    from limn import autograd
    rng = np.random.default_rng(3)
    arrays = [rng.standard_normal((2, 3, 16, 8)).astype(np.float32) for _ in range(3)]
    def grads():
        q, k, v = (Tensor(a).requires_grad_() for a in arrays)
        o = q.attention(k, v, causal=True)
        (o * o).sum().backward()
        return [t.grad.numpy() for t in (q, k, v)]
    with use_device("c"):
        autograd._TEMPLATES.clear()
        first = grads()
        recorded = len(autograd._TEMPLATES)
        second = grads()
        assert recorded == 1 == len(autograd._TEMPLATES)
        monkeypatch.setattr(autograd, "_tape_key", lambda *args: None)      # every rule applied afresh
        plain = grads()
    for a, b, c in zip(first, second, plain):
        assert a.tobytes() == b.tobytes() == c.tobytes()


def test_the_float32_kernels_exp_is_within_one_ulp():
    """limn_sdpa_expf, the exponential of the float32 attention kernels, from the compiled attention library itself: within
    1 ulp of float64 exp over the normal float32 range (4 million points and the edges), and 0 at minus infinity."""
    import ctypes
    from limn.attention import _c_function
    with use_device("c"):
        backend = limn.get_device().backend
        _c_function(backend, limn.float32, "limn_sdpa_fwd", 6)          # the library every c attention test builds
        fn = backend.sdpa_libraries["float32"].limn_sdpa_expf_many
    fn.argtypes, fn.restype = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64], None
    edges = np.array([-np.inf, 0.0, -0.0, 1e-30, -1e-30, 88.72, -87.33, -103.9, 1.0, -1.0], np.float32)
    x = np.concatenate([np.linspace(-110, 88.72, 4_000_001, dtype=np.float32), edges])
    y = np.empty_like(x)
    fn(x.ctypes.data, y.ctypes.data, x.size)
    want = np.exp(x.astype(np.float64))
    normal = (want >= np.finfo(np.float32).tiny) & (want <= np.finfo(np.float32).max)
    ulps = np.abs(y[normal] - want[normal]) / np.spacing(want[normal].astype(np.float32)).astype(np.float64)
    assert ulps.max() <= 1.0, f"{ulps.max():.2f} ulp at x = {x[normal][ulps.argmax()]}"
    assert np.abs(y[~normal] - want[~normal]).max() <= np.finfo(np.float32).smallest_subnormal   # subnormal results
    assert y[-len(edges)] == 0.0 and y[-len(edges) + 1] == 1.0


@pytest.mark.parametrize("width", [32, 16])          # the library built for d = 32 and the general one
def test_c_kernels_on_one_thread_give_the_threaded_bits(width):
    """Each thread owns whole query (or key) rows, so the fused kernels' results do not depend on how many threads run
    them: one OpenMP thread and two give the same bits, from the same compiled libraries."""
    import ctypes, ctypes.util
    gomp = ctypes.CDLL(ctypes.util.find_library("gomp") or "libgomp.so.1")
    qa, ka, va = seeded([(1, 6, 300, width)] * 3, np.float32, seed=6)
    seed = np.sin(np.arange(qa.size)).reshape(qa.shape)
    before = gomp.omp_get_max_threads()
    try:
        gomp.omp_set_num_threads(2)
        threaded = limn_run("c", qa, ka, va, True, key_mask((1, 1, 300)), seed)
        gomp.omp_set_num_threads(1)
        assert gomp.omp_get_max_threads() == 1
        serial = limn_run("c", qa, ka, va, True, key_mask((1, 1, 300)), seed)
    finally:
        gomp.omp_set_num_threads(before)
    for a, b in zip(threaded, serial): assert np.array_equal(a, b)
