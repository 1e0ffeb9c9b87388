"""A seeded fuzzer: random DAGs of limn ops run forward and backward against PyTorch (CPU).

Each case is generated as a small Python program with two mirrored lines per step, one for limn
(`v3 = v1 @ v2`) and one for torch (`t3 = t1 @ t2`). The program is executed step by step (the
shapes it produces steer the next step), then the loss and every leaf's gradient are compared.
On a mismatch the test prints the program itself: it is a self-contained reproducer.
"""
import numpy as np
import pytest
import torch

import limn
from limn import Tensor

N_CASES, SEED, TOL = 300, 1234, 1e-4
MAX_NUMEL, MAX_NDIM = 240, 4

HEADER = """import numpy as np, torch, limn
from limn import Tensor
rng = np.random.default_rng({seed})
"""

UNARY = [  # (limn, torch) templates over {a}
    ("-{a}", "-{a}"), ("{a}.tanh().exp()", "{a}.tanh().exp()"), ("({a} * {a} + 1).log()", "({a} * {a} + 1).log()"),
    ("({a} * {a} + 0.5).sqrt()", "({a} * {a} + 0.5).sqrt()"), ("1 / ({a} * {a} + 1)", "1 / ({a} * {a} + 1)"),
    ("{a}.sigmoid()", "{a}.sigmoid()"), ("{a}.tanh()", "{a}.tanh()"), ("{a}.relu()", "{a}.relu()"),
    ("{a}.gelu()", "torch.nn.functional.gelu({a}, approximate='tanh')"), ("{a}.abs()", "{a}.abs()"),
    ("{a} ** 2", "{a} ** 2"), ("{a} ** 3 * 0.2", "{a} ** 3 * 0.2"), ("{a} * 0.5 + 0.25", "{a} * 0.5 + 0.25"),
    ("2 - {a}", "2 - {a}"), ("{a}.contiguous()", "{a}.contiguous()"), ("({a} * {a} + 1) ** 0.5", "({a} * {a} + 1) ** 0.5"),
]
BINARY = [  # (limn, torch) templates over {a}, {b}; b broadcasts to a's shape
    ("{a} + {b}", "{a} + {b}"), ("{a} - {b}", "{a} - {b}"), ("{a} * {b}", "{a} * {b}"),
    ("{a} / ({b} * {b} + 1)", "{a} / ({b} * {b} + 1)"),
    ("limn.maximum({a}, {b})", "torch.maximum({a}, {b})"), ("limn.minimum({a}, {b})", "torch.minimum({a}, {b})"),
    ("limn.where({a} < {b}, {a}, {b} * 2)", "torch.where({a} < {b}, {a}, {b} * 2)"),
    ("limn.where({a} >= 0.1, {b}, -{a})", "torch.where({a} >= 0.1, {b}, -{a})"),
]


def fmt_tuple(xs): return "(" + "".join(f"{x}, " for x in xs) + ")"


