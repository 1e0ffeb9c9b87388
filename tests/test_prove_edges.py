"""These tests hold litmus.prove's in-bounds and race-freedom arguments at the points where a one-token change shows, each verdict confirmed by enumeration."""
import itertools
from litmus.tritonsource import build_model, executions, evaluate_poly
from litmus.prove import ModelProver, decompositions
from inline_kernels import InlineKernel as _K  # a kernel written inline (no file)



def _tensor(name, shape, role, **layout): return {'name': name, 'kind': 'tensor', 'dtype': 'float32', 'shape': shape, 'role': role, **layout}

def _kernel(body, out_shape=('N',), grid='cdiv(N, BLOCK)', **out_layout):
    "A kernel over x (N elements) and out (`out_shape`), with size n = N and a BLOCK constexpr; `body` is its lines."
    src = "import triton\nimport triton.language as tl\n@triton.jit\ndef k(x_ptr, out_ptr, n, BLOCK: tl.constexpr):\n" + \
          "".join(f"    {line}\n" for line in body)
    args = [_tensor('x_ptr', ['N'], 'in'), _tensor('out_ptr', list(out_shape), 'out', **out_layout),
            {'name': 'n', 'kind': 'scalar', 'value': 'N'}, {'name': 'BLOCK', 'kind': 'constexpr', 'value': '32'}]
    model = build_model(_K(src, args, [grid], {'N': 100}))
    assert not model.unsupported, model.unsupported
    return model

def _store(model): return next(a for a in model.accesses if a.kind == 'store')

def _enumerate(model, access, sizes=(1, 5, 11, 17), blocks=(1, 2, 4, 8)):
    """(out of bounds, shared) over every execution at the given sizes: some address outside the tensor's live elements;
    some address written by two distinct threads (program ids and lanes)."""
    t = model.tensors[access.tensor]
    pids = [f'pid{a}' for a in range(len(model.grid))]
    oob = shared = False
    for n, b in itertools.product(sizes, blocks):
        env = model.config_env({'N': n}, {'BLOCK': b})
        shape = [evaluate_poly(s, env) for s in t.shape]; strides = [evaluate_poly(s, env) for s in t.strides]
        live = {sum(i * s for i, s in zip(idx, strides)) for idx in itertools.product(*map(range, shape))}
        owner = {}
        for e in executions(model, access, env):
            oob = oob or e['address'] not in live
            who = tuple(e[p] for p in pids) + tuple(e[l] for l in access.lanes)
            shared = shared or owner.setdefault(e['address'], who) != who
    return oob, shared


def test_an_unproved_access_names_the_split_it_tried():
    """An access left unproved explains itself: when the offset splits by the strides, the explanation is that split and
    the dim whose range failed; only when no split exists does it say so. An unmasked store (enumeration: it writes past
    the end) is explained by its one split, the offset itself, with dim 0 not proved; an odd offset into a tensor of
    stride 2 (enumeration: every address it writes lies between elements) has no split (kills the explanation
    `tried or [...]` -> `tried and [...]`, which replaced a tried split by 'no split' and 'no split' by nothing)."""
    unmasked = _kernel(['offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)',
                        'tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n))'])
    store = _store(unmasked)
    assert _enumerate(unmasked, store)[0]
    proof = ModelProver(unmasked).in_bounds(store)
    assert not proof.proved and len(proof.steps) == 1, str(proof)
    assert proof.steps[0].startswith(f"split ({store.offset})") and 'dim 0' in proof.steps[0] and 'not proved' in proof.steps[0]
    assert decompositions(store.offset, unmasked.tensors['out_ptr']) == [[store.offset]]  # the split named is the only one

    odd = _kernel(['offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)',
                   'tl.store(out_ptr + 2 * offs + 1, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)'], strides=['2'])
    store = _store(odd)
    assert _enumerate(odd, store)[0] and decompositions(store.offset, odd.tensors['out_ptr']) == []
    proof = ModelProver(odd).in_bounds(store)
    assert not proof.proved and len(proof.steps) == 1 and 'no split' in proof.steps[0], str(proof)


