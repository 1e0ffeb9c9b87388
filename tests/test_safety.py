"""litmus safety over the corpus: the acceptance criteria of GPUSafetyCheck, with both solver backends.

Chapters: nbs/litmus/05_tritonsource .. 10_shapes. Everything here runs on a CPU in a few seconds."""
import itertools, random
from pathlib import Path
import pytest
from litmus import corpus
from litmus.tritonsource import build_model, executions, evaluate_poly, evaluate_formula, Poly, compare
from litmus.prove import ModelProver
from litmus.smt import Problem, solve, z3_available
from litmus.safety import GPUSafetyCheck, live_formula
from litmus.check import check
from litmus.shapes import SymbolicShapeSpace
from inline_kernels import InlineKernel as _K  # a kernel written inline (no file)

KERNELS = corpus.kernels()
TEST_KERNELS = Path(__file__).parent / 'kernels'
BACKENDS = ['bounded'] + (['z3'] if z3_available() else [])
VISIBLE = ('mask_leak', 'race', 'stride')  # the families that leave a trace in memory or control flow

@pytest.fixture(scope='module')
def reports():
    return {b: {k.name: GPUSafetyCheck(k, backend=b).run() for k in KERNELS} for b in BACKENDS}

def test_z3_is_installed_for_this_suite():
    "The dev environment installs z3-solver; without it half of this suite would silently test one backend."
    assert z3_available(), "z3-solver is missing: pip install z3-solver (the suite needs both backends)"

@pytest.mark.parametrize('backend', BACKENDS)
def test_visible_bugs_rejected_with_witness(reports, backend):
    for k in KERNELS:
        if k.label not in VISIBLE: continue
        r = reports[backend][k.name]
        if any(u.kind == 'data_address' for u in r.unsupported):  # a race through loaded indices: the dynamic search's job
            assert r.verdict == 'UNKNOWN' and not r.defects, (k.name, str(r)); continue
        if r.open and all(o.startswith('race_free') and 'depends on loaded values' in o for o in r.open):
            # two lanes meet only where two loaded indices are equal: the static check does not assume an input, the
            # search launches one (histogram_race), so the whole check still REJECTs with a witness
            assert r.verdict == 'UNKNOWN' and not r.defects, (k.name, str(r))
            whole = check(k, quick=True)
            assert whole.verdict == 'REJECT' and 'race' in whole.witness, (k.name, str(whole)); continue
        assert r.verdict == 'REJECT' and r.defects, (k.name, str(r))
        for d in r.defects:
            assert d.backend == backend
            assert 'dims' in d.witness and 'blocks' in d.witness and 'config' in d.witness

@pytest.mark.parametrize('backend', BACKENDS)
def test_correct_kernels_proved_safe(reports, backend):
    for k in KERNELS:
        if k.label != 'correct': continue
        r = reports[backend][k.name]
        if any(u.kind == 'data_address' for u in r.unsupported):  # a histogram: UNKNOWN, never a false defect
            assert r.verdict == 'UNKNOWN' and not r.defects and all(u.kind == 'data_address' for u in r.unsupported), (k.name, str(r))
            continue
        assert r.verdict == 'ACCEPT' and not r.defects and not r.open, (k.name, str(r))
        assert all(p.proved for p in r.proofs) and r.configs_searched == 0, k.name

def test_no_output_visible_bugs_found(reports):
    "The out-of-bounds write past the tensor and the divergent barrier: the two bugs no output comparison sees."
    r = reports[BACKENDS[-1]]
    store = [d for d in r['vadd_nomask'].defects if d.kind == 'out_of_bounds' and 'store' in d.text]
    assert store and store[0].witness['where'] == 'past the end of the allocation'
    assert store[0].witness['tensor'] == 'out_ptr' and store[0].witness['address'] >= store[0].witness['allocation']
    bar = [d for d in r['softmax_barrier'].defects if d.kind == 'barrier_divergence']
    assert bar and bar[0].witness['reached_by'] != bar[0].witness['skipped_by']
    assert [d.kind for d in r['sum_race'].defects] == ['race'] and [d.kind for d in r['rowsum_race'].defects] == ['race']
    assert {d.witness['where'] for d in r['softmax_stride'].defects} == {'in padding between rows'}

