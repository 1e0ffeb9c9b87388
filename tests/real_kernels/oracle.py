"""Hold every label of the suite to Triton's own interpreter (TRITON_INTERPRET=1), independently of litmus's verdicts.

Usage: TRITON_INTERPRET=1 .venv/bin/python tests/real_kernels/oracle.py CASE ... (prints one JSON line per case)

For each case the kernel file is imported (these are the suite's own files, never a user's) and the kernel is
launched through Triton's interpreter at the launch its LITMUS literal states, on torch CPU tensors that sit inside
guard zones (NaN around an input, so a load out of bounds reads a NaN; a sentinel around an output, so a store out of
bounds changes it). A correct kernel
must write no guard and match its float64 `reference` on its default dims and on its buggy sibling's answer key; a
planted bug must show on its answer key (a guard written, or an error over tolerance, or a NaN the reference lacks).

Only the size-expression evaluator and the recipe sampler (`litmus.corpus.evaluate`, `draw`) are borrowed from litmus,
pure functions; the launch, the run, the guards and the comparison are here, and litmus's loader is not used (it
refuses some of these files). The interpreter runs programs one after another, so a race
shows only where its lost update changes the result of a sequential run (both planted races here do)."""
from __future__ import annotations
import importlib.util, json, math, os, sys
from pathlib import Path

import numpy as np
import triton
import triton.language as tl

HERE = Path(__file__).resolve().parent
GUARD = 4096
TOLERANCE = {"float32": 1e-4, "float16": 2e-3, "bfloat16": 3e-2, "float64": 1e-10}


@triton.jit
def _interpreter_tanh(x):
    return 2 * tl.sigmoid(2 * x) - 1


@triton.jit
def _interpreter_rsqrt(x):
    return tl.math.rsqrt(x)


@triton.jit
def _interpreter_exp2(x):
    return tl.math.exp2(x)


@triton.jit
def _interpreter_log2(x):
    return tl.math.log2(x)


@triton.jit
def _interpreter_erf(x):
    return tl.math.erf(x)


LIBDEVICE = {"tanh": _interpreter_tanh, "rsqrt": _interpreter_rsqrt, "exp2": _interpreter_exp2,
             "log2": _interpreter_log2, "erf": _interpreter_erf}


