"""Hold every label of the suite to Triton's own interpreter (TRITON_INTERPRET=1), independently of litmus's verdicts.

Usage: TRITON_INTERPRET=1 .venv/bin/python tests/real_kernels/oracle.py CASE ... (prints one JSON line per case)

For each case the kernel file is imported (these are the suite's own files, never a user's) and the kernel is
launched through Triton's interpreter at the launch its LITMUS literal states, on torch CPU tensors that sit inside
guard zones of NaN (so a store out of bounds changes a guard and a load out of bounds reads a NaN). A correct kernel
must write no guard and match its float64 `reference` on its default dims and on its buggy sibling's answer key; a
planted bug must show on its answer key (a guard written, or an error over tolerance, or a NaN the reference lacks).

Only the size language (`litmus.corpus.resolve`) and the input recipes (`litmus.corpus.make_inputs`) are borrowed from
litmus; the run, the guards and the comparison are here. The interpreter runs programs one after another, so a race
shows only where its lost update changes the result of a sequential run (both planted races here do)."""
from __future__ import annotations
import importlib.util, json, math, os, sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
GUARD = 4096
TOLERANCE = {"float32": 1e-4, "float16": 5e-3, "bfloat16": 3e-2, "float64": 1e-10}


def _module(path: Path):
    spec = importlib.util.spec_from_file_location(f"real_kernels_{path.parent.name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def launch_once(case: str, dims: dict, recipe: dict | None, seed: int = 0) -> dict:
    "Run the case's kernel once: {'oob_write': [...], 'deviation': float, 'outputs': ...} at `dims` on `recipe`."
    import torch
    sys.path.insert(0, str(HERE))
    from report import kernel_file
    from litmus import corpus
    path = kernel_file(case)
    kernel = corpus.load(path)
    launch = corpus.resolve(kernel, dims)
    inputs = corpus.make_inputs(kernel, dims, recipe, seed)
    torch_dtype = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16,
                   "float64": torch.float64, "int32": torch.int32, "int64": torch.int64}
    buffers, views, args = {}, {}, []
    for t in launch.tensors:
        dt = torch_dtype[t.dtype]
        fill = float("nan") if dt.is_floating_point else -(2 ** 30)
        buf = torch.full((t.span + 2 * GUARD,), fill, dtype=dt)
        view = torch.as_strided(buf, t.shape, t.strides, GUARD)
        if t.role == "in":
            view.copy_(torch.from_numpy(inputs[t.name]).to(dt))
        elif t.role == "acc":
            view.zero_()
        buffers[t.name], views[t.name] = buf, view
    for name in kernel.params:
        value = launch.values[name]
        args.append(views[name] if name in views else value)
    fn = getattr(_module(path), kernel.fn_name)
    fn[tuple(launch.grid)](*args)
    oob = []
    for t in launch.tensors:
        buf = buffers[t.name]
        guard = torch.cat([buf[:GUARD], buf[GUARD + t.span:]])
        intact = torch.isnan(guard) if buf.dtype.is_floating_point else guard == -(2 ** 30)
        if not bool(intact.all()):
            oob.append(t.name)
    ref = kernel_reference(path, kernel, inputs)
    worst = 0.0
    for t in launch.tensors:
        if t.role == "in":
            continue
        out = views[t.name].to(torch.float64).numpy()
        expected = np.broadcast_to(ref[t.name], out.shape)
        worst = max(worst, deviation(out, expected))
    return {"oob_write": oob, "deviation": worst, "dims": launch.dims}


def kernel_reference(path: Path, kernel, inputs: dict) -> dict:
    "The file's own numpy reference on the float64 inputs, by output name."
    fn = _module(path).reference
    with np.errstate(all="ignore"):
        ref = fn(*[np.array(inputs[n], dtype=np.float64) for n in kernel.inputs])
    ref = ref if isinstance(ref, tuple) else (ref,)
    return dict(zip(kernel.outputs, [np.asarray(r, dtype=np.float64) for r in ref]))


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
