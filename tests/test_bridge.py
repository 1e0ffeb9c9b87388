"""litmus.bridge held to limn's own interpreter: every kernel of the graph corpus, an MLP and a GPT training step and the
benchmarks is proved in bounds and, where the C backend threads it, race-free (attention's CUSTOM kernels through their
descriptions, for every size); mutants of real kernels and of the attention descriptions are each rejected with a witness
that limn's interpreter or the walked loops confirm; and the certified tolerances hold while a reordered or float16 fold breaks them."""
import math, sys, pathlib
from dataclasses import replace
import numpy as np
import pytest
sys.path.insert(0, str(pathlib.Path(__file__).parent))
from graph_corpus import CORPUS
from limn import Tensor
from limn.schedule import schedule
from limn.codegen import lower_schedule, Loop, Load, Store, Accum, Idx, Index, Var, Div, Mod, Check, Fold, Acc
from litmus.bridge import verify, verify_kernel, edit_kernel, stretch_loop, read_nest

pytest.importorskip("z3")


def kernels_of(*tensors):
    return lower_schedule(schedule([t.node for t in tensors])).kernels


def test_corpus_and_mlp_step_all_proved(capsys):
    proved = total = general = 0
    for case in CORPUS:
        report = verify(case.build())
        assert report.ok, f"{case.name}:\n{report}"
        total += len(report.kernels); proved += report.counts()['proved']; general += sum(k.every_size for k in report.kernels)
    from limn.nn import Linear, mse_loss
    from limn.optim import AdamW
    from limn import set_seed
    set_seed(0)
    layers = [Linear(8, 16), Linear(16, 4)]
    params = [p for l in layers for p in l.parameters()]
    x, y = Tensor(np.random.default_rng(0).standard_normal((5, 8)).astype(np.float32)), Tensor(np.zeros((5, 4), np.float32))
    loss = mse_loss(layers[1](layers[0](x).relu()), y)
    loss.backward()
    report = verify([*AdamW(params, lr=1e-2).updates(), loss])    # exactly what opt.step(loss) realizes
    assert report.ok, str(report)
    total += len(report.kernels); proved += report.counts()['proved']; general += sum(k.every_size for k in report.kernels)
    with capsys.disabled(): print(f"\nlitmus.bridge: {proved} of {total} kernels proved (corpus + MLP step), {general} of them for every size")
    assert proved == total and total > 300


def test_a_gpt_training_step_all_proved(capsys):
    "One step of examples/train_stories.py's byte GPT (1 layer, tiny), forward, backward and AdamW, as one realize, its attention kernels included."
    import importlib.util
    from limn import nn, set_seed
    from limn.optim import AdamW
    spec = importlib.util.spec_from_file_location("train_stories", pathlib.Path(__file__).parents[1] / "examples" / "train_stories.py")
    stories = importlib.util.module_from_spec(spec); spec.loader.exec_module(stories)
    set_seed(0)
    model = stories.GPT(256, 8, 16, 1, 2)
    ids = np.random.default_rng(0).integers(0, 256, (2, 9)).astype(np.int32)
    loss = nn.cross_entropy(model(Tensor(ids[:, :-1])).flatten(0, 1), Tensor(ids[:, 1:]).flatten())
    loss.backward()
    report = verify([*AdamW(model.named_parameters(), lr=1e-3).updates(), loss])
    counts = report.counts()
    with capsys.disabled(): print(f"\nlitmus.bridge: GPT step {counts}, {sum(k.every_size for k in report.kernels)} for every size")
    custom = [k for k in report.kernels if k.header.startswith("CUSTOM")]
    with capsys.disabled(): print(f"litmus.bridge: GPT step's {len(custom)} attention kernels proved by their descriptions: {all(k.every_size for k in custom)}")
    assert report.ok and custom and all(k.every_size for k in custom), str(report)


# --- real kernels to break --------------------------------------------------------------------------------------------
def first(kernel, cls, where=lambda ins: True):
    return next(pc for pc, ins in enumerate(kernel.instrs) if isinstance(ins, cls) and where(ins))


def bumped(ins, by):
    return replace(ins, index=ins.index + by)