def _module(path: Path):
    """The kernel file imported, with libdevice functions it imported by name rebound to ones the interpreter runs.

    Triton's interpreter patches `tl` and `tl.math` while a kernel runs, not `triton.language.extra.libdevice`, so a
    `from triton.language.extra.libdevice import rsqrt` binding returns None there. The oracle rebinds such names to jit
    functions that call `tl.math`'s function of the same name at run time (patched then), or for tanh, which tl.math
    lacks, compute 2 sigmoid(2x) - 1."""
    spec = importlib.util.spec_from_file_location(f"real_kernels_{path.parent.name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name, value in list(vars(module).items()):
        if getattr(value, "__module__", "").startswith("triton.language.extra") and name in LIBDEVICE:
            setattr(module, name, LIBDEVICE[name])
    return module


def _value(v, env):
    "A scalar or constexpr value of the literal: a number, a quoted string, or a size expression over `env`."
    from litmus.corpus import evaluate
    if isinstance(v, str) and len(v) >= 2 and v[0] == v[-1] == '"':
        return v[1:-1]
    return evaluate(v, env)


def launch_of(lit: dict, dims: dict) -> dict:
    """The launch a LITMUS literal states at `dims`, computed here (no litmus loader, which refuses some files):
    {'dims', 'values' (scalars and constexprs by name), 'tensors' [(name, dtype, shape, strides, span, role)], 'grid'}."""
    from litmus.corpus import evaluate, row_major, allocation_span
    env = {**lit["dims"], **dims}
    values, tensors = {}, []
    for a in lit["args"]:
        if a["kind"] == "constexpr":
            values[a["name"]] = _value(a["value"], env)
            if not isinstance(values[a["name"]], str):
                env[a["name"]] = values[a["name"]]
    for a in lit["args"]:
        if a["kind"] == "scalar":
            values[a["name"]] = _value(a["value"], env)
        elif a["kind"] == "tensor":
            shape = tuple(evaluate(x, env) for x in a["shape"])
            strides = tuple(evaluate(x, env) for x in a["strides"]) if "strides" in a else row_major(shape)
            tensors.append((a["name"], a["dtype"], shape, strides, allocation_span(shape, strides), a["role"]))
    grid = tuple(evaluate(g, env) for g in lit["grid"])
    return {"dims": {d: env[d] for d in lit["dims"]}, "values": values, "tensors": tensors, "grid": grid}


def inputs_of(lit: dict, launch: dict, recipe: dict | None, seed: int) -> dict:
    "Float64 input arrays drawn per `recipe` (the corpus's recipe format), rounded to each tensor's dtype."
    from litmus.corpus import draw
    rng, out, recipe = np.random.default_rng(seed), {}, recipe or {}
    for name, dtype, shape, strides, span, role in launch["tensors"]:
        if role != "in":
            continue
        if dtype.startswith("int"):
            from litmus.corpus import evaluate
            lo, hi = (evaluate(x, launch["dims"]) if isinstance(x, str) else x   # an end tied to a dim: "N - 1"
                      for x in lit.get("domain", {}).get(name, (0, 100)))
            r = recipe.get(name) if (recipe.get(name) or {}).get("dist") in ("const", "integers") else \
                {"dist": "integers", "low": math.ceil(lo), "high": math.floor(hi)}
            out[name] = draw(r, shape, rng)
        else:
            np_dtype = {"float32": np.float32, "float16": np.float16, "float64": np.float64}[dtype]
            with np.errstate(over="ignore"):
                out[name] = draw(recipe.get(name), shape, rng).astype(np_dtype).astype(np.float64)
    return out


def _scalar(arg: dict, value):
    """A scalar argument as compiled Triton sees it. A Python float is a float32 scalar tensor there (so
    `eps.to(tl.float32)` works); the interpreter passes it on as a Python float, so the oracle wraps it first."""
    if arg["kind"] == "scalar" and isinstance(value, float):
        from triton.runtime.interpreter import TensorHandle
        return tl.tensor(TensorHandle(np.array([value], dtype=np.float32), tl.float32), tl.float32)
    return value


SENTINEL = -31328.0   # exact in float16, bfloat16 and float32: an output's guard holds it, so any write shows


def launch_once(case: str, dims: dict, recipe: dict | None, seed: int = 0) -> dict:
    "Run the case's kernel once at `dims` on `recipe`: {'oob_write': [tensor names], 'deviation': float, 'dims'}."
    import torch
    sys.path.insert(0, str(HERE))
    from report import kernel_file, litmus_literal
    path = kernel_file(case)
    lit = litmus_literal(path)
    launch = launch_of(lit, dims)
    inputs = inputs_of(lit, launch, recipe, seed)
    torch_dtype = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16,
                   "float64": torch.float64, "int32": torch.int32, "int64": torch.int64}
    buffers, views = {}, {}
    for name, dtype, shape, strides, span, role in launch["tensors"]:
        dt = torch_dtype[dtype]
        # an input's guard is NaN (a read past it poisons the result), an output's the sentinel (a write past it shows)
        fill = (float("nan") if role == "in" else SENTINEL) if dt.is_floating_point else -(2 ** 30)
        buf = torch.full((span + 2 * GUARD,), fill, dtype=dt)
        view = torch.as_strided(buf, shape, strides, GUARD)
        if role == "in":
            view.copy_(torch.from_numpy(inputs[name]).to(dt))
        elif role == "acc":
            view.zero_()
        else:
            view.fill_(float("nan") if dt.is_floating_point else -(2 ** 31))
        buffers[name], views[name] = (buf, fill, span), view
    args = [views[a["name"]] if a["name"] in views else _scalar(a, launch["values"][a["name"]]) for a in lit["args"]]
    fn = getattr(_module(path), path.stem)
    from triton.runtime.autotuner import Autotuner, Heuristics
    while isinstance(fn, (Autotuner, Heuristics)):   # the literal names the config: the jit function is launched directly
        fn = fn.fn
    fn[launch["grid"]](*args)
    oob = []
    for name, (buf, fill, span) in buffers.items():
        guard = torch.cat([buf[:GUARD], buf[GUARD + span:]])
        intact = torch.isnan(guard) if fill != fill else guard == fill
        if not bool(intact.all()):
            oob.append(name)
    ref = kernel_reference(path, lit, inputs)
    worst = 0.0
    for name, dtype, shape, strides, span, role in launch["tensors"]:
        if role != "in":
            out = views[name].to(torch.float64).numpy()
            worst = max(worst, deviation(out, np.broadcast_to(ref[name], out.shape)))
    return {"oob_write": oob, "deviation": worst, "dims": launch["dims"]}


