"""Issue 23, the search and the semantics half: kernels wrong only past a size, offset or program-id threshold, kernels
that depend on a negative `//` or `%`, an int32 wrap, a false hint and an input overwritten are each caught, and a
correct `tl.where` between pointers is accepted. Every kernel is a file under tests/kernels/ with its LITMUS literal."""
from pathlib import Path
import numpy as np
import pytest
from litmus.check import check
from litmus.safety import GPUSafetyCheck
from litmus.shapes import SymbolicShapeSpace
from litmus.tritonsource import read_kernel

KERNELS = Path(__file__).parent / 'kernels'


@pytest.mark.parametrize('name, dim, lo', [('trust_size_threshold', 'N', 5001), ('trust_offset_threshold', 'N', 4097),
                                           ('trust_pid_threshold', 'N', 6 * 128 + 1), ('trust_wide_softmax', 'N', 3001)])
def test_threshold_kernels_are_rejected_with_a_witness(name, dim, lo):
    "Wrong only past n > 5000, offsets >= 4096, program 6: the search reaches the threshold and shows the input."
    r = check(KERNELS / f'{name}.py')
    assert r.verdict == 'REJECT', str(r)
    cx = r.counterexample
    assert cx is not None and cx.dims[dim] >= lo, cx


def test_threshold_classes_sit_on_both_sides_of_each_constant():
    "The shape classes hold the size that first reaches each threshold, and one either side of it."
    for name, point in (('trust_size_threshold', 5001), ('trust_offset_threshold', 4097), ('trust_pid_threshold', 769),
                        ('trust_wide_softmax', 3001)):  # the last one's block is next_pow2(N): the constant rule places it
        values = {c.value for c in SymbolicShapeSpace(read_kernel(KERNELS / f'{name}.py')).classes['N']}
        assert {point - 1, point, point + 1} <= values, (name, sorted(values))


@pytest.mark.parametrize('name', ['trust_negative_mod_value', 'trust_negative_div_value'])
def test_negative_remainder_or_quotient_in_the_output_is_rejected(name):
    "`(offs - 2) % 4` is -2, -1 at offs 0, 1 in Triton, and `(offs - 4) // 4` is 0 at offs 1..3; the references floor."
    r = check(KERNELS / f'{name}.py')
    assert r.verdict == 'REJECT', str(r)
    assert r.counterexample is not None


def test_negative_remainder_in_an_address_is_rejected_with_a_witness():
    "`(offs - 3) % n` is negative for offs < 3: the load reads before the tensor, and safety shows where."
    r = GPUSafetyCheck(KERNELS / 'trust_negative_mod_address.py').run()
    assert r.verdict == 'REJECT'
    d = next(d for d in r.defects if d.kind == 'out_of_bounds')
    assert d.witness['address'] < 0 and d.witness['where'] == 'before the start'


def test_truncating_division_matches_c():
    "The one integer rule both models use: C's truncation, not Python's floor."
    from litmus.tritonsource import tdiv, tmod
    pairs = [(a, b) for a in range(-9, 10) for b in (-4, -3, 2, 5)]
    assert [tdiv(a, b) for a, b in pairs] == [int(a / b) for a, b in pairs]
    assert [tmod(a, b) for a, b in pairs] == [int(np.fmod(a, b)) for a, b in pairs]


def test_rowsum_states_its_int32_size_limit():
    "`row * stride` is int32: rowsum is ACCEPTed with the size past which it wraps, not 'for all shapes'."
    r = GPUSafetyCheck('rowsum').run()
    assert r.verdict == 'ACCEPT'
    assert any('row * stride' in x and 'wraps once M >=' in x for x in r.limits), r.limits
    assert 'LIMIT' in str(r) and r.as_dict()['limits'] == r.limits


def test_an_int64_row_offset_has_no_int32_limit(tmp_path):
    "The same row sum with `row.to(tl.int64) * stride`: the offset is int64, so no limit is stated."
    src = (Path(__file__).parents[1] / 'src' / 'litmus' / 'kernels' / 'rowsum.py').read_text()
    (tmp_path / 'rowsum.py').write_text(src.replace('x_ptr + row * stride', 'x_ptr + row.to(tl.int64) * stride'))
    r = GPUSafetyCheck(tmp_path / 'rowsum.py').run()
    assert r.verdict == 'ACCEPT' and r.limits == [], r.limits


def test_a_declared_launch_whose_address_wraps_is_rejected(tmp_path):
    "`x_ptr + (pid*n*3 + offs) - pid*n*3`: each int32 offset is sign-extended on its own, and the first wraps at n = 2**30."
    src = (KERNELS / 'trust_negative_mod_address.py').read_text()
    src = src.replace('x_ptr + src', 'x_ptr + (pid * n * 3 + offs) - pid * n * 3').replace('"N": 1000', '"N": 1073741824')
    (tmp_path / 'trust_wrap.py').write_text(src.replace('def trust_negative_mod_address', 'def trust_wrap'))
    r = GPUSafetyCheck(tmp_path / 'trust_wrap.py').run()
    assert r.verdict == 'REJECT' and any(d.kind == 'int32_overflow' for d in r.defects), str(r)


def test_a_false_hint_is_not_trusted_and_a_true_one_is_proved():
    "tl.multiple_of(offs + 3, 16) is false at lane 0: UNKNOWN naming the hint; the true hints of a copy are proved."
    r = GPUSafetyCheck(KERNELS / 'trust_false_hint.py').run()
    assert r.verdict == 'UNKNOWN' and any('multiple_of(offs + 3, 16)' in o for o in r.open), str(r)
    ok = GPUSafetyCheck(KERNELS / 'trust_true_hint.py').run()
    assert ok.verdict == 'ACCEPT', str(ok)
    assert sum(p.prop == 'hint' and p.proved for p in ok.proofs) == 2


def test_a_false_assume_is_not_trusted_and_a_true_one_is_proved():
    "tl.assume(offs < n) fails on the tail tile's masked lanes: UNKNOWN naming it; tl.assume(offs >= 0) is proved."
    r = GPUSafetyCheck(KERNELS / 'trust_false_assume.py').run()
    assert r.verdict == 'UNKNOWN' and any('tl.assume(offs < n)' in o for o in r.open), str(r)
    ok = GPUSafetyCheck(KERNELS / 'trust_true_assume.py').run()
    assert ok.verdict == 'ACCEPT' and any(p.prop == 'hint' and p.proved for p in ok.proofs), str(ok)


def test_where_between_pointers_is_accepted():
    "A correct kernel choosing its load pointer with tl.where runs in the model and is ACCEPTed end to end."
    r = check(KERNELS / 'trust_where_pointers.py')
    assert r.verdict == 'ACCEPT', str(r)


def test_an_input_clobbering_kernel_is_rejected_by_safety():
    "The output is right, but the kernel zeroes its input x: safety REJECTs it with the write that does it."
    r = GPUSafetyCheck(KERNELS / 'trust_input_clobber.py').run()
    assert r.verdict == 'REJECT'
    d = next(d for d in r.defects if d.kind == 'input_write')
    assert d.witness['tensor'] == 'x_ptr' and d.line == 14