def _reversed(stride):
    return _kernel([f'offs = tl.program_id(0) * ({stride}) + BLOCK - 1 - tl.arange(0, BLOCK)',
                    'tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)'])

def test_a_reversed_lane_is_a_digit_with_a_negative_coefficient():
    """Program p writing its block back to front (offs = p*BLOCK + BLOCK - 1 - lane) gives every thread its own address:
    the lane is a digit whose coefficient is -1, read as +1 with the sign noted, so the store is proved race-free and
    in bounds, and enumeration finds neither a shared nor an outside address. With the programs one element closer
    (p*(BLOCK - 1)) neighbouring blocks overlap: enumeration finds a shared address and no race-freedom is proved
    (kills the sign test `P.le0(1 + a)` -> `P.le0(1 - a)`, which called a -1 coefficient's sign unknown)."""
    model = _reversed('BLOCK')
    store, mp = _store(model), ModelProver(model)
    assert _enumerate(model, store) == (False, False)
    assert mp.in_bounds(store).proved
    proof = mp.race_free(store, [])
    assert proof.proved, str(proof)
    overlapping = _reversed('BLOCK - 1')
    store = _store(overlapping)
    assert _enumerate(overlapping, store, blocks=(2, 4, 8))[1]
    assert not ModelProver(overlapping).race_free(store, []).proved


def test_the_outermost_digit_needs_no_upper_bound():
    """The outermost digit of a mixed-radix index needs a lower bound only: nothing lies above it. Program p's lanes write
    column p*BLOCK + lane of rows min(i, 3) for i in range(6), a row index whose range the prover knows only as
    [0, oo). The row is the sole digit of dim 0 (the outermost, trivially), the columns are p and the lanes, so the store
    is proved race-free and in bounds; enumeration finds no address outside the 4 x N tensor and none shared between
    threads (kills `k < len(perm) - 1` -> `<=`, which asked the outermost digit for an upper bound)."""
    model = _kernel(['cols = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)',
                     'for i in range(0, 6):',
                     '    row = tl.minimum(i, 3)',
                     '    tl.store(out_ptr + row * n + cols, tl.load(x_ptr + cols, mask=cols < n), mask=cols < n)'],
                    out_shape=('4', 'N'))
    store, mp = _store(model), ModelProver(model)
    assert any('min' in str(f) and mp.prover.range_of(f)[1] is None for f in store.offset.factors())
    assert _enumerate(model, store) == (False, False)
    assert mp.in_bounds(store).proved
    proof = mp.race_free(store, [])
    assert proof.proved, str(proof)


def test_a_digit_whose_range_starts_at_one():
    """A digit's contribution to the span below the next digit is its coefficient times (hi - lo), not (hi + lo). In
    `for i in range(2, 6): row = i // 2` the row is a floor the prover bounds by [1, i] (the dividend is at least the
    divisor), and program p writes row*BLOCK + lane inside a stride of 5*BLOCK: lane < row < program id, with the program's
    coefficient exactly one more than the span of the digits below (BLOCK - 1 + BLOCK*(5 - 1)). Proved race-free and in
    bounds; enumeration finds no shared address and none outside (kills `r[1] - r[0]` -> `r[1] + r[0]`, which counts the
    row's span as 6*BLOCK)."""
    model = _kernel(['lanes = tl.arange(0, BLOCK)',
                     'for i in range(2, 6):',
                     '    row = i // 2',
                     '    offs = tl.program_id(0) * 5 * BLOCK + row * BLOCK + lanes',
                     '    tl.store(out_ptr + offs, tl.load(x_ptr + lanes, mask=lanes < n), mask=offs < n)'],
                    grid='cdiv(N, 5 * BLOCK)')
    store, mp = _store(model), ModelProver(model)
    rows = [f for f in store.offset.factors() if getattr(f, 'op', None) == '//']
    assert rows and all(mp.prover.range_of(f)[0].value() == 1 for f in rows)
    assert _enumerate(model, store, sizes=(1, 9, 23, 41)) == (False, False)
    assert mp.in_bounds(store).proved
    proof = mp.race_free(store, [])
    assert proof.proved, str(proof)