def test_matmul_proved_for_all_shapes_not_searched(reports):
    for name in ('matmul',):
        r = reports[BACKENDS[-1]][name]
        props = [(p.prop, p.proved) for p in r.proofs]
        assert ('race_free', True) in props and all(ok for _, ok in props) and len(props) == 4
        assert r.configs_searched == 0
    grouped = GPUSafetyCheck(corpus.load(TEST_KERNELS / 'matmul_masked.py')).run()
    assert grouped.verdict == 'ACCEPT' and all(p.proved for p in grouped.proofs)

def test_same_witnesses_both_backends(reports):
    if len(BACKENDS) < 2: pytest.skip('z3-solver not installed: only the bounded backend can run')
    for k in KERNELS:
        a, b = reports['bounded'][k.name], reports['z3'][k.name]
        assert a.verdict == b.verdict, k.name
        assert [(d.kind, d.line, d.witness) for d in a.defects] == [(d.kind, d.line, d.witness) for d in b.defects], k.name

def test_witnesses_replay_on_the_model(reports):
    "Each out-of-bounds witness is performed by the stated program at a non-live address; each race's two sides both happen."
    for k in KERNELS:
        model = build_model(k)
        pids = [f'pid{a}' for a in range(len(model.grid))]
        by_line = {a.line: a for a in model.accesses}
        for d in reports[BACKENDS[0]][k.name].defects:
            env = model.config_env(d.witness['dims'], d.witness['blocks'])
            if d.kind == 'out_of_bounds':
                a = by_line[d.line]
                assert any(e['address'] == d.witness['address'] and tuple(e[p] for p in pids) == d.witness['program']
                           for e in executions(model, a, env))
                assert not evaluate_formula(live_formula(model.tensors[a.tensor], Poly.const(d.witness['address']), env)[0], {})
            elif d.kind == 'race':
                for side in (d.witness['first'], d.witness['second']):
                    assert any(e['address'] == d.witness['address'] and tuple(e[p] for p in pids) == side['program']
                               for e in executions(model, by_line[side['line']], env))
                assert d.witness['first']['program'] != d.witness['second']['program'] or d.witness['first']['lanes'] != d.witness['second']['lanes']
            else:
                b = model.barriers[0]
                reach = lambda prog: evaluate_formula(b.guard.subs(env), dict(zip(pids, prog)))
                assert reach(d.witness['reached_by']) and not reach(d.witness['skipped_by'])

def test_bounded_never_claims_unsat():
    p = Problem([('x', 0, 20)], [compare(Poly.var('x') * 2, '==', 7)])
    r = solve(p, 'bounded')
    assert r.status == 'unsat' and r.proved_unsat is False and r.backend == 'bounded'
    if z3_available():
        r = solve(p, 'z3')
        assert r.status == 'unsat' and r.proved_unsat is True and r.backend == 'z3'
    x, y = Poly.var('x'), Poly.var('y')  # a bounded SAT is a real witness: it satisfies the constraints when evaluated
    cons = [compare(x * 3 + y, '==', 17), compare(y, '>=', 2)]
    r = solve(Problem([('x', 0, 10), ('y', 0, 10)], cons), 'bounded')
    assert r.status == 'sat' and all(evaluate_formula(c, r.model) for c in cons) and r.model == {'x': 3, 'y': 8}
    r = solve(Problem([('x', 0, 10), ('y', 0, 10)], cons + [compare(y, '>', 9)]), 'bounded')
    assert r.status == 'unsat' and r.proved_unsat is False  # nothing in the box: still not a proof
    r = solve(Problem([('x', 0, 10**6)], [compare(x, '==', -1)]), 'bounded', budget=1000)
    assert r.status == 'unknown' and r.proved_unsat is False and 'budget' in r.note

