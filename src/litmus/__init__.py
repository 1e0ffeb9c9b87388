"""litmus: a verifier for GPU kernels written in Triton.

It bounds the error a correct kernel may have (litmus.bounds), proves memory safety for all shapes
(litmus.safety), runs kernels without a GPU (litmus.simulate), looks for an input that breaks the bound
(litmus.falsify), holds a labelled corpus of kernels (litmus.corpus), and turns all of it into ACCEPT, REJECT
or UNKNOWN (litmus.check, and the `litmus` command line in litmus.cli). The modules are exported from the
notebooks in nbs/litmus/.

    from litmus import ToleranceBound, GPUSafetyCheck, TargetedFalsification
    from litmus.check import check      # the pipeline: check('softmax_nomaxsub').verdict == 'REJECT'
"""
__version__ = "0.0.1"

from .affine import Interval, Affine
from .spec import Spec, parse as parse_spec, classify
from .bounds import ToleranceBound, heuristic_tolerance
from .safety import GPUSafetyCheck
from .shapes import SymbolicShapeSpace
from . import corpus
from .falsify import TargetedFalsification