def _remainder_chain(levels):
    """Program p read through `levels` nested floor divisions by 2 along the remainders: e_0 = p, d_j = e_(j-1) // 2,
    e_j = e_(j-1) % 2. The address holds d_1*BLOCK + lane in its last dim and d_2 .. d_levels, e_levels in pairs in the
    leading dims of a [4, 4, ..., N] tensor; since e_1 = p % 2 = e_levels, the address determines (p, lane)."""
    body = ['e0 = tl.program_id(0)']
    for j in range(1, levels + 1): body += [f'd{j} = e{j - 1} // 2', f'e{j} = e{j - 1} % 2']
    digits = [f'd{j}' for j in range(2, levels + 1)] + [f'e{levels}']
    pairs = [digits[i:i + 2] for i in range(0, len(digits), 2)]
    terms = [f'({" + ".join(f"{2 ** i} * {u}" for i, u in enumerate(p))}) * {2 ** sum(len(q) for q in pairs[d + 1:])} * n'
             for d, p in enumerate(pairs)]
    body += ['cols = d1 * BLOCK + tl.arange(0, BLOCK)',
             f'tl.store(out_ptr + {" + ".join(terms)} + cols, tl.load(x_ptr + cols, mask=cols < n), mask=cols < n)']
    return _kernel(body, out_shape=[str(2 ** len(p)) for p in pairs] + ['N'], grid='2 * cdiv(N, BLOCK)')

def test_a_program_id_is_followed_through_five_nested_floor_divisions_and_no_further():
    """Race freedom needs the program id recovered from the address: it is when p // c and p % c both are, recursively,
    down to digits of the address. The recursion's budget is five levels: a program id reached through five nested
    remainders (p % 2 % 2 % 2 % 2 % 2 and the quotient at each level) is proved race-free and in bounds, through six it
    is left unproved (a cost limit, not a verdict). Enumeration shows both stores write every address from one thread
    only and stay inside the tensor (kills the budget `depth > 4` -> `depth > 5`)."""
    for levels, proved in ((4, True), (5, True), (6, False)):
        model = _remainder_chain(levels)
        store, mp = _store(model), ModelProver(model)
        assert _enumerate(model, store, sizes=(1, 3, 5), blocks=(1, 2)) == (False, False), levels
        assert mp.in_bounds(store).proved, levels
        proof = mp.race_free(store, [])
        assert proof.proved == proved, (levels, str(proof))


def _loop_model(src, args, grid, dims):
    header = "import triton\nimport triton.language as tl\n"
    k = _K(header + src, args, grid, dims)
    k.fn_name = 'k'
    model = build_model(k)
    assert not model.unsupported, model.unsupported
    return model

def _oob_anywhere(model, dims_grid, blocks):
    "Some execution of some access addresses outside its tensor's live elements, at any of the given sizes (enumerated)."
    for dims, b in itertools.product(dims_grid, blocks):
        env = model.config_env(dims, b)
        for a in model.accesses:
            t = model.tensors[a.tensor]
            shape = [evaluate_poly(s, env) for s in t.shape]; strides = [evaluate_poly(s, env) for s in t.strides]
            live = {sum(i * s for i, s in zip(idx, strides)) for idx in itertools.product(*map(range, shape))}
            if any(e['address'] not in live for e in executions(model, a, env)):
                return True
    return False