def test_unsupported_constructs_are_unknown_and_named():
    r = GPUSafetyCheck(corpus.load(TEST_KERNELS / 'unsupported_while.py')).run()
    assert r.verdict == 'UNKNOWN' and r.exit_code == 2
    names = [(u.construct, u.line) for u in r.unsupported]
    assert ('while loop', 10) in names and ('tl.make_block_ptr', 13) in names
    for src, construct in [('x = tl.load(x_ptr + tl.load(idx_ptr + offs, mask=offs < n), mask=offs < n)', 'tl.load address'),
                           ('x = tl.load(x_ptr + (offs << 1))', 'tl.load address')]:
        model = _one_line_kernel(src)
        assert any(u.construct == construct for u in model.unsupported), (src, model.unsupported)
        assert GPUSafetyCheck(model).run().verdict == 'UNKNOWN'
    with pytest.raises(ValueError, match='helper'):  # a call to a name no jit function binds: refused by the loader
        _one_line_kernel('x = helper(x_ptr, offs)')


def _one_line_kernel(line):
    src = f'''
import triton
import triton.language as tl
@triton.jit
def k(x_ptr, idx_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    {line}
'''
    args = [{'name': 'x_ptr', 'kind': 'tensor', 'dtype': 'float32', 'shape': ['N'], 'role': 'in'},
            {'name': 'idx_ptr', 'kind': 'tensor', 'dtype': 'int32', 'shape': ['N'], 'role': 'in'},
            {'name': 'n', 'kind': 'scalar', 'value': 'N'}, {'name': 'BLOCK', 'kind': 'constexpr', 'value': '32'}]
    return build_model(_K(src, args, ['cdiv(N, BLOCK)'], {'N': 100}))

def test_proofs_sound_by_enumeration():
    "Proved in-bounds accesses touch only live elements; proved race-free stores never share an address across threads."
    rng = random.Random(7)
    extra = [corpus.load(TEST_KERNELS / f) for f in ('matmul_masked.py', 'matmul_grouped.py', 'attention_causal.py',
                                                     'where_clamp.py', 'tutorial_layernorm.py', 'early_exit_barrier.py')]
    for k in KERNELS + extra:
        model = build_model(k); mp = ModelProver(model)
        pids = [f'pid{a}' for a in range(len(model.grid))]
        blocks = [n for n, e in model.constexprs.items() if e.value() is not None]
        for _ in range(4):
            dims = {d: rng.randint(0, 4) if d in k.pads else rng.randint(1, 11) for d in model.dims}
            env = model.config_env(dims, {b: rng.choice([1, 2, 4, 8]) for b in blocks})
            for a in model.accesses:
                t = model.tensors[a.tensor]
                shape = [evaluate_poly(s, env) for s in t.shape]; strides = [evaluate_poly(s, env) for s in t.strides]
                live = {sum(i * s for i, s in zip(idx, strides)) for idx in itertools.product(*map(range, shape))}
                ex = list(executions(model, a, env))
                if mp.in_bounds(a).proved: assert all(e['address'] in live for e in ex), (k.name, a.line, env)
                if a.kind == 'store' and mp.race_free(a, [o for o in model.accesses if o is not a and o.tensor == a.tensor]).proved:
                    owner = {}
                    for e in ex:
                        who = tuple(e[p] for p in pids) + tuple(e[l] for l in a.lanes)
                        assert owner.setdefault(e['address'], who) == who, (k.name, a.line, env)

def test_shape_space_is_small_and_witnessed():
    for k in KERNELS:
        sp = SymbolicShapeSpace(k, backend='bounded')
        assert len(sp.configs()) <= 8 * len(sp.model.dims) + 1
        for dim, classes in sp.classes.items():
            for c in classes: assert evaluate_formula(c.constraint, {dim: c.value})
    sp = SymbolicShapeSpace(corpus.get('rowsum_fp16acc'))
    assert any(c.name == 'deep' and c.value > 2048 for c in sp.classes['N'])
    assert set(sp.dtype_classes()['x_ptr']) == {'float32', 'float16', 'bfloat16'}