class Case:
    "One random program; `step` appends a mirrored line pair and executes it."
    def __init__(self, seed):
        self.rng, self.seed = np.random.default_rng(seed), seed
        self.lines, self.ns, self.pool, self.leaves = [HEADER.format(seed=seed)], {}, [], []
        exec(self.lines[0], self.ns)

    def emit(self, limn_expr, torch_expr):
        k = len(self.pool)
        line = f"v{k} = {limn_expr}\nt{k} = {torch_expr}\n"
        exec(line, self.ns)
        self.lines.append(line)
        shape = tuple(self.ns[f"t{k}"].shape)
        assert self.ns[f"v{k}"].shape == shape, f"shape mismatch {self.ns[f'v{k}'].shape} vs {shape}\n{self.source()}"
        self.pool.append(shape)
        return k

    def leaf(self, shape):
        k = self.emit(f"Tensor(rng.standard_normal({fmt_tuple(shape)}).astype(np.float32), requires_grad=True)",
                      f"torch.tensor(v{len(self.pool)}.numpy(), requires_grad=True)")
        self.leaves.append(k)
        return k

    def source(self): return "".join(self.lines)

    def pick(self):
        "An operand index, biased to recent values so graphs get deep."
        n = len(self.pool)
        return int(n - 1 - min(self.rng.geometric(0.45) - 1, n - 1))

    def random_shape(self):
        nd = int(self.rng.integers(1, 4))
        return tuple(int(s) for s in self.rng.integers(1, 6, size=nd))

    # ---- one random step ----
    def step(self):
        r = self.rng
        a = self.pick(); sa = self.pool[a]; nd = len(sa)
        kind = r.choice(["unary", "binary", "reduce", "move", "move", "matmul", "softmax", "join"],
                        p=[.18, .22, .14, .2, .08, .1, .04, .04])
        A = (f"v{a}", f"t{a}")
        def both(tl, tt, **kw): return self.emit(tl.format(**{k: v[0] for k, v in kw.items()}), tt.format(**{k: v[1] for k, v in kw.items()}))
        if kind == "unary":
            tl, tt = UNARY[r.integers(len(UNARY))]
            return both(tl, tt, a=A)
        if kind == "binary":
            b = self.broadcast_partner(a)
            tl, tt = BINARY[r.integers(len(BINARY))]
            if r.random() < 0.3: tl, tt = tl.replace("{a}", "{X}").replace("{b}", "{a}").replace("{X}", "{b}"), tt.replace("{a}", "{X}").replace("{b}", "{a}").replace("{X}", "{b}")
            return both(tl, tt, a=A, b=(f"v{b}", f"t{b}"))
        if kind == "reduce" and nd >= 1:
            fn = r.choice(["sum", "mean", "max", "min", "var"])
            axes = sorted(set(int(x) for x in r.integers(-nd, nd, size=r.integers(1, nd + 1))))
            axes = sorted({x % nd for x in axes})
            if fn == "var":
                axes = [x for x in axes if sa[x] > 1][:1]
                if not axes: fn, axes = "sum", [0]
            keep = bool(r.random() < 0.5)
            ax = axes[0] if len(axes) == 1 and r.random() < 0.5 else tuple(axes)
            tf = {"max": "amax", "min": "amin"}.get(fn, fn)
            return both(f"{{a}}.{tf}({ax!r}, keepdim={keep})", f"{{a}}.{tf}({ax!r}, keepdim={keep})", a=A)
        if kind == "softmax" and nd >= 1:
            d = int(r.integers(-nd, nd)); fn = r.choice(["softmax", "log_softmax"])
            return both(f"{{a}}.{fn}({d})", f"{{a}}.{fn}({d})", a=A)
        if kind == "matmul" and nd >= 1:
            if nd >= 2 and r.random() < 0.3:
                return both("{a} @ {a}.transpose(-1, -2)", "{a} @ {a}.transpose(-1, -2)", a=A)
            k, m = sa[-1], int(r.integers(1, 5))
            wshape = (k, m) if nd == 1 or r.random() < 0.5 else sa[:-2][-1:] + (k, m)
            if nd >= 2 and len(wshape) == 3 and len(sa) >= 3 and r.random() < 0.5: wshape = (sa[-3], 1, k, m)[-len(wshape):]
            if np.prod(sa[:-1]) * m * k > MAX_NUMEL * 4: return None
            w = self.leaf(wshape)
            return both("{a} @ {w}", "{a} @ {w}", a=A, w=(f"v{w}", f"t{w}"))
        if kind == "join" and nd >= 1:
            b = self.same_shape_partner(a); d = int(r.integers(-nd, nd))
            if np.prod(sa) * 2 > MAX_NUMEL: return None
            if r.random() < 0.5:
                return both(f"limn.cat([{{a}}, {{b}}], {d})", f"torch.cat([{{a}}, {{b}}], {d})", a=A, b=(f"v{b}", f"t{b}"))
            d = int(r.integers(0, nd + 1))
            return both(f"limn.stack([{{a}}, {{b}}], {d})", f"torch.stack([{{a}}, {{b}}], {d})", a=A, b=(f"v{b}", f"t{b}"))
        return self.movement(a, A)

    def movement(self, a, A):
        r, sa = self.rng, self.pool[a]; nd = len(sa)
        def both(tl, tt): return self.emit(tl.format(a=A[0]), tt.format(a=A[1]))
        op = r.choice(["reshape", "permute", "transpose", "expand", "pad", "slice", "index", "flatten", "unsqueeze", "squeeze"])
        if nd == 0: return both("{a}.reshape(1, 1)", "{a}.reshape(1, 1)")
        if op == "reshape":
            n, dims = int(np.prod(sa)), []
            while n > 1 and len(dims) < MAX_NDIM - 1:
                divs = [d for d in range(2, n + 1) if n % d == 0]
                d = int(r.choice(divs)); dims.append(d); n //= d
            dims = dims + ([n] if n > 1 or not dims else [])
            if r.random() < 0.3: dims.insert(int(r.integers(0, len(dims) + 1)), 1)
            if r.random() < 0.3: dims[int(r.integers(len(dims)))] = -1
            return both(f"{{a}}.reshape{fmt_tuple(dims)}", f"{{a}}.reshape{fmt_tuple(dims)}")
        if op == "permute" and nd >= 2:
            order = tuple(int(x) for x in r.permutation(nd))
            return both(f"{{a}}.permute{fmt_tuple(order)}", f"{{a}}.permute{fmt_tuple(order)}")
        if op == "transpose" and nd >= 2:
            d0, d1 = (int(x) for x in r.choice(nd, 2, replace=False))
            return both(f"{{a}}.transpose({d0}, {d1})", f"{{a}}.transpose({d0}, {d1})")
        if op == "expand":
            if 1 in sa:
                shape = tuple(int(r.integers(2, 4)) if s == 1 else s for s in sa)
            else:
                if nd >= MAX_NDIM: return None
                shape = (int(r.integers(2, 4)),) + sa
            if np.prod(shape) > MAX_NUMEL: return None
            return both(f"{{a}}.expand{fmt_tuple(shape)}", f"{{a}}.expand{fmt_tuple(shape)}")
        if op == "pad":
            pads = [(int(r.integers(0, 3)), int(r.integers(0, 3))) for _ in sa]
            if np.prod([s + b + e for s, (b, e) in zip(sa, pads)]) > MAX_NUMEL: return None
            value = 0 if r.random() < 0.7 else 0.5
            flat = [x for p in reversed(pads) for x in p]
            return both(f"{{a}}.pad({tuple(pads)!r}, value={value})", f"torch.nn.functional.pad({{a}}, {tuple(flat)!r}, value={value})")
        if op == "slice":
            parts = []
            for s in sa:
                lo = int(r.integers(0, s)); hi = int(r.integers(lo + 1, s + 1))
                parts.append(f"{lo}:{hi}" if r.random() < 0.7 else ":" if r.random() < 0.5 else f"{lo - s}:")
            if r.random() < 0.3: parts = parts[:1] + ["..."]
            return both("{a}[" + ", ".join(parts) + "]", "{a}[" + ", ".join(parts) + "]")
        if op == "index" and nd >= 2:
            d = int(r.integers(0, nd)); i = int(r.integers(-sa[d], sa[d]))
            idx = ", ".join([":"] * d + [str(i)])
            idx = idx + (", None" if r.random() < 0.3 else "")
            return both("{a}[" + idx + "]", "{a}[" + idx + "]")
        if op == "flatten" and nd >= 2:
            s0 = int(r.integers(0, nd - 1)); e0 = int(r.integers(s0 + 1, nd))
            return both(f"{{a}}.flatten({s0}, {e0})", f"{{a}}.flatten({s0}, {e0})")
        if op == "unsqueeze" and nd < MAX_NDIM:
            d = int(r.integers(-nd - 1, nd + 1))
            return both(f"{{a}}.unsqueeze({d})", f"{{a}}.unsqueeze({d})")
        if op == "squeeze" and 1 in sa:
            d = sa.index(1)
            return both(f"{{a}}.squeeze({d})", f"{{a}}.squeeze({d})")
        return both("{a} * 1.5", "{a} * 1.5")

    def broadcast_partner(self, a):
        "Index of a value that broadcasts to pool[a]'s shape: an existing one, a reduce of a, or a new leaf."
        r, sa = self.rng, self.pool[a]
        same = [i for i, s in enumerate(self.pool) if s == sa and i != a]
        choice = r.random()
        if same and choice < 0.4: return int(r.choice(same))
        if choice < 0.7 or not sa:
            shape = tuple(1 if r.random() < 0.4 else s for s in sa)
            shape = shape[int(r.integers(0, len(shape) + 1)) if r.random() < 0.3 else 0:]
            return self.leaf(shape)
        axes = tuple(int(d) for d in range(len(sa)) if r.random() < 0.5) or (0,)
        return self.emit(f"v{a}.mean({axes!r}, keepdim=True)", f"t{a}.mean({axes!r}, keepdim=True)")

    def same_shape_partner(self, a):
        same = [i for i, s in enumerate(self.pool) if s == self.pool[a] and i != a]
        if same and self.rng.random() < 0.5: return int(self.rng.choice(same))
        return self.emit(f"v{a} * 2 - 1", f"t{a} * 2 - 1")