_GRID_STRIDE = '''@triton.jit
def k(x_ptr, out_ptr, n_rows, n_cols, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    for row in tl.range(pid, STOP, tl.num_programs(0)):
        tl.store(out_ptr + row * n_cols + cols, tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols), mask=cols < n_cols)
'''

def test_a_grid_stride_loop_is_proved_in_bounds():
    """A persistent kernel's `for row in tl.range(pid, n_rows, tl.num_programs(0))` over min(R, 4) programs: the loop's
    guard `it*min(R, 4) + pid < R` is the row bound, tried against the goal before the `min` in both is split. Proved
    in bounds, and enumeration over sizes and grids finds no address outside; with the stop one past the rows the proof
    fails and enumeration finds the row past the end (kills splitting `min` before the hypotheses are tried)."""
    args = [_tensor('x_ptr', ['R', 'C'], 'in'), _tensor('out_ptr', ['R', 'C'], 'out'), {'name': 'n_rows', 'kind': 'scalar', 'value': 'R'},
            {'name': 'n_cols', 'kind': 'scalar', 'value': 'C'}, {'name': 'BLOCK', 'kind': 'constexpr', 'value': 'next_pow2(C)'}]
    sizes = [{'R': r, 'C': c} for r in (1, 3, 5, 9) for c in (1, 3, 4)]
    for stop, safe in (('n_rows', True), ('n_rows + 1', False)):
        model = _loop_model(_GRID_STRIDE.replace('STOP', stop), args, ['min(R, 4)'], {'R': 9, 'C': 3})
        assert _oob_anywhere(model, sizes, [None]) == (not safe), stop
        mp = ModelProver(model)
        assert all(mp.in_bounds(a).proved for a in model.accesses) == safe, stop

_TILED = '''@triton.jit
def prev_multiple_of(a, b):
    return tl.cdiv(a, b) * b - b

@triton.jit
def k(x_ptr, out_ptr, N, TILE: tl.constexpr):
    pid = tl.program_id(0)
    acc = tl.zeros([TILE], dtype=tl.float32)
    for start in range(0, STOP, TILE):
        acc += tl.load(x_ptr + pid * N + start + tl.arange(0, TILE))
    tl.store(out_ptr + pid, tl.sum(acc, 0))
'''

def test_unmasked_tiles_below_a_jit_helpers_bound_are_proved():
    """Unmasked tiles in `range(0, prev_multiple_of(N, TILE), TILE)` (a @triton.jit helper: cdiv(N, T)*T - T) stay below
    N: the loop guard `T*it + T < q*T` tightens to `it + 2 <= q` (times T), and the floor fact `q*T <= N + T - 1` closes
    the sum. Proved in bounds and enumeration finds nothing outside; stopping at cdiv(N, T)*T instead reads past the row,
    which enumeration finds and the prover does not prove (kills the tightening and the pairs of a guard with a fact)."""
    args = [_tensor('x_ptr', ['M', 'N'], 'in'), _tensor('out_ptr', ['M'], 'out'), {'name': 'N', 'kind': 'scalar', 'value': 'N'},
            {'name': 'TILE', 'kind': 'constexpr', 'value': '16'}]
    sizes = [{'M': 2, 'N': n} for n in (1, 3, 4, 5, 8, 13)]
    for stop, safe in (('prev_multiple_of(N, TILE)', True), ('tl.cdiv(N, TILE) * TILE', False)):
        model = _loop_model(_TILED.replace('STOP', stop), args, ['M'], {'M': 2, 'N': 40})
        assert _oob_anywhere(model, sizes, [{'TILE': t} for t in (1, 2, 4)]) == (not safe), stop
        mp = ModelProver(model)
        assert all(mp.in_bounds(a).proved for a in model.accesses) == safe, stop

