"""Masks built with `&`, `|` and `^` from a modelled condition and a loaded one (05_tritonsource `_mask_algebra`): the
in-bounds prover is held to enumeration over every lane, size, block and value of the loaded bit."""
import pytest
from test_prove_edges import _kernel, _store, _enumerate
from litmus.prove import ModelProver

GUARDED = "offs < n"
LOADED = "tl.load(x_ptr + offs, mask=offs < n, other=0.0) > 0"


@pytest.mark.parametrize("mask, provable", [
    (f"({GUARDED}) & ~({LOADED})", True),          # the (offsets < n) & ~p_mask: only lanes below n
    (f"({LOADED}) & ({GUARDED})", True),
    (f"({GUARDED}) | ({LOADED})", False),          # a loaded bit may enable a lane past n
    (f"({GUARDED}) ^ ({LOADED})", False),
    (f"~({GUARDED}) & ({LOADED})", False),
])
def test_a_mask_mixing_a_condition_and_loaded_data_is_proved_exactly_when_enumeration_agrees(mask, provable):
    model = _kernel(["offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)",
                     f"tl.store(out_ptr + offs, 1.0, mask={mask})"])
    store = _store(model)
    out_of_bounds, _ = _enumerate(model, store)
    proof = ModelProver(model).in_bounds(store)
    assert out_of_bounds == (not provable)
    assert proof.proved == provable, str(proof)