def test_bad_arguments():
    with pytest.raises(ValueError, match="backend must be"): GPUSafetyCheck(corpus.get('vadd'), backend='cvc5')
    with pytest.raises(TypeError, match="kernel must be"): build_model(object())
    with pytest.raises(ValueError, match="source does not parse"):
        build_model(_K('def k(:\n  pass', [], ['1'], {'N': 1}))

def test_loop_barrier_and_early_exit():
    "A barrier in `for j in range(pid)`: programs disagree on how often they reach it; the early return guards the rest."
    k = corpus.load(TEST_KERNELS / 'early_exit_barrier.py')
    model = build_model(k)
    assert all('BLOCK*pid0 < N' in str(a.guard) for a in model.accesses + model.barriers)
    for backend in BACKENDS:
        r = GPUSafetyCheck(k, backend=backend).run()
        assert r.verdict == 'REJECT' and [d.kind for d in r.defects] == ['barrier_divergence']
        w = r.defects[0].witness
        assert w['reached_by'] != w['skipped_by'] and 'iteration' in w

def test_grouped_tutorial_matmul_proved():
    """The Triton tutorial's matmul with grouped program ordering (min, nested % and //): proved in bounds and race-free
    for all shapes, which needs the floor-division facts, the multiplier rule and min splitting of the prover."""
    r = GPUSafetyCheck(corpus.load(TEST_KERNELS / 'matmul_grouped.py')).run()
    assert r.verdict == 'ACCEPT' and all(p.proved for p in r.proofs) and r.configs_searched == 0, str(r)

def test_helpers_inlined_and_proved():
    r = GPUSafetyCheck(corpus.load(TEST_KERNELS / 'helper_rows.py')).run()
    assert r.verdict == 'ACCEPT' and not r.unsupported and len(r.proofs) == 3

def _mutants(kernel):
    "Single-edit mutants of a kernel: a mask dropped from one load/store, one `<` relaxed to `<=`, or one program id replaced by 0."
    import ast, copy, dataclasses
    tree = kernel.module_ast
    fn_index = next(i for i, n in enumerate(tree.body) if isinstance(n, ast.FunctionDef) and n.name == kernel.fn_name)
    def sites(t):
        fn = t.body[fn_index]
        calls = [n for n in ast.walk(fn) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                 and n.func.attr in ('load', 'store') and any(k.arg == 'mask' for k in n.keywords)]
        cmps = [n for n in ast.walk(fn) if isinstance(n, ast.Compare) and isinstance(n.ops[0], ast.Lt)]
        return calls, cmps
    calls, cmps = sites(tree)
    pids = [n for n in ast.walk(tree.body[fn_index]) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
            and n.func.attr == 'program_id']
    for kind, count in (('drop_mask', len(calls)), ('lt_to_le', len(cmps)), ('pid_to_zero', len(pids))):
        for i in range(count):
            t = copy.deepcopy(tree)
            c2, m2 = sites(t)
            if kind == 'drop_mask': c2[i].keywords = [k for k in c2[i].keywords if k.arg != 'mask']
            elif kind == 'lt_to_le': m2[i].ops[0] = ast.LtE()
            else:  # every program along that axis now computes the same addresses
                p2 = [n for n in ast.walk(t.body[fn_index]) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                      and n.func.attr == 'program_id']
                p2[i].func, p2[i].args, p2[i].keywords = ast.Name('int', ast.Load()), [ast.Constant(0)], []
            ast.fix_missing_locations(t)
            yield f'{kernel.name}:{kind}{i}', dataclasses.replace(kernel, source=ast.unparse(t), fn_ast=t.body[fn_index], module_ast=t)