rng = np.random.default_rng(0)
A, B = Tensor(rng.standard_normal((3, 4)).astype(np.float32)), Tensor(rng.standard_normal((4, 5)).astype(np.float32))
MATMUL, RELU = kernels_of((A @ B).relu())
TRANSPOSE = kernels_of(A.T + 1)[0]                                  # out[i0*3 + i1] = in0[i1*4 + i0], loop (4, 3)
PAD = kernels_of(A.pad(((1, 1), (2, 0))) * 2)[0]
ROWS = Tensor(np.array([4, 0, 2, 2], np.int32))
GATHER = kernels_of(Tensor(rng.standard_normal((5, 3)).astype(np.float32)).gather(ROWS) * 3)[0]
SCATTER = kernels_of(Tensor(rng.standard_normal((4, 3)).astype(np.float32)).scatter_rows(ROWS, 5))[0]
RESHAPE = kernels_of(Tensor(rng.standard_normal((4, 6)).astype(np.float32)).T.reshape(3, 8) + 1)[0]
SUMROWS = kernels_of(A.sum(1))[0]
COLUMNS = kernels_of(A.sum(0))[0]                                  # reduce rows around a kept column loop, threaded in chunks
LANED = kernels_of(Tensor(rng.standard_normal((3, 40)).astype(np.float32)).sum(1))[0]   # 16 partial totals (chapter 06)


