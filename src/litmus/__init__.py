"""litmus: a verifier for GPU kernels written in Triton.

It bounds the error a correct kernel may have (litmus.bounds), proves memory safety for all shapes
(litmus.safety), runs kernels without a GPU (litmus.simulate), looks for an input that breaks the bound
(litmus.falsify), holds a labelled corpus of kernels (litmus.corpus), and turns all of it into ACCEPT, REJECT
or UNKNOWN (litmus.check, and the `litmus` command line in litmus.cli). The modules are exported from the
notebooks in nbs/litmus/.

    from litmus import ToleranceBound, GPUSafetyCheck, TargetedFalsification
    from litmus.check import check      # the pipeline: check('softmax_nomaxsub').verdict == 'REJECT'

Nothing is imported until it is used (PEP 562): `import litmus` costs no numpy, so `litmus --help` starts at once and
`litmus check` imports only the modules the check runs.
"""
import importlib

__version__ = "0.0.1"

# The names `from litmus import X` offers, and the module each comes from (imported on first use).
_EXPORTS = {"Interval": "affine", "Affine": "affine", "Spec": "spec", "classify": "spec", "ToleranceBound": "bounds",
            "heuristic_tolerance": "bounds", "GPUSafetyCheck": "safety", "SymbolicShapeSpace": "shapes",
            "TargetedFalsification": "falsify"}
_RENAMED = {"parse_spec": ("spec", "parse")}
_SUBMODULES = ("affine", "spec", "bounds", "safety", "shapes", "corpus", "falsify", "simulate", "check", "cli",
               "rewards", "launcher", "sandbox", "kernelfile", "tritonsource", "prove", "smt", "bridge", "webdemo")

__all__ = sorted([*_EXPORTS, *_RENAMED, "corpus", "__version__"])


def __getattr__(name: str):
    "A re-exported name or a submodule, imported the first time it is asked for."
    if name in _EXPORTS:
        value = getattr(importlib.import_module(f"litmus.{_EXPORTS[name]}"), name)
    elif name in _RENAMED:
        module, original = _RENAMED[name]
        value = getattr(importlib.import_module(f"litmus.{module}"), original)
    elif name in _SUBMODULES:
        value = importlib.import_module(f"litmus.{name}")
    else:
        raise AttributeError(f"module 'litmus' has no attribute {name!r}")
    globals()[name] = value      # cached: the next lookup is an ordinary attribute
    return value


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS) | set(_RENAMED) | set(_SUBMODULES))
