"""Structural invariants of the scheduler over the shared corpus and a whole training step, and that step run through
the IR interpreter against the numpy device (forward, backward and the SGD assigns in one realize)."""
import numpy as np
import pytest
from graph_corpus import CORPUS
from limn import Tensor, use_device, realize
from limn.ops import Ops, ELEMENTWISE_OPS
from limn.schedule import schedule, materialized
from limn.codegen import run_ir, lower_schedule, Loop, Acc

FUSIBLE = set(ELEMENTWISE_OPS) | {Ops.VIEW, Ops.CONST, Ops.GATHER}


def check_schedule(sinks):
    "Every kernel reads only graph inputs or earlier kernels' outputs, fuses only fusible nodes, writes its own buffer."
    s = schedule(sinks)
    ready = {b for b in s.buffers if b.buffer is not None}
    outputs = set()
    for k in s.kernels:
        assert all(b in ready for b in k.inputs), f"{k.name} reads a buffer no earlier kernel wrote"
        assert k.output not in ready and k.output not in outputs
        assert all(n is k.root or n.op in FUSIBLE for n in k.nodes), f"{k.name} fuses a node that must be cut"
        for n in k.nodes:                                     # a VIEW inside a kernel re-addresses memory or a constant
            if n.op is Ops.VIEW:
                base = n
                while base.op is Ops.VIEW and base not in k.loads: base = base.srcs[0]
                assert base in k.loads or base.op is Ops.CONST
        ready.add(k.output); outputs.add(k.output)
    for sink in s.sinks: assert sink.buf in ready and sink.buf.numel == int(np.prod(sink.shape))
    return s


@pytest.mark.parametrize("case", CORPUS[::3], ids=[c.name for c in CORPUS[::3]])
def test_corpus_schedules_are_well_formed(case):
    check_schedule([t.node for t in case.build()])


def test_one_kernel_per_materialised_node():
    x = Tensor(np.ones((4, 6), np.float32))
    y = ((x * 2).exp().sum(1, keepdim=True) + x).amax(0)   # SUM, then ADD fused into MAX; the sink aliases MAX
    s = schedule([y.node])
    assert [k.op.name for k in s.kernels] == ["SUM", "MAX"] and s.sinks[0].is_alias
    assert len(s.kernels) == len(materialized([y.node]))


def test_elementwise_chain_is_one_kernel_and_shared_work_is_not_stored():
    x = Tensor(np.ones((5,), np.float32))
    e = (x * 3 + 1).exp()
    s = schedule([(e * 2).node, (e + 1).node])        # two sinks share `e`: recomputed in both, never stored
    assert [k.op.name for k in s.kernels] == ["MUL", "ADD"]
    assert all(k.inputs == [s.buffers[0]] for k in s.kernels)


def sgd_step_graph(seed):
    rng = np.random.default_rng(seed)
    x = Tensor(rng.standard_normal((6, 4)).astype(np.float32))
    target = Tensor(rng.integers(0, 3, (6,)).astype(np.int32))
    w1 = Tensor(rng.standard_normal((4, 5)).astype(np.float32), requires_grad=True)
    w2 = Tensor(rng.standard_normal((5, 3)).astype(np.float32), requires_grad=True)
    logp = ((x @ w1).relu() @ w2).log_softmax(-1)
    onehot = Tensor(np.eye(3, dtype=np.float32)).gather(target)
    loss = -(logp * onehot).sum() * (1 / 6)
    loss.backward()
    g1, g2 = w1.grad, w2.grad
    w1.requires_grad = w2.requires_grad = False
    return [w1.assign(w1 - g1 * 0.1), w2.assign(w2 - g2 * 0.1), loss], (w1, w2)


def test_training_step_through_the_ir_matches_numpy():
    sinks, (w1, w2) = sgd_step_graph(0)
    with use_device("numpy"):
        realize(sinks)
        want = [t.numpy() for t in sinks]
    sinks, (v1, v2) = sgd_step_graph(0)
    s = check_schedule([t.node for t in sinks])
    assert len(s.assigns) == 2 and sum(k.op is Ops.SUM for k in s.kernels) >= 4
    got = run_ir(s)
    for g, w in zip(got, want): np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    for t, w in zip(sinks[:2], want[:2]):                             # the assigns committed into the weights' own buffers
        np.testing.assert_allclose(t.node.srcs[0].arg.array, w, rtol=1e-5, atol=1e-6)


def test_loop_order_picks_the_stride_one_dim():
    a, b = Tensor(np.ones((8, 16), np.float32)), Tensor(np.ones((16, 32), np.float32))
    k = lower_schedule(schedule([(a @ b).node])).kernels[0]
    loops = [i.var.name for i in k.instrs if isinstance(i, Loop)]
    assert loops == ["i0", "i1", "i0", "r2", "i1"]                    # fill nest, then i-k-j
    k = lower_schedule(schedule([a.sum(1).node])).kernels[0]           # row sums: register, reduce innermost
    assert [i.var.name for i in k.instrs if isinstance(i, Loop)] == ["i0", "r1"] and any(isinstance(i, Acc) for i in k.instrs)
    k = lower_schedule(schedule([a.transpose().contiguous().node])).kernels[0]
    assert [i.var.name for i in k.instrs if isinstance(i, Loop)] == ["i0", "i1"]   # a 1-1 tie: the later dim