def test_mutants_never_accepted_when_enumeration_finds_a_defect():
    """Mutation testing of the whole check: for every single-edit mutant of every correct kernel (corpus and test
    kernels), enumerate its executions at small sizes. A mutant with an out-of-bounds execution must be REJECTed; one
    where two programs (or two lanes) write one address, or one program reads what another writes, must be REJECTed
    with a race; one without out-of-bounds executions must get no out-of-bounds defect. No mutant may crash the check."""
    rng = random.Random(3)
    killed = total = 0
    correct = [k for k in KERNELS if k.label == 'correct'] + [corpus.load(TEST_KERNELS / f) for f in
               ('matmul_masked.py', 'helper_rows.py', 'tutorial_layernorm.py', 'tutorial_dropout.py', 'attention_causal.py',
                'where_clamp.py', 'matmul_grouped.py')]
    for k in correct:
        for name, mutant in _mutants(k):
            model = build_model(mutant)
            r = GPUSafetyCheck(mutant, backend='bounded').run()
            blocks = [n for n, e in model.constexprs.items() if e.value() is not None]
            oob = False
            for _ in range(6):
                dims = {d: rng.randint(0, 3) if d in k.pads else rng.randint(1, 10) for d in model.dims}
                env = model.config_env(dims, {b: rng.choice([2, 4]) for b in blocks})
                for a in model.accesses:
                    t = model.tensors[a.tensor]
                    shape = [evaluate_poly(s, env) for s in t.shape]; strides = [evaluate_poly(s, env) for s in t.strides]
                    live = {sum(i * s for i, s in zip(idx, strides)) for idx in itertools.product(*map(range, shape))}
                    oob = oob or any(e['address'] not in live for e in executions(model, a, env))
            race = False
            pids = [f'pid{a}' for a in range(len(model.grid))]
            for _ in range(4):
                dims = {d: rng.randint(0, 2) if d in k.pads else rng.randint(1, 9) for d in model.dims}
                env = model.config_env(dims, {b: rng.choice([2, 4]) for b in blocks})
                for a in [x for x in model.accesses if x.kind == 'store']:
                    writers = {}  # address -> {(program, lanes)}
                    for e in executions(model, a, env):
                        writers.setdefault(e['address'], set()).add((tuple(e[p] for p in pids), tuple(e[l] for l in a.lanes)))
                    race = race or any(len(w) > 1 for w in writers.values())
                    for o in model.accesses:
                        if o is a or o.tensor != a.tensor or o.kind == 'atomic': continue
                        for e in executions(model, o, env):
                            prog = tuple(e[p] for p in pids)
                            race = race or any(w[0] != prog for w in writers.get(e['address'], ()))
            total += 1
            if race and not oob:
                assert r.verdict == 'REJECT' and any(d.kind == 'race' for d in r.defects), (name, str(r))
                killed += 1
            if oob:
                assert r.verdict == 'REJECT', (name, str(r))
                killed += 1
            else: assert not any(d.kind == 'out_of_bounds' for d in r.defects), (name, str(r))
    assert total >= 80 and killed >= 80, (total, killed)  # measured: 96 mutants, 94 with an OOB or a race, all 94 rejected

def test_without_z3_auto_uses_bounded(monkeypatch):
    "With z3 absent, 'auto' falls back to the bounded search, says so, gives the same witnesses and proves no UNSAT."
    import litmus.safety, litmus.smt
    monkeypatch.setattr(litmus.safety, 'z3_available', lambda: False)
    monkeypatch.setattr(litmus.smt, 'z3_available', lambda: False)
    r = GPUSafetyCheck(corpus.get('vadd_nomask')).run()
    assert r.backend == 'bounded' and all(d.backend == 'bounded' for d in r.defects)
    with pytest.raises(ValueError, match="z3-solver package is not installed"):
        solve(Problem([('x', 0, 1)], []), 'z3')
    assert solve(Problem([('x', 0, 1)], [compare(Poly.var('x'), '>', 5)])).proved_unsat is False