def build_case(seed, case=None):
    case = Case(seed) if case is None else case
    case.leaf(case.random_shape())
    case.leaf(case.random_shape())
    steps = int(case.rng.integers(5, 11))
    while steps:
        if case.step() is not None: steps -= 1
        if np.prod(case.pool[-1]) > MAX_NUMEL:               # keep the reference device's intermediates small
            last = len(case.pool) - 1
            case.emit(f"v{last}.sum(0)", f"t{last}.sum(0)")
    last = len(case.pool) - 1
    leaves = ", ".join(f"v{i}" for i in case.leaves); tleaves = ", ".join(f"t{i}" for i in case.leaves)
    case.lines.append(
        f"weights = rng.standard_normal({fmt_tuple(case.pool[last])}).astype(np.float32)\n"
        f"loss = (v{last} * Tensor(weights)).sum()\n"
        f"tloss = (t{last} * torch.tensor(weights)).sum()\n"
        f"grads = limn.grad(loss, [{leaves}], allow_unused=True)\n"
        f"tgrads = torch.autograd.grad(tloss, [{tleaves}], allow_unused=True)\n"
        f"limn.realize(loss, v{last}, *[g for g in grads if g is not None])\n"
        f"results = [(v{last}.numpy(), t{last}.detach().numpy()), (loss.numpy(), tloss.detach().numpy())]\n"
        f"results += [(np.zeros(t.shape, np.float32) if g is None else g.numpy(), np.zeros(t.shape, np.float32) if tg is None else tg.numpy())\n"
        f"            for g, tg, t in zip(grads, tgrads, [{tleaves}])]\n"
        f"for i, (mine, theirs) in enumerate(results):\n"
        f"    np.testing.assert_allclose(mine, theirs, rtol={TOL}, atol={TOL}, err_msg=f'result {{i}} (0: forward, 1: loss, then grads of the leaves)')\n")
    return case