_PEELED = '''@triton.jit
def prev_multiple_of(a, b):
    return tl.cdiv(a, b) * b - b

@triton.jit
def k(x_ptr, out_ptr, N, M, TILE: tl.constexpr):
    pid = tl.program_id(0)
    last = prev_multiple_of(N, TILE)
    offs = PEEL + tl.arange(0, TILE)
    inside = (offs >= 0) & (offs < N)
    tl.store(out_ptr + pid * N + offs, tl.load(x_ptr + pid * N + offs, mask=inside), mask=inside)
    for start in range(TILE, STOP, TILE):
        offs = last - start + tl.arange(0, TILE)
        tl.store(out_ptr + ROW * N + offs, tl.load(x_ptr + pid * N + offs))
'''

def _cross_program_share(model, stores, dims_grid, blocks):
    "Some address written by two different programs, over the given stores and sizes (enumerated)."
    for dims, b in itertools.product(dims_grid, blocks):
        env = model.config_env(dims, b)
        owner = {}
        for a in stores:
            for e in executions(model, a, env):
                if owner.setdefault(e['address'], e['pid0']) != e['pid0']:
                    return True
    return False

def test_tiles_counted_down_from_the_last_full_tile_are_in_bounds_and_meet_only_their_own_program():
    """FlagGems' softmax second pass: the last (masked) tile at prev_multiple_of(N, T), then unmasked tiles
    `last - start` for start in range(T, N, T), row by row. In bounds needs the guard `T*it + T < N` and the floor fact
    `N <= q*T` summed before the integer step gives `it + 2 <= q` (kills trying pairs only unsummed); stopping at N + T
    reads before the row, which enumeration finds and the prover does not prove. The two stores of a row compute
    different addresses, yet an equal address means the same program (index 0 is `pid` in both), and within it the
    tiles never meet (`disjoint`), so the pair is race-free; the loop writing row M - 1 - pid while the first store
    starts one tile lower meets another program's tile, which enumeration finds and `same_program` does not claim
    (kills `same_program` reading the leading digit of one access only)."""
    args = [_tensor('x_ptr', ['M', 'N'], 'in'), _tensor('out_ptr', ['M', 'N'], 'out'), {'name': 'N', 'kind': 'scalar', 'value': 'N'},
            {'name': 'M', 'kind': 'scalar', 'value': 'M'}, {'name': 'TILE', 'kind': 'constexpr', 'value': '16'}]
    sizes = [{'M': 3, 'N': n} for n in (1, 3, 4, 5, 8, 13)]
    blocks = [{'TILE': t} for t in (1, 2, 4)]
    cases = (('N', 'pid', 'last', True, False), ('N + TILE', 'pid', 'last', False, False),
             ('N', '(M - 1 - pid)', '(last - TILE)', True, True))
    for stop, row, peel, safe, racy in cases:
        model = _loop_model(_PEELED.replace('STOP', stop).replace('ROW', row).replace('PEEL', peel), args, ['M'], {'M': 3, 'N': 40})
        assert _oob_anywhere(model, sizes, blocks) == (not safe), stop
        mp = ModelProver(model)
        assert all(mp.in_bounds(a).proved for a in model.accesses) == safe, stop
        stores = [a for a in model.accesses if a.kind == 'store']
        if safe:
            assert _cross_program_share(model, stores, sizes, blocks) == racy, row
            proofs = [mp.race_free(a, [o for o in stores if o is not a]) for a in stores]
            # block stores: the lanes of one program are threads the GPU does not order, so the pair is claimed only
            # where the tiles never meet; with row M - 1 - pid they meet another program's, and nothing is claimed
            assert all(p.proved for p in proofs) == (not _shared_cell(model, stores, sizes, blocks)) == (not racy), [str(p) for p in proofs]
            assert mp.same_program(stores[0], stores[1]) == (not racy), row

_FLAT = '''@triton.jit
def k(x_ptr, out_ptr, M, N, stride_x, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < LIMIT
    v = tl.load(x_ptr + (offs // N) * stride_x + offs % N, mask=mask)
    tl.store(out_ptr + offs, v, mask=mask)
'''

