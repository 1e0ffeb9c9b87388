"""A deep learning framework built to be read, and a verifier for GPU kernels

Modules:

- `limn.autograd`: Reverse-mode differentiation at the Tensor layer. Every primitive a Tensor op records carries a rule (its vector-Jacobian product) written with Tensor ops itself, so a gradient is one more lazy graph, and with create_graph=True a graph that can be differentiated again.
- `limn.backend_c`: The c device. Each lowered kernel (chapter 06) is rendered as one C function, compiled by cc into a shared library cached on disk by the hash of its source, and called through ctypes by the shared executor (chapter 07).
- `limn.backend_cuda`: The cuda device. Each lowered kernel is rendered as CUDA C by chapter 10, compiled at run time by NVRTC into PTX (or a CUBIN) for the newest architecture the loaded NVRTC supports that does not exceed the GPU's, loaded through the driver API, and launched by the shared executor of chapter 07 on buffers that live in GPU memory.
- `limn.codegen`: The code generator lowers each kernel of a schedule to a loop nest written in twelve instructions, with every index spelled out as integer arithmetic: views become index expressions, masks become range checks, and the loop order is chosen here. The result prints, runs in a Python interpreter that is held to the numpy device, and is what the C backend renders.
- `limn.cuda_emit`: The cuda device's renderer. It takes the lowered kernels of chapter 06 (the same twelve-instruction loop nests the C backend renders in chapter 08) and writes each as CUDA C source for NVRTC, choosing for every nest one of three shapes: one thread per output cell, a long reduce split into strided partial totals and a fold, or a tiled matmul staged through shared memory.
- `limn.device`: A device turns a list of sink nodes into buffers holding their values. This chapter fixes that protocol (what a device is handed, what it must give back, how ASSIGN commits) and implements the device every other one is measured against: a numpy interpreter that runs one numpy call per node, with no fusion and nothing clever.
- `limn.jit`: The executor every compiled device shares. It turns a list of sink nodes into a plan once per graph structure (schedule, lowered kernels, compiled programs), reruns that plan against whatever buffers the next graph of the same shape holds, and commits ASSIGNs only after every kernel of the call has run.
- `limn.ops`: The bottom of limn's stack: the seven dtypes and how they promote, the closed set of primitive ops, and Node, the immutable DAG vertex every Tensor builds and every device consumes.
- `limn.schedule`: The scheduler decides which nodes of a lazy graph run together in one loop nest and which values must be written to memory in between. It sits between the Tensor layer, which hands it the sink nodes of a realize, and the code generator (next chapter), which turns each kernel it produces into a loop nest.
- `limn.sdpa`: Scaled dot-product attention as one op: `q.attention(k, v, causal=..., key_mask=...)`. On a device that registers the three fused kernels (forward, `sdpa_bwd_q`, `sdpa_bwd_kv`) it is three CUSTOM nodes whose memory does not grow with t_q * t_k; anywhere else it is composed from primitives.
- `limn.tensor`: Tensor is what a user holds: a handle on a node of the op DAG, plus the autograd bookkeeping. Every method builds nodes and returns at once; bytes exist only after .numpy(), .item(), .realize() or limn.realize(...) hands the graph to the current device.
- `limn.view`: A View is (shape, strides, offset, mask): how to find element i of a tensor in a flat buffer, and whether it is there at all. Reshape, permute, expand, pad and shrink are functions from View to View, so any chain of them folds into one View at the moment it is written and costs nothing until a kernel reads through it.
- `limn.viz`: One small module that turns any graph the course meets (an op DAG, a schedule, a loop nest, a kernel's index model) into a graphviz picture."""

__version__ = "0.0.1"

from .ops import Ops, DType, DTYPES, float64, float32, float16, bfloat16, int32, int16, int8
from .device import set_device, get_device, register_device, known_devices, use_device
from .autograd import grad, no_grad, enable_grad
from .tensor import Tensor, realize, set_seed, cat, stack, where, maximum, minimum
from . import sdpa                     # installs Tensor.attention and the devices' fused attention kernels
from . import nn, optim, serialize
from .verify import verify             # litmus proves the kernels of one realize (imports litmus only when called)
