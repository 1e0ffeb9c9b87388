"""Triton kernels written inline in a test: the fields litmus's build_model and safety check read from a kernel file."""


class InlineKernel:
    "A kernel with no file (so corpus.load does not apply): its source, LITMUS argument list, grid and default dims."
    def __init__(self, source, args, grid=("1",), dims=None):
        self.name, self.source, self.args, self.grid, self.dims, self.pads = "inline", source, list(args), list(grid), dict(dims or {}), ()


def lanes_kernel(body: str, cells: int = 8) -> InlineKernel:
    "One program of 8 lanes `i` over a float32 output `out_ptr` of `cells` cells, running `body` (lines after `i = ...`)."
    src = "import triton\nimport triton.language as tl\n@triton.jit\ndef k(out_ptr):\n    i = tl.arange(0, 8)\n"
    src += "".join(f"    {line}\n" for line in body.splitlines())
    return InlineKernel(src, [{"name": "out_ptr", "kind": "tensor", "dtype": "float32", "shape": [str(cells)], "role": "out"}])
