"""Every user mistake raises ValueError/TypeError at the call that made it, naming the argument and what was expected."""
import numpy as np
import pytest

import limn
from limn import Tensor, set_device

A = Tensor(np.zeros((4, 3), np.float32))


def raises(exc, *fragments):
    "Context manager: the block raises `exc` whose message contains every fragment."
    class Check:
        def __enter__(self): self.ctx = pytest.raises(exc); self.info = self.ctx.__enter__(); return self
        def __exit__(self, *e):
            ok = self.ctx.__exit__(*e)
            msg = str(self.info.value)
            for f in fragments: assert f in msg, f"{f!r} not in {msg!r}"
            return ok
    return Check()


def test_broadcast_mismatch_names_both_shapes():
    with raises(ValueError, "(4, 3)", "(2,)", "broadcast"): A + Tensor(np.zeros(2, np.float32))
    with raises(ValueError, "(4, 3)", "(5, 1, 2)"): limn.where(A < 0, A, Tensor(np.zeros((5, 1, 2), np.float32)))


def test_matmul_inner_dims():
    with raises(ValueError, "inner", "(4, 3)", "(4, 2)"): A @ Tensor(np.zeros((4, 2), np.float32))
    with raises(ValueError, "at least 1 dim"): A @ Tensor(1.0)


def test_reshape_element_counts():
    with raises(ValueError, "(4, 3)", "12", "(5, 2)", "10"): A.reshape(5, 2)
    with raises(ValueError, "more than one -1"): A.reshape(-1, -1)
    with raises(ValueError, "(4, 3)"): A.reshape(-1, 5)


def test_axis_out_of_range():
    with raises(ValueError, "axis=2", "2 dims"): A.sum(2)
    with raises(ValueError, "axis=-3"): A.amax(axis=-3)
    with raises(ValueError, "dim=-3"): A.max(dim=-3)
    with raises(ValueError, "dim=3"): A.unsqueeze(3)
    with raises(ValueError, "axis=5"): A.softmax(5)
    with raises(TypeError, "axis"): A.sum(1.5)
    with raises(ValueError, "permutation"): A.permute(0, 0)


def test_backward_on_non_scalar_needs_a_gradient():
    x = Tensor(np.ones((2, 2), np.float32), requires_grad=True)
    with raises(ValueError, "non-scalar", "(2, 2)"): (x * 2).backward()
    with raises(ValueError, "shape"): (x * 2).backward(Tensor(np.ones(3, np.float32)))
    (x * 2).backward(Tensor(np.ones((2, 2), np.float32)))            # with a gradient it is fine
    assert x.grad.tolist() == [[2, 2], [2, 2]]
    with raises(ValueError, "does not require grad"): Tensor([1.0]).sum().backward()


def test_requires_grad_on_an_int_tensor():
    with raises(ValueError, "requires_grad", "int32"): Tensor([1, 2], requires_grad=True)
    with raises(ValueError, "requires_grad", "int8"): Tensor(np.zeros(2, np.int8), requires_grad=True)


def test_index_out_of_range_and_unsupported_indices():
    with raises(ValueError, "index 4", "size 4"): A[4]
    with raises(IndexError, "index -5"): A[-5]
    with raises(ValueError, "index 3", "size 3"): A[0, 3]
    with raises(ValueError, "too many indices"): A[0, 0, 0]
    with raises(ValueError, "step 0"): A[::0]
    with raises(TypeError, "index entry"): A["a"]
    with raises(TypeError, "immutable"): A.__setitem__(0, 1.0)
    with raises(ValueError, "gather index out of range", "7"): Tensor(np.zeros((2, 3), np.float32))[Tensor([7])].numpy()


def test_mixing_a_tensor_with_a_type_it_cannot_take():
    with raises(TypeError, "str", "expected a Tensor"): A + "x"
    with raises(TypeError, "list"): A * [1, 2, 3]
    with raises(TypeError, "expected a Tensor"): "x" - A
    with raises(TypeError, "exponent"): A ** "2"
    with raises(TypeError, "Tensor data"): Tensor("abc")
    with raises(TypeError, "Tensor data"): Tensor([object()])
    with raises(TypeError, "dtype"): Tensor([1.0], dtype="complex64")
    with raises(TypeError, "realize() takes Tensors"): limn.realize(A, 3)


def test_movement_argument_errors():
    with raises(ValueError, "expand", "(4, 3)", "dim 1"): A.expand(4, 5)
    with raises(ValueError, "pads"): A.pad(((1, 1),))
    with raises(ValueError, "pads"): A.pad(((-1, 0), (0, 0)))
    with raises(ValueError, "bounds"): A.shrink(((0, 5), (0, 3)))
    with raises(ValueError, "cat", "tensors[1]"): limn.cat([A, Tensor(np.zeros((4, 2), np.float32))], dim=0)
    with raises(ValueError, "gather", "2-D"): Tensor(np.zeros(3, np.float32)).gather(Tensor([0]))
    with raises(TypeError, "int tensor"): A.gather(Tensor([0.5]))


def test_other_errors():
    with raises(ValueError, "unknown device", "'nope'", "numpy"): set_device("nope")
    with raises(ValueError, "item()", "(4, 3)"): A.item()
    with raises(TypeError, "ambiguous"): bool(A)
    with raises(ValueError, "dropout p=1.5"): A.dropout(1.5)
    with raises(ValueError, "dtype float16", "float32"): Tensor([1.0]).assign(Tensor([1.0]).half())
    with raises(ValueError, "shape (3,)", "(2,)"): Tensor([1.0, 2.0]).assign(Tensor([1.0, 2.0, 3.0]))
    with raises(ValueError, "is not used"): limn.grad((Tensor([1.0], requires_grad=True) * 2).sum(), Tensor([1.0], requires_grad=True))
    with raises(TypeError, "seed"): limn.set_seed("x")


def test_a_failed_realize_leaves_tensors_as_they_were():
    p = Tensor([1.0, 2.0])
    update = p.assign(p * 10)
    bad = Tensor(np.zeros((2, 3), np.float32))[Tensor([5])]
    node_before = p.node
    with pytest.raises(ValueError): limn.realize(update, bad)
    assert p.node is not node_before and bad.node.op.name == "GATHER"    # the assign was dropped, the gather still pending
    assert p.tolist() == [1.0, 2.0]                                      # nothing was written
    p.assign(p * 10).realize()
    assert p.tolist() == [10.0, 20.0]