def test_a_flattened_index_over_a_packed_tensor_is_in_bounds():
    """An elementwise kernel over the M*N elements of a 2-D tensor: the store's flat offset is in bounds because a packed
    row-major layout's live offsets are exactly 0 .. M*N - 1 (`row_major`), and the load's row `offs // N` is below M
    by the guard `offs < M*N` and the floor fact `(offs // N)*N <= offs` together, times N (a multiplier with a pair).
    Proved, and enumeration finds nothing outside. The mask one past the end is found by enumeration and not proved;
    an output with padded rows (row stride N + 1) is written in its padding, which enumeration finds and the prover,
    which reads a flat offset only in a packed layout, does not prove (kills `row_major` ignoring the strides and the
    multiplier-with-pair step, without which the load's row is not proved)."""
    sizes = [{'M': m, 'N': n} for m in (1, 2, 3) for n in (1, 3, 4, 7)]
    blocks = [{'BLOCK': b} for b in (1, 2, 4, 8)]
    for limit, out_stride, safe in (('M * N', 'N', True), ('M * N + 1', 'N', False), ('M * N', 'N + 1', False)):
        args = [_tensor('x_ptr', ['M', 'N'], 'in'), _tensor('out_ptr', ['M', 'N'], 'out', strides=[out_stride, '1']),
                {'name': 'M', 'kind': 'scalar', 'value': 'M'}, {'name': 'N', 'kind': 'scalar', 'value': 'N'},
                {'name': 'stride_x', 'kind': 'scalar', 'value': 'N'}, {'name': 'BLOCK', 'kind': 'constexpr', 'value': '64'}]
        model = _loop_model(_FLAT.replace('LIMIT', limit), args, ['cdiv(M * N, BLOCK)'], {'M': 3, 'N': 7})
        assert _oob_anywhere(model, sizes, blocks) == (not safe), (limit, out_stride)
        mp = ModelProver(model)
        assert all(mp.in_bounds(a).proved for a in model.accesses) == safe, (limit, out_stride)
        if safe:
            store = _store(model)
            assert mp.race_free(store).proved
            dims = lambda a: [s for s in mp.in_bounds(a).steps if s.startswith('dim ')]
            assert len(dims(model.accesses[0])) == 2 and len(dims(store)) == 1   # the load per dim, the store flat


def test_next_pow2_is_at_least_one_only_for_a_positive_argument():
    """Triton's next_power_of_2(n) is 0 for n <= 0 (its bit trick; the model's next_pow2 agrees), so a block size
    `next_pow2(N - 1)` may be 0 at N = 1: `next_pow2(N - 1) >= 1` is not proved, and enumeration shows the 0;
    `next_pow2(N) >= 1` is proved and holds at every N (kills claiming lo = 1 for every next_pow2)."""
    from litmus.prove import Prover
    from litmus.tritonsource import Symbol, Poly, make_atom, next_pow2
    N = Poly.var('N')
    P = Prover({'N': Symbol('N', 'param', Poly.const(1))})
    shifted, plain = make_atom('next_pow2', N - 1), make_atom('next_pow2', N)
    assert min(evaluate_poly(shifted, {'N': n}) for n in range(1, 40)) == 0 == next_pow2(0)
    assert min(evaluate_poly(plain, {'N': n}) for n in range(1, 40)) == 1
    assert not P.le0(1 - shifted) and P.le0(1 - plain)
    assert P.le0(-shifted)   # never negative: 0 at worst


_COUNTDOWN = '''@triton.jit
def k(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(tl.cdiv(N, BLOCK) * BLOCK - BLOCK, -1, STEP):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * N + offs, mask=MASK, other=0.0)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))
'''