def _mutants():
    "name -> (mutated kernel, the property its witness must break). Each edits the IR of a real kernel above."
    m, i1 = {}, Var("i1", 8)
    ld, st = first(MATMUL, Load), first(MATMUL, Store)
    m["matmul: A's load one past"] = (edit_kernel(MATMUL, {ld: bumped(MATMUL.instrs[ld], 1)}), 'in-bounds')
    ld_b = first(MATMUL, Load, lambda i: i.buf == "in1")
    m["matmul: B's load one before"] = (edit_kernel(MATMUL, {ld_b: bumped(MATMUL.instrs[ld_b], -1)}), 'in-bounds')
    m["matmul: the fill one past"] = (edit_kernel(MATMUL, {st: bumped(MATMUL.instrs[st], 1)}), 'in-bounds')
    acc = first(MATMUL, Accum)
    m["matmul: the accumulate one past"] = (edit_kernel(MATMUL, {acc: bumped(MATMUL.instrs[acc], 1)}), 'in-bounds')
    m["matmul: the reduce loop one too long"] = (stretch_loop(MATMUL, first(MATMUL, Loop, lambda i: i.reduce)), 'in-bounds')
    m["relu: the row loop one too long"] = (stretch_loop(RELU, 0), 'in-bounds')
    m["relu: the column loop one too long"] = (stretch_loop(RELU, 1), 'in-bounds')
    st = first(RELU, Store)
    m["relu: threads write one shared row"] = (edit_kernel(RELU, {st: replace(RELU.instrs[st], index=Index.of(Var("i1", 5)))}), 'disjoint')
    m["relu: the row stride one too small"] = (edit_kernel(RELU, {st: replace(RELU.instrs[st], index=Index.of(Var("i0", 3)) * 4 + Var("i1", 5))}), 'disjoint')
    ld = first(TRANSPOSE, Load)
    m["transpose: the strides swapped"] = (edit_kernel(TRANSPOSE, {ld: replace(TRANSPOSE.instrs[ld], index=Index.of(Var("i0", 4)) * 4 + Var("i1", 3))}), 'in-bounds')
    ld = first(PAD, Load); pad = PAD.instrs[ld]
    m["pad: the mask removed"] = (edit_kernel(PAD, {ld: replace(pad, valid=())}), 'in-bounds')
    m["pad: the row mask one too wide"] = (edit_kernel(PAD, {ld: replace(pad, valid=(replace(pad.valid[0], hi=pad.valid[0].hi + 1), pad.valid[1]))}), 'in-bounds')
    m["pad: the column mask starting one early"] = (edit_kernel(PAD, {ld: replace(pad, valid=(pad.valid[0], replace(pad.valid[1], lo=pad.valid[1].lo - 1)))}), 'in-bounds')
    m["pad: the row check dropped"] = (edit_kernel(PAD, {ld: replace(pad, valid=pad.valid[1:])}), 'in-bounds')
    ix = first(GATHER, Idx)
    m["gather: a row past the table let through"] = (edit_kernel(GATHER, {ix: replace(GATHER.instrs[ix], dst=Var("x0", 6))}), 'in-bounds')
    st = first(GATHER, Store)
    m["gather: the result stored into the index buffer"] = (edit_kernel(GATHER, {st: replace(GATHER.instrs[st], buf="in1")}), 'in-bounds')
    m["scatter: the zero fill one row too long"] = (stretch_loop(SCATTER, 0), 'in-bounds')
    acc = first(SCATTER, Accum)
    m["scatter: the row stride one too large"] = (edit_kernel(SCATTER, {acc: replace(SCATTER.instrs[acc], index=Index.of(Var("x0", 5)) * 4 + Var("i1", 3))}), 'in-bounds')
    ld = first(RESHAPE, Load)
    m["reshape: the modulus one too large"] = (edit_kernel(RESHAPE, {ld: replace(RESHAPE.instrs[ld], index=Index.of(Var("i0", 3)) * 2 + (Index.of(i1) % 5) * 6 + Index.of(i1) // 4)}), 'in-bounds')
    m["reshape: the divisor halved"] = (edit_kernel(RESHAPE, {ld: replace(RESHAPE.instrs[ld], index=Index.of(Var("i0", 3)) * 2 + (Index.of(i1) % 4) * 6 + Index.of(i1) // 2)}), 'in-bounds')
    st = first(SUMROWS, Store)
    m["row sums: every thread stores its total to out[0]"] = (edit_kernel(SUMROWS, {st: replace(SUMROWS.instrs[st], index=Index())}), 'disjoint')
    acc = first(COLUMNS, Accum)
    m["column sums: every column thread accumulates into out[0]"] = (edit_kernel(COLUMNS, {acc: replace(COLUMNS.instrs[acc], index=Index())}), 'disjoint')
    fold = first(LANED, Fold, lambda i: i.lane is not None)
    m["laned sum: a term folded one lane on"] = (edit_kernel(LANED, {fold: replace(LANED.instrs[fold], lane=LANED.instrs[fold].lane + 1)}), 'in-bounds')
    return m


MUTANTS = _mutants()


def confirm(kernel, verdict):
    "The witness is real: the mutated instruction's own index, evaluated by limn at the named counters, breaks the property."
    ins = kernel.instrs[verdict.pc]
    if isinstance(ins, Fold):                                  # a lane of a laned accumulator: its register array
        lanes = next(i.lanes for i in kernel.instrs if isinstance(i, Acc) and i.dst == ins.acc)
        assert not 0 <= ins.lane.eval(verdict.witness) < lanes, verdict
        return
    numel = dict((n, r.numel) for n, r in kernel.args)[ins.buf]
    if verdict.prop == 'in-bounds':
        assert all(c.holds(verdict.witness) for c in getattr(ins, 'valid', ())), verdict
        assert not 0 <= ins.index.eval(verdict.witness) < numel, verdict
    else:
        a = {k[:-2]: v for k, v in verdict.witness.items() if k.endswith('_a')}
        b = {k[:-2]: v for k, v in verdict.witness.items() if k.endswith('_b')}
        others = [i for i in kernel.instrs if isinstance(i, (Load, Store, Accum)) and i.buf == ins.buf]
        assert any(ins.index.eval(a) == o.index.eval(b) for o in others if set(v.name for v in o.index.variables()) <= set(b)), verdict
        threaded = [t.replace("'", "") for ts in read_nest(kernel).threaded.values() for t in ts]
        assert any(a.get(t) != b.get(t) for t in threaded if t in a), verdict


def test_twenty_mutants_each_rejected_with_a_real_witness(capsys):
    assert len(MUTANTS) >= 20
    caught = 0
    for name, (kernel, prop) in MUTANTS.items():
        report = verify_kernel(kernel)
        hits = [v for v in report.verdicts if v.status == 'witness' and v.prop == prop]
        assert report.status == 'witness' and hits, f"{name} not caught:\n{report}"
        for v in hits: confirm(kernel, v)
        caught += 1
    with capsys.disabled(): print(f"\nlitmus.bridge: {caught} of {len(MUTANTS)} mutants rejected with a confirmed witness")


def test_the_unmutated_kernels_are_proved():
    for k in (MATMUL, RELU, TRANSPOSE, PAD, GATHER, SCATTER, RESHAPE, SUMROWS):
        assert verify_kernel(k).status == 'proved', str(verify_kernel(k))


def test_bad_input_is_named():
    with pytest.raises(TypeError, match="Tensors or Nodes"): verify(np.zeros(3))
    with pytest.raises(ValueError, match="at least one"): verify()
    with pytest.raises(ValueError, match="not a LOOP"): stretch_loop(RELU, first(RELU, Store))
    with pytest.raises(ValueError, match="names buffer"): verify_kernel(edit_kernel(RELU, {first(RELU, Store): replace(RELU.instrs[first(RELU, Store)], buf="nowhere")}))


# --- certified tolerances ----------------------------------------------------------------------------------------------
from limn import use_device
from litmus.bridge import certified_tolerance, reduction_spec, sink_tolerance


def _on(device, build):
    with use_device(device): return build().numpy().astype(np.float64)


@pytest.mark.parametrize("shape", [(8, 1024), (3, 4096)])
def test_row_sums_stay_under_the_certified_tolerance_and_half_precision_breaks_it(shape):
    x = np.random.default_rng(1).random(shape).astype(np.float32)
    build = lambda: Tensor(x).sum(1)
    kernel = kernels_of(build())[0]
    assert reduction_spec(kernel)[:2] == ("sum(x)", {"N": shape[1]})
    bound = certified_tolerance(kernel, {"in0": x})
    assert bound.certified
    c, ref = _on("c", build), _on("numpy", build)
    exact = x.astype(np.float64).sum(1)
    assert np.abs(c - ref).max() <= bound.pairwise and np.abs(c - exact).max() <= bound.total
    half = np.zeros(shape[0], np.float16)
    for j in range(shape[1]): half = (half + x[:, j].astype(np.float16)).astype(np.float16)
    assert np.abs(half.astype(np.float64) - ref).max() > bound.pairwise      # a float16 accumulator is caught


def test_matmul_stays_under_its_certified_tolerance():
    rng = np.random.default_rng(2)
    a, b = rng.uniform(-1, 1, (16, 512)).astype(np.float32), rng.uniform(-1, 1, (512, 8)).astype(np.float32)
    build = lambda: Tensor(a) @ Tensor(b)
    kernel = kernels_of(build())[0]
    assert reduction_spec(kernel)[:2] == ("matmul(a, b)", {"K": 512})
    bound = certified_tolerance(kernel, {"in0": a, "in1": b})
    exact = a.astype(np.float64) @ b.astype(np.float64)
    assert bound.certified and np.abs(_on("c", build) - exact).max() <= bound.total
    assert np.abs(_on("c", build) - _on("numpy", build)).max() <= bound.pairwise
    half = np.zeros((16, 8), np.float16)                                          # a float16 accumulator, k by k
    for k in range(512): half = (half + (a[:, k:k + 1] * b[k:k + 1, :]).astype(np.float16)).astype(np.float16)
    assert np.abs(half.astype(np.float64) - exact).max() > bound.total


def test_tolerance_refuses_what_it_cannot_name():
    assert certified_tolerance(RELU, {}) is None                                  # not a reduction
    with pytest.raises(ValueError, match="needs the arrays"): certified_tolerance(SUMROWS, {})


def test_lifted_accesses_are_the_ir_at_the_recorded_sizes():
    "Every access of the corpus that lift_access makes size-symbolic has the IR's offset and element count at the recorded sizes."
    from itertools import product
    from litmus.tritonsource import evaluate_poly
    from litmus.bridge import lift_access
    lifted = 0
    for case in CORPUS[::7]:
        for kernel in kernels_of(*case.build()):
            nest = read_nest(kernel)
            for access in nest.model.accesses:
                if (got := lift_access(nest, access)) is None: continue
                model, general = got
                shape = dict(kernel.args)[access.tensor].shape
                sizes = {n: nest.model.symbols[n[2:]].hi.value() + 1 for n in model.symbols if n.startswith("N_")}
                sizes |= {n: shape[int(n[2:])] for n in model.symbols if n.startswith("M_")}
                assert evaluate_poly(model.tensors[general.tensor].shape[0], sizes) == dict(kernel.args)[access.tensor].numel
                names = sorted(access.offset.symbols())
                for values in product(*[range(nest.model.symbols[n].hi.value() + 1) for n in names]):
                    env = dict(zip(names, values))
                    assert evaluate_poly(general.offset, env | sizes) == evaluate_poly(access.offset, env)
                lifted += 1
    assert lifted > 20


def test_the_benchmark_kernels_are_proved(capsys):
    "examples/bench_matmul.py's kernels at its sizes: the matmuls and the 3x3 conv over a padded 8x16x128x128 image."
    rng = np.random.default_rng(0)
    sinks = [Tensor(rng.standard_normal((n, n)).astype(np.float32)) @ Tensor(rng.standard_normal((n, n)).astype(np.float32))
             for n in (256, 512, 1024)]
    X, K = Tensor(np.zeros((8, 16, 128, 128), np.float32)), Tensor(np.ones((3, 3), np.float32))
    xp = X.pad(((0, 0), (0, 0), (1, 1), (1, 1)))
    sinks.append(sum(xp[:, :, i:i + 128, j:j + 128] * K[i, j] for i in range(3) for j in range(3)))
    report = verify(sinks)
    assert report.ok, str(report)
    with capsys.disabled(): print(f"\nlitmus.bridge: benchmark kernels {report.counts()}, {sum(k.every_size for k in report.kernels)} for every size")


def test_corpus_reductions_on_the_c_device_stay_under_their_certified_tolerances(capsys, certified):
    """Every float32/float64 corpus sink written by a recognised reduction, each sink realized on its own (t.numpy()):
    c vs numpy within the certified pairwise bound (the bounds are the `certified` fixture's, computed once)."""
    from graph_corpus import tolerance
    checked = tighter = 0
    for case, bounds in certified.values():
        if not any(b is not None for b in bounds): continue
        with use_device("c"): got = [t.numpy() for t in case.build()]
        with use_device("numpy"): want = [t.numpy() for t in case.build()]
        rtol, atol = tolerance(case.dtype)
        for b, g, w in zip(bounds, got, want):
            if b is None: continue
            assert b.certified and np.abs(g.astype(np.float64) - w).max() <= b.pairwise, (case.name, b)
            checked += 1; tighter += b.pairwise <= atol + rtol * np.abs(w).max()
    with capsys.disabled(): print(f"\nlitmus.bridge: {checked} corpus reductions within their certified tolerance; {tighter} of the bounds tighter than the fixed 1e-5")
    assert checked >= 20


def test_a_custom_kernel_without_a_description_is_unknown_with_its_name():
    "A CUSTOM kernel whose c builder carries no description is reported unknown by name, never passed."
    from limn.device import register_custom, CUSTOM_KERNELS
    from limn.tensor import custom
    register_custom("c", "limn_test_opaque", lambda backend, inputs, params: None)
    try:
        x = Tensor(np.ones((4,), np.float32))
        (y,) = custom("limn_test_opaque", [x], [((4,), x.dtype)], {})
        report = verify(y + 1)
    finally: CUSTOM_KERNELS["c"].pop("limn_test_opaque")
    opaque = [k for k in report.kernels if k.status == 'unknown']
    assert len(opaque) == 1 and "CUSTOM kernel 'limn_test_opaque'" in opaque[0].unknown[0] and not report.ok


def test_attention_on_the_c_device_is_proved_for_every_size():
    "A causal attention forward and backward realized for the c device: its CUSTOM kernels are proved by their descriptions."
    import limn.attention
    from limn import grad
    with use_device("c"):
        q = Tensor(np.ones((1, 4, 8), np.float32), requires_grad=True)
        o = q.attention(q, q, causal=True)
        report = verify([o, *grad((o * o).sum(), [q])])
    custom = [k for k in report.kernels if k.header.startswith("CUSTOM")]
    assert report.ok and len(custom) >= 2 and all(k.every_size for k in custom), str(report)


SIZES = {"batch", "tq", "tk", "d", "dv", "causal"}

def _attention_mutants():
    "(name, mutated description, the property its witness must break): each a one-place change to a real kernel."
    from limn.attention import C_SDPA_NESTS, touches, Min, For, Let, Pick
    from litmus.bridge import move_access, edit_described
    fwd, bq, bkv = (C_SDPA_NESTS[k] for k in ("sdpa", "sdpa_bwd_q", "sdpa_bwd_kv"))
    def at(desc, buf, kind=None, nth=0):
        return [t for t in touches(desc) if t.ref.buf.name == buf and (kind is None or t.kind == kind)][nth]
    def moved(desc, buf, kind, shift, nth=0):
        t = at(desc, buf, kind, nth); return move_access(desc, t, *shift(*t.ref.index))
    def let(desc, name):
        for t in touches(desc):
            for s in t.scope:
                if isinstance(s, Let) and s.var.name == name: return s
    def loop(desc, name):
        return next(s for t in touches(desc) for s in t.scope if isinstance(s, For) and s.var.name == name)
    i1 = let(fwd, "i1")
    n_kv = let(bkv, "n")
    return [
        ("fwd: the tile copy reads k one row on", moved(fwd, "k", "load", lambda b, r, c: (b, r + 1, c)), 'in-bounds'),
        ("fwd: o zeroed one column on", moved(fwd, "o", "store", lambda b, i, c: (b, i, c + 1)), 'in-bounds'),
        ("fwd: L written at the row's offset in its block", moved(fwd, "L", "store", lambda b, i: (b, i - let(fwd, "i0").var)), 'disjoint'),
        ("fwd: the running max one slot on", moved(fwd, "m", "store", lambda r: (r + 1,)), 'in-bounds'),
        ("fwd: the key mask read one key on", moved(fwd, "mask", "load", lambda b, j: (b, j + 1)), 'in-bounds'),
        ("fwd: q read one row on", moved(fwd, "q", "load", lambda b, i, c: (b, i + 1, c)), 'in-bounds'),
        ("fwd: a block one row longer", edit_described(fwd, {id(i1): Let(i1.var, Min((i1.expr.args[0] + 1, i1.expr.args[1])))}), 'in-bounds'),
        ("fwd: causal rows stop one key late", edit_described(fwd, {id(let(fwd, "kend")): Let(let(fwd, "kend").var, Pick("causal", Min((let(fwd, "kend").expr.a.args[0] + 1, let(fwd, "i1").var)), let(fwd, "kend").expr.b))}), 'in-bounds'),
        ("bwd_q: dq written back into batch 0", moved(bq, "dq", "store", lambda b, i, c: (0, i, c), nth=1), 'disjoint'),
        ("bwd_q: the k tile stored untransposed", moved(bq, "kt", "store", lambda c, r: (r, c)), 'in-bounds'),
        ("bwd_q: D read one row on", moved(bq, "D", "load", lambda b, i: (b, i + 1)), 'in-bounds'),
        ("bwd_kv: dV written back at the query tile's end", moved(bkv, "dV", "store", lambda b, i, c: (b, loop(bkv, "j0").var + n_kv.var, c), nth=1), 'in-bounds'),
        ("bwd_kv: dk zeroed at the row's offset in its block", moved(bkv, "dk", "store", lambda b, i, c: (b, i - let(bkv, "i0").var, c)), 'disjoint'),
        ("bwd_kv: a query tile one row past tq", edit_described(bkv, {id(n_kv): Let(n_kv.var, Min((n_kv.expr.args[0], n_kv.expr.args[1] + 1)))}), 'in-bounds'),
        ("bwd_kv: dO read one column on", moved(bkv, "dO", "load", lambda b, r, c: (b, r, c + 1)), 'in-bounds'),
    ]


def test_attention_mutants_each_rejected_with_a_walked_witness(capsys):
    "Fifteen one-place mutants of the three attention descriptions: each has a witness, and walking its loops at the witness's sizes breaks too."
    from litmus.bridge import verify_described, walked_ok
    caught = 0
    for name, desc, prop in _attention_mutants():
        report = verify_described(desc)
        bad = [v for v in report.verdicts if v.status == 'witness' and v.prop == prop]
        assert bad, f"{name}: not caught\n{report}"
        sizes = {k: v for k, v in bad[0].witness.items() if k in SIZES}
        if prop == 'disjoint': sizes = {k[:-2]: v for k, v in bad[0].witness.items() if k[:-2] in SIZES} | sizes
        assert not walked_ok(desc, sizes), f"{name}: the witness {bad[0].witness} does not break the walked loops"
        caught += 1
    with capsys.disabled(): print(f"\nlitmus.bridge: {caught} attention mutants, all rejected with a witness the walked loops confirm")
    assert caught >= 15


def test_attention_proofs_agree_with_walking_the_loops():
    "At every small size, causal or not, the proved descriptions walk with every index in bounds and every written cell one thread's."
    from limn.attention import C_SDPA_NESTS
    from litmus.bridge import verify_described, walked_ok
    assert all(verify_described(desc).every_size for desc in C_SDPA_NESTS.values())
    for tq in (1, 2, 7, 8, 9, 16, 17):
        for tk in (1, 8, 63, 64, 65, 130):
            for causal in (0, 1):
                env = dict(batch=2, tq=tq, tk=tk, d=1 + tq % 3, dv=1 + tk % 2, causal=causal)
                assert all(walked_ok(desc, env) for desc in C_SDPA_NESTS.values()), env


def test_the_attention_benchmark_kernels_are_proved(capsys):
    "examples/bench_attention.py's kernels at T=256, fused and composed, forward and backward: every one proved."
    import importlib.util
    spec = importlib.util.spec_from_file_location("bench_attention", pathlib.Path(__file__).parents[1] / "examples" / "bench_attention.py")
    bench = importlib.util.module_from_spec(spec); spec.loader.exec_module(bench)
    report = bench.verify_kernels(256)
    custom = sum(k.header.startswith("CUSTOM") for k in report.kernels)
    with capsys.disabled(): print(f"\nlitmus.bridge: attention benchmark kernels {report.counts()} ({custom} CUSTOM), {sum(k.every_size for k in report.kernels)} for every size")
    assert report.ok and custom >= 3, str(report)


def _fold(values, dtype):
    "A sequential fold of `values` in `dtype`: the order a reordered (or narrowed) reduction would use."
    total = dtype(0)
    for v in values: total = dtype(total + dtype(v))
    return float(total)


@pytest.mark.parametrize("shape", [(8, 1024), (3, 4096), (5, 37)])
def test_the_ordered_bound_holds_per_output_on_random_rows(shape):
    "On random rows the c device is within the bound of its own fold order of the exact sums, and within the pairwise bound of numpy."
    from litmus.bridge import ordered_tolerance
    x = np.random.default_rng(3).standard_normal(shape).astype(np.float32)
    build = lambda: Tensor(x).sum(1)
    bound = ordered_tolerance(kernels_of(build())[0], {"in0": x})
    exact = x.astype(np.float64).sum(1)
    c, ref = _on("c", build), _on("numpy", build)
    assert np.all(np.abs(c - exact) <= bound.total_each) and np.all(np.abs(c - ref) <= bound.pairwise_each)
    assert bound.total < bound.any_order.total                    # the order makes it tighter than any-order


def test_a_reordered_or_half_precision_fold_breaks_the_ordered_bound():
    "A 1 followed by tiny terms: the c device's lanes stay under the ordered bound, a sequential float32 fold and a float16 fold do not."
    from litmus.bridge import ordered_tolerance
    for n in (1024, 4096):
        row = np.full((1, n), 2.0 ** -24, np.float32); row[0, 0] = 1
        build = lambda: Tensor(row).sum(1)
        bound = ordered_tolerance(kernels_of(build())[0], {"in0": row})
        exact = float(row.astype(np.float64).sum())
        assert abs(_on("c", build)[0] - exact) <= bound.total
        assert abs(_fold(row[0], np.float32) - exact) > bound.total, "a sequential fold passed the ordered bound"
        assert abs(_fold(row[0], np.float16) - exact) > bound.total, "a float16 fold passed the ordered bound"
        assert abs(_fold(row[0], np.float32) - exact) <= bound.any_order.total   # the any-order bound cannot see order


def test_the_ordered_bound_holds_on_a_matmul():
    "A float32 matmul on the c device: each output within gamma_depth * (|A| @ |B|) of the exact product, and of numpy within the pairwise bound."
    from litmus.bridge import ordered_tolerance
    rng = np.random.default_rng(4)
    a, b = rng.uniform(-1, 1, (8, 300)).astype(np.float32), rng.uniform(-1, 1, (300, 6)).astype(np.float32)
    build = lambda: Tensor(a) @ Tensor(b)
    bound = ordered_tolerance(kernels_of(build())[0], {"in0": a, "in1": b})
    magnitude = (np.abs(a).astype(np.float64) @ np.abs(b)).reshape(-1)
    exact = (a.astype(np.float64) @ b).reshape(-1)
    c, ref = _on("c", build).reshape(-1), _on("numpy", build).reshape(-1)
    assert bound.order["depth"] <= 301 and np.all(bound.total_each >= 0.99 * magnitude * bound.order["depth"] * 2.0 ** -24)
    assert np.all(np.abs(c - exact) <= bound.total_each) and np.all(np.abs(c - ref) <= bound.pairwise_each)


@pytest.mark.parametrize("shape", [(8, 1000), (4, 4096)])
def test_an_exp_sum_holds_its_libm_and_order_bound(shape):
    "A softmax denominator on the c device: within its ordered bound (the fold's rounding plus the c exp's stated 0.51 ulps a term) of the exact sum, and of numpy within the pairwise bound."
    from litmus.bridge import ordered_tolerance
    x = np.random.default_rng(6).uniform(-20, 5, shape).astype(np.float32)
    build = lambda: Tensor(x).exp().sum(1)
    kernel = kernels_of(build())[0]
    assert reduction_spec(kernel)[:2] == ("sum(exp(x))", {"N": shape[1]})
    bound = ordered_tolerance(kernel, {"in0": x})
    exact = np.array([math.fsum(row) for row in np.exp(x.astype(np.float64))])
    c, ref = _on("c", build), _on("numpy", build)
    assert np.all(np.abs(c - exact) <= bound.total_each) and np.all(np.abs(c - ref) <= bound.pairwise_each)
    assert bound.total < bound.any_order.total


def test_an_exp_read_through_a_narrowing_cast_or_a_c_exp_above_litmus_budget_is_not_certified(monkeypatch):
    "exp of a value rounded to float16 first is not `sum(exp(x))` of the input (the rounding moves exp's argument); and a c exp stated above litmus's libm budget is refused, naming both."
    import limn, limn.backend_c
    from litmus.bridge import ordered_tolerance
    x = np.random.default_rng(7).uniform(-3, 3, (2, 64)).astype(np.float32)
    narrowed = kernels_of(Tensor(x).cast(limn.float16).cast(limn.float32).exp().sum(1))[0]
    assert reduction_spec(narrowed) is None
    widened = kernels_of(Tensor(x.astype(np.float16)).cast(limn.float32).exp().sum(1))[0]
    assert reduction_spec(widened)[0] == "sum(exp(x))"                      # a float16 input widened first is exact
    kernel = kernels_of(Tensor(x).exp().sum(1))[0]
    monkeypatch.setitem(limn.backend_c.ULP_BOUNDS, "float32", {**limn.backend_c.ULP_BOUNDS["float32"], "exp": 3.0})
    with pytest.raises(ValueError, match="within 3.0 ulps, above litmus's libm budget of 2"):
        ordered_tolerance(kernel, {"in0": x})


def test_a_laned_loop_inside_another_reduce_loop_is_counted_per_lane():
    "A sum over two axes laned on the inner one: a lane takes outer * ceil(inner / 16) terms, and the c device's error on a row built for it needs that count."
    from litmus.bridge import ordered_tolerance
    from litmus.bounds import gamma
    x = np.zeros((1, 10, 17), np.float32); x[0, :, 0] = x[0, :, 16] = 2.0 ** -24; x[0, 0, 0] = 1
    build = lambda: Tensor(x).sum((1, 2))
    bound = ordered_tolerance(kernels_of(build())[0], {"in0": x})
    assert bound.order["lanes"] == 16 and bound.order["depth"] == 10 * 2 - 1 + 4
    error = abs(_on("c", build).reshape(-1)[0] - float(x.astype(np.float64).sum()))
    naive = gamma(-(-170 // 16) - 1 + 4, 2.0 ** -24) * float(np.abs(x).astype(np.float64).sum())
    assert naive < error <= bound.total


@pytest.mark.parametrize("workload", ["mlp", "gpt"])
def test_the_training_benchmark_steps_are_proved(workload, capsys):
    "examples/bench_train.py's steps at their own sizes (the 256x64 MLP; the byte GPT V256 T64 D128 L2 H4 B8 with fused attention): every kernel proved."
    pytest.importorskip("torch")
    import importlib.util
    from limn import set_seed
    from limn.optim import AdamW
    spec = importlib.util.spec_from_file_location("bench_train", pathlib.Path(__file__).parents[1] / "examples" / "bench_train.py")
    bench = importlib.util.module_from_spec(spec); spec.loader.exec_module(bench)
    make, _, (x, y), loss_fn, _ = bench.workload(workload)
    with use_device("c"):
        set_seed(0); model = make()
        loss = loss_fn(model(Tensor(x)), Tensor(y)); loss.backward()
        report = verify([*AdamW(model.named_parameters(), lr=1e-4).updates(), loss])
    custom = sum(k.header.startswith("CUSTOM") for k in report.kernels)
    with capsys.disabled(): print(f"\nlitmus.bridge: bench_train {workload} step {report.counts()} ({custom} CUSTOM), {sum(k.every_size for k in report.kernels)} for every size")
    assert report.ok, str(report)
    assert custom >= 6 if workload == "gpt" else custom == 0       # two layers: forward, dQ and dK/dV each


# --- the c device's corpus within its certified tolerance (moved here from tests/test_backend_c.py, so limn's suite needs
# no litmus: there every float sink is held to the corpus's fixed tolerance) ---------------------------------------------
def _realized_corpus(device: str, cases) -> dict:
    "Each case's sink values on `device`; a case's sinks are realized together, so an ASSIGN commits after the rest."
    import limn.backend_c  # noqa: F401  (registers the "c" device)
    from limn import realize
    with use_device(device):
        out = {}
        for case in cases:
            sinks = case.build()
            realize(*sinks)
            out[case.name] = [t.numpy() for t in sinks]
        return out


@pytest.fixture(scope="module")
def certified():
    """Per float case the c device runs, per sink: the certified bound on |c - numpy| when a recognised reduction writes
    the sink, else None: the c device's own fold order (lanes, fma, combine tree) on one side, numpy's sequential worst
    case on the other, per output. It replaces the fixed 1e-5 there; it is looser only where numpy's sequential worst case
    dominates (long float32 sums)."""
    from graph_corpus import C_DTYPES
    from limn.ops import float32, float64
    cases = [c for c in CORPUS if c.dtype in C_DTYPES and c.dtype in (float32, float64)]
    return {c.name: (c, [sink_tolerance(t) for t in c.build()]) for c in cases}


def test_c_corpus_within_certified_tolerance(certified):
    cases = [case for case, bounds in certified.values() if any(b is not None for b in bounds)]
    assert cases, "no corpus reduction has a certified tolerance"
    want, got = _realized_corpus("numpy", cases), _realized_corpus("c", cases)
    for case in cases:
        for g, w, bound in zip(got[case.name], want[case.name], certified[case.name][1]):
            assert g.shape == w.shape and g.dtype == w.dtype
            if bound is not None:
                assert bound.certified and np.abs(g.astype(np.float64) - w).max() <= bound.pairwise, (case.name, bound)