def relative_error(mine, theirs):
    return float(np.max(np.abs(mine - theirs) / (1 + np.abs(theirs)), initial=0.0))


def run_case(case):
    build_case(case.seed, case)
    ns = case.ns
    exec(case.lines[-1].split("for i, (mine")[0], ns)
    errs = [relative_error(np.asarray(m, np.float64), np.asarray(t, np.float64)) for m, t in ns["results"]]
    return case, max(errs)


def test_fuzz_autograd_against_torch():
    torch.manual_seed(0)
    worst, worst_seed, n_nodes = 0.0, None, 0
    for i in range(N_CASES):
        seed = SEED + i
        case = Case(seed)
        try:
            case, err = run_case(case)
        except Exception as e:
            pytest.fail(f"case {i} (seed {seed}) raised {type(e).__name__}: {e}\nreproducer (up to the failing step):\n{case.source()}")
        n_nodes += len(case.pool)
        if not err <= TOL:
            pytest.fail(f"case {i} (seed {seed}): limn and torch differ by {err:.3g} (tolerance {TOL})\n"
                        f"self-contained reproducer:\n\n{case.source()}")
        if err > worst: worst, worst_seed = err, seed
    print(f"\nautograd fuzzer: {N_CASES} DAGs ({n_nodes} tensors), forward+backward vs torch, "
          f"max relative error {worst:.2e} (seed {worst_seed})")


def test_reproducer_is_self_contained():
    "The printed program runs on its own and checks itself."
    source = build_case(SEED).source()
    exec(source, {})