def test_a_loop_with_a_symbolic_negative_step_counts_down():
    """range(cdiv(N, BLOCK) * BLOCK - BLOCK, -1, -BLOCK) walks the tiles from the last one down: its loads run (the
    count-up reading of a step it could not sign had a guard that never held, so the proofs saw an empty loop); a mask
    one past the row reads past the tensor, which enumeration finds and the prover does not prove; a step whose sign
    the sizes do not settle (BLOCK - 1 may be 0) is not modelled at all."""
    args = [_tensor('x_ptr', ['M', 'N'], 'in'), _tensor('out_ptr', ['M'], 'out'), {'name': 'N', 'kind': 'scalar', 'value': 'N'},
            {'name': 'BLOCK', 'kind': 'constexpr', 'value': '64'}]
    for mask, safe in (('offs < N', True), ('offs < N + 1', False)):
        model = _loop_model(_COUNTDOWN.replace('STEP', '-BLOCK').replace('MASK', mask), args, ['M'], {'M': 4, 'N': 100})
        load = next(a for a in model.accesses if a.kind == 'load')
        addresses = {e['address'] for e in executions(model, load, model.config_env({'M': 2, 'N': 5}, {'BLOCK': 2}))}
        assert set(range(10)) <= addresses, mask                    # every tile of both rows is read
        assert (max(addresses) < 2 * 5) == safe, (mask, sorted(addresses))
        assert ModelProver(model).in_bounds(load).proved == safe, mask
    k = _K("import triton\nimport triton.language as tl\n" + _COUNTDOWN.replace('STEP', '-(BLOCK - 1)').replace('MASK', 'offs < N'),
           args, ['M'], {'M': 4, 'N': 100})
    k.fn_name = 'k'
    unsigned = build_model(k)
    assert any('may be either sign' in u.why for u in unsigned.unsupported), [str(u) for u in unsigned.unsupported]

_TWO_TILES = '''@triton.jit
def k(x_ptr, out_ptr, N, M, TILE: tl.constexpr):
    pid = tl.program_id(0)
    offs = tl.arange(0, TILE)
    tl.store(out_ptr + pid * N + FIRST, tl.load(x_ptr + pid * N + offs, mask=offs < N), mask=FIRST < N)
    for start in range(LO, N, TILE):
        cols = start + tl.arange(0, TILE)
        tl.store(out_ptr + pid * N + SECOND, tl.load(x_ptr + pid * N + cols, mask=cols < N), mask=(SECOND >= 0) & (SECOND < N))
'''

def _shared_cell(model, accesses, dims_grid, blocks):
    """Some address of `out_ptr` reached by two executions that are not one thread running one statement: two
    statements (block accesses: their lanes are threads the GPU does not order), or two programs or lanes (enumerated)."""
    pids = [f'pid{a}' for a in range(len(model.grid))]
    for dims, b in itertools.product(dims_grid, blocks):
        env = model.config_env(dims, b)
        owner = {}
        for k, a in enumerate(accesses):
            for e in executions(model, a, env):
                who = (k,) + tuple(e[p] for p in pids) + tuple(e[l] for l in a.lanes)
                if owner.setdefault(e['address'], who) != who:
                    return True
    return False

