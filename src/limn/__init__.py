"""A deep learning framework built to be read, and a verifier for GPU kernels"""

__version__ = "0.0.1"

from .ops import Ops, DType, DTYPES, float64, float32, float16, bfloat16, int32, int16, int8
from .device import set_device, get_device, register_device, known_devices, use_device
from .autograd import grad, no_grad, enable_grad
from .tensor import Tensor, realize, set_seed, manual_seed, cat, stack, where, maximum, minimum, einsum
from . import attention                # installs Tensor.attention and the devices' fused attention kernels
from . import nn, optim, serialize