def test_tutorial_kernels_proved():
    "Beyond the corpus: tutorial kernels (pointers moved in place, tl.rand, three tile loops) and a causal attention."
    for f in ('tutorial_layernorm.py', 'tutorial_dropout.py', 'attention_causal.py'):
        r = GPUSafetyCheck(corpus.load(TEST_KERNELS / f)).run()
        assert r.verdict == 'ACCEPT' and all(p.proved for p in r.proofs), (f, str(r))

def test_chosen_addresses():
    "tl.where on an index and a pointer chosen by an if: one access per case; a clamp to n instead of 0 is caught."
    for backend in BACKENDS:
        ok = GPUSafetyCheck(corpus.load(TEST_KERNELS / 'where_clamp.py'), backend=backend).run()
        assert ok.verdict == 'ACCEPT' and all(p.proved for p in ok.proofs), str(ok)
        bad = GPUSafetyCheck(corpus.load(TEST_KERNELS / 'where_clamp_bad.py'), backend=backend).run()
        assert bad.verdict == 'REJECT' and [d.kind for d in bad.defects] == ['out_of_bounds']
        assert bad.defects[0].witness['address'] == bad.defects[0].witness['dims']['N']  # the clamp value itself


def _overlap_kernel(distance, two_d):
    """Stores whose lanes overlap at `distance`: program p writes [p*(8 - d), p*(8 - d) + 8), or, inside one program,
    row r of a 4x8 block writes [r*(8 - d), r*(8 - d) + 8). At d = 0 the address determines the lane; at d >= 1 two
    lanes share d addresses. Literal sizes keep the coefficients' signs known, so only the mixed-radix inequality
    (coefficient > span of the smaller digits) decides the proof."""
    if two_d:
        body = f"""r = tl.arange(0, 4)[:, None]
    c = tl.arange(0, 8)[None, :]
    offs = r * (8 - {distance}) + c
    tl.store(out_ptr + offs, tl.load(x_ptr + offs))"""  # 32-element tensors: every lane in bounds at any distance
        params, consts, grid = 'x_ptr, out_ptr, n, R: tl.constexpr, C: tl.constexpr', [('R', '4'), ('C', '8')], ['1']
    else:
        body = f"""offs = tl.program_id(0) * (8 - {distance}) + tl.arange(0, 8)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)"""
        params, consts, grid = 'x_ptr, out_ptr, n, BLOCK: tl.constexpr', [('BLOCK', '32')], ['cdiv(N, BLOCK)']
    src = f"import triton\nimport triton.language as tl\n@triton.jit\ndef k({params}):\n    {body}\n"
    shape = ['32'] if two_d else ['N']
    args = [{'name': 'x_ptr', 'kind': 'tensor', 'dtype': 'float32', 'shape': shape, 'role': 'in'},
            {'name': 'out_ptr', 'kind': 'tensor', 'dtype': 'float32', 'shape': shape, 'role': 'out'},
            {'name': 'n', 'kind': 'scalar', 'value': 'N'}] + [{'name': c, 'kind': 'constexpr', 'value': v} for c, v in consts]
    return _K(src, args, grid, {'N': 100})

@pytest.mark.parametrize('two_d', [False, True], ids=['across_programs', 'within_a_block'])
def test_race_proof_distance_zero_one_two(two_d):
    """The injectivity argument is tight: at distance 0 the store is proved race-free for all shapes; at distance 1 (a
    single shared address, which a proof weakened by one would let through) and 2 it is not proved, and the search
    returns a race whose two lanes really write one address."""
    for d in (0, 1, 2):
        k = _overlap_kernel(d, two_d)
        model = build_model(k)
        store = [a for a in model.accesses if a.kind == 'store'][0]
        proof = ModelProver(model).race_free(store, [])
        for backend in BACKENDS:
            r = GPUSafetyCheck(k, backend=backend).run()
            if d == 0:
                assert proof.proved and r.verdict == 'ACCEPT', (d, two_d, str(r))
                continue
            assert not proof.proved and r.verdict == 'REJECT', (d, two_d, str(r))
            race = [x for x in r.defects if x.kind == 'race'][0]
            env = model.config_env(race.witness['dims'], race.witness['blocks'])
            first, second = race.witness['first'], race.witness['second']
            assert (first['program'], first['lanes']) != (second['program'], second['lanes'])
            for side in (first, second):  # both executions exist in the model and touch the stated address
                assert any(e['address'] == race.witness['address'] and all(e[l] == v for l, v in side['lanes'].items())
                           for e in executions(model, store, env))