def test_two_tile_stores_of_one_program_are_race_free_exactly_when_they_never_meet():
    """A first tile stored at `offs`, then tiles from `LO` on in a loop, both into the row of their program: the lanes
    of one program are threads the GPU does not order, so the pair is race-free only if no element is written by both.
    The loop from TILE on never meets the first tile, and `disjoint` proves their offsets differ by at least 1 within
    one program (`same_program` gives the one program); a loop from TILE - 1 overlaps it by a cell, a first tile
    reversed (`TILE - 1 - offs`) or shifted by one lane (`offs + 1`) overlaps the loop's first tile, and a second
    tile stored at `cols - 1` meets the next iteration: each of these is found by enumeration and never proved."""
    args = [_tensor('x_ptr', ['M', 'N'], 'in'), _tensor('out_ptr', ['M', 'N'], 'out'), {'name': 'N', 'kind': 'scalar', 'value': 'N'},
            {'name': 'M', 'kind': 'scalar', 'value': 'M'}, {'name': 'TILE', 'kind': 'constexpr', 'value': '16'}]
    sizes = [{'M': 2, 'N': n} for n in (1, 3, 4, 5, 8, 13)]
    blocks = [{'TILE': t} for t in (1, 2, 4)]
    cases = (('offs', 'TILE', 'cols', True), ('offs', 'TILE - 1', 'cols', False), ('TILE - 1 - offs', 'TILE', 'cols', True),
             ('offs + 1', 'TILE', 'cols', False), ('offs', 'TILE', 'cols - 1', False), ('offs', '2 * TILE', 'cols - TILE', True))
    for first, lo, second, apart in cases:
        src = _TWO_TILES.replace('FIRST', first).replace('LO', lo).replace('SECOND', second)
        model = _loop_model(src, args, ['M'], {'M': 2, 'N': 40})
        stores = [a for a in model.accesses if a.kind == 'store']
        racy = _shared_cell(model, stores, sizes, blocks)
        mp = ModelProver(model)
        proofs = [mp.race_free(a, [o for o in stores if o is not a]) for a in stores]
        assert all(p.proved for p in proofs) == (not racy), (first, lo, second, [str(p) for p in proofs])
        assert racy == (not apart), (first, lo, second)

def test_a_guard_proved_never_has_no_execution_and_a_comparison_proved_to_hold_has_no_exception():
    """`never` (no value satisfies a guard: what it guards never runs) and `holds` (a comparison true for every value)
    on random comparisons of a loaded index y in [0, N - 1], a lane in [0, B - 1] and constants, enumerated over small
    N and B: nothing proved is false anywhere, and the cases a launch's domain decides are proved (Liger's
    `y == -100` never, `y != -100` and `y < N` always), while `y == 0`, possible at every N, is not proved never."""
    import random
    from litmus.prove import Prover
    from litmus.tritonsource import Symbol, Poly, compare, conj, evaluate_formula
    model = _kernel(['tl.store(out_ptr + 0, 1.0)'])
    mp = ModelProver(model)
    N, B, y, lane = Poly.var('N'), Poly.var('B'), Poly.var('y'), Poly.var('lane')
    mp.prover = Prover({'N': Symbol('N', 'param', Poly.const(1)), 'B': Symbol('B', 'param', Poly.const(1)),
                        'y': Symbol('y', 'data', Poly.const(0), N - 1), 'lane': Symbol('lane', 'lane', Poly.const(0), B - 1)})
    points = [{'N': n, 'B': b, 'y': v, 'lane': l} for n in range(1, 6) for b in range(1, 5) for v in range(n) for l in range(b)]
    assert mp.never(compare(y, '==', -100)) and mp.holds(compare(y, '!=', -100)) and mp.holds(compare(y, '<', N))
    assert not mp.never(compare(y, '==', 0)) and not mp.holds(compare(y, '!=', 0)) and not mp.holds(compare(y, '>=', 1))
    rng = random.Random(7)
    terms = [y, lane, N, B, Poly.const(1)]
    proved_never = proved_holds = 0
    for _ in range(300):
        sides = [sum((rng.randint(-2, 2) * t for t in terms), Poly()) for _ in range(4)]
        ops = [rng.choice(['<', '<=', '==', '!=', '>', '>=']) for _ in range(2)]
        c1, c2 = compare(sides[0], ops[0], sides[1]), compare(sides[2], ops[1], sides[3])
        guard = conj(c1, c2)
        if mp.never(guard):
            proved_never += 1
            assert not any(evaluate_formula(guard, p) for p in points), guard
        for c in (c1, c2):
            if mp.holds(c):
                proved_holds += 1
                assert all(evaluate_formula(c, p) for p in points), c
    assert proved_never >= 10 and proved_holds >= 10, (proved_never, proved_holds)