def kernel_reference(path: Path, lit: dict, inputs: dict) -> dict:
    "The file's own numpy reference on the float64 inputs, by output name."
    fn = _module(path).reference
    ins = [a["name"] for a in lit["args"] if a["kind"] == "tensor" and a["role"] == "in"]
    outs = [a["name"] for a in lit["args"] if a["kind"] == "tensor" and a["role"] != "in"]
    with np.errstate(all="ignore"):
        ref = fn(*[np.array(inputs[n], dtype=np.float64) for n in ins])
    ref = ref if isinstance(ref, tuple) else (ref,)
    return dict(zip(outs, [np.asarray(r, dtype=np.float64) for r in ref]))


def deviation(out: np.ndarray, ref: np.ndarray) -> float:
    "max |out - ref| / max |ref| (inf where finiteness differs): the error relative to the output's scale."
    if (np.isfinite(out) != np.isfinite(ref)).any():
        return math.inf
    finite = np.isfinite(ref)
    if not finite.any():
        return 0.0
    scale = float(np.abs(ref[finite]).max()) or 1.0
    return float(np.abs(out[finite] - ref[finite]).max() / scale)


def tolerance(case: str) -> float:
    from report import litmus_literal, kernel_file
    lit = litmus_literal(kernel_file(case))
    dtypes = [a["dtype"] for a in lit["args"] if a["kind"] == "tensor"]
    if all(d.startswith("int") for d in dtypes if d) or any(a["kind"] == "tensor" and a["role"] != "in" and a["dtype"].startswith("int")
                                                            for a in lit["args"]):
        return 0.0
    return max(TOLERANCE.get(d, 0.0) for d in dtypes)


def judge(case: str) -> dict:
    "Does the interpreter confirm the case's label? {'case', 'label', 'confirmed', 'runs'}."
    sys.path.insert(0, str(HERE))
    from report import litmus_literal, kernel_file
    from plant_bugs import BUGS
    lit = litmus_literal(kernel_file(case))
    tol, runs = tolerance(case), []
    if lit["label"] == "correct":
        keys = [{"dims": {}, "inputs": None, "seed": 0}] + [b[4] for b in BUGS.values() if b[0] == case]
        for key in keys:
            r = launch_once(case, key.get("dims", {}), key.get("inputs"), key.get("seed", 0))
            r["ok"] = not r["oob_write"] and r["deviation"] <= tol
            runs.append(r)
        confirmed = all(r["ok"] for r in runs)
    else:
        key = lit["answer_key"]
        r = launch_once(case, key.get("dims", {}), key.get("inputs"), key.get("seed", 0))
        r["ok"] = bool(r["oob_write"]) or r["deviation"] > tol
        runs.append(r)
        confirmed = r["ok"]
    return {"case": case, "label": lit["label"], "tolerance": tol, "confirmed": confirmed, "runs": runs}


def main(argv):
    if os.environ.get("TRITON_INTERPRET") != "1":
        raise SystemExit("oracle.py must run with TRITON_INTERPRET=1 (set before triton is imported)")
    for case in argv:
        try:
            out = judge(case)
        except Exception as e:  # a launch that fails is reported, never taken as a confirmation
            out = {"case": case, "confirmed": False, "error": f"{type(e).__name__}: {e}"}
        print(json.dumps(out, default=str), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