def test_declared_range_is_a_shape_class(tmp_path):
    "A size pinned by LITMUS 'ranges' ([64, 64]) that no generic class reaches gets its own class, so every dim has a baseline."
    from litmus.tritonsource import read_kernel
    src = (TEST_KERNELS / 'where_clamp.py').read_text().replace('"dims": {"N": 1000}', '"dims": {"N": 1000, "B": 64}, "ranges": {"B": [64, 64]}')
    path = tmp_path / 'where_clamp.py'; path.write_text(src)
    sp = SymbolicShapeSpace(read_kernel(path), backend='bounded')
    assert [(c.name, c.value) for c in sp.classes['B']] == [('fixed', 64)]
    assert all(c.dims['B'] == 64 for c in sp.configs())


def _pre_kernel(body, assume=None):
    from inline_kernels import InlineKernel
    src = "import triton\nimport triton.language as tl\n@triton.jit\ndef k(x_ptr, out_ptr, BLOCK: tl.constexpr):\n" + \
          "".join(f"    {line}\n" for line in body)
    args = [{'name': 'x_ptr', 'kind': 'tensor', 'dtype': 'float32', 'shape': ['N'], 'role': 'in'},
            {'name': 'out_ptr', 'kind': 'tensor', 'dtype': 'float32', 'shape': ['N'], 'role': 'out'},
            {'name': 'BLOCK', 'kind': 'constexpr', 'value': '16'}]
    k = InlineKernel(src, args, ['1'], {'N': 32})
    if assume is not None:
        k.assume = tuple(assume)
    return k

def _oob_at(k, n, block):
    "Enumeration: some execution of some access leaves its N-element tensor at N = n, BLOCK = block."
    model = build_model(k)
    env = model.config_env({'N': n}, {'BLOCK': block})
    return any(not 0 <= e['address'] < n for a in model.accesses for e in executions(model, a, env))

def test_preconditions_are_facts_and_no_witness_breaks_them():
    """A launch's `assume` ("N >= 16") and a `tl.static_assert(BLOCK <= 16)` enter the proofs as facts: the unmasked
    reads of lanes 0..BLOCK-1 of an N-element tensor are proved once both hold, and enumeration confirms no execution
    leaves the tensor at any N >= 16, BLOCK <= 16, while one does at N = 15 or BLOCK = 32 (so each precondition is what
    the proof needs). Without the `assume` the same kernel is REJECTed with a witness at some N < 16."""
    body = ['tl.static_assert(BLOCK <= 16)', 'offs = tl.arange(0, BLOCK)', 'tl.store(out_ptr + offs, tl.load(x_ptr + offs))']
    held = _pre_kernel(body, ['N >= 16'])
    assert not any(_oob_at(held, n, b) for n in (16, 17, 40) for b in (1, 2, 4, 8, 16))
    assert _oob_at(held, 15, 16) and _oob_at(held, 16, 32)
    r = GPUSafetyCheck(held).run()
    assert r.verdict == 'ACCEPT' and all(p.proved for p in r.proofs), str(r)
    free = GPUSafetyCheck(_pre_kernel(body)).run()
    assert free.verdict == 'REJECT' and all(d.witness['dims']['N'] < 16 for d in free.defects), str(free)
