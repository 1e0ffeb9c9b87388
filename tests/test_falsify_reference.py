"""A KernelBench reference `class Model` with drawn state (nn.Linear, nn.Parameter(torch.randn(...))) cannot be held
against a kernel that never receives those weights: it is a usage error naming the state and what to write instead,
read from the file before anything runs (chapter 13's reference_arg) and checked again on the built Model inside the
reference's box (chapter 12's load_reference). A Model whose state is a constant fill (nn.LayerNorm's ones and zeros)
is still a reference."""
from pathlib import Path
import pytest
from litmus import corpus
from litmus.check import check
from litmus.cli import main
from litmus.falsify import load_reference, model_state

KB = Path(__file__).resolve().parent / "launchers" / "kb"
STATEFUL = {
    "linear": "self.linear = nn.Linear(n, n)",
    "parameter": "self.weight = nn.Parameter(torch.randn(n))",
    "buffer": "self.register_buffer('w', torch.rand(n))",
}
MODEL = '''import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, n):
        super().__init__()
        {state}

    def forward(self, x):
        return x


def get_inputs():
    return [torch.randn(1000)]


def get_init_inputs():
    return [1000]
'''


def write(tmp_path, state):
    path = tmp_path / "ref.py"
    path.write_text(MODEL.format(state=state))
    return path


@pytest.mark.parametrize("kind", sorted(STATEFUL))
def test_a_model_with_drawn_state_is_a_usage_error_naming_it(tmp_path, capsys, kind):
    path = write(tmp_path, STATEFUL[kind])
    assert model_state(path) and "line 8" in model_state(path)[0]
    with pytest.raises(ValueError, match=r"holds state .*def reference"):
        check("vadd", str(path), quick=True)
    assert main(["check", str(corpus.get("vadd").path), "--quick", "--ref", str(path)]) == 3
    assert "holds state" in capsys.readouterr().err
    with pytest.raises(ValueError, match="holds state"):      # the box's own check, on the Model as built
        load_reference(path)


def test_a_model_whose_state_is_a_constant_fill_is_a_reference(tmp_path):
    path = write(tmp_path, "self.scale = nn.Parameter(torch.ones(n))")
    assert model_state(path) == []
    assert load_reference(path) is not None
    assert model_state(KB / "kb_layernorm_ref.py") == []   # nn.LayerNorm: ones and zeros


def test_a_drawn_value_behind_a_constant_looking_call_is_caught_in_the_box(tmp_path):
    "Read as a constant fill, built as a drawn one: the box's check on the values decides."
    path = write(tmp_path, "self.scale = nn.Parameter(torch.ones(n) * torch.randn(n))")
    with pytest.raises(ValueError, match="holds state"):
        load_reference(path)


def test_the_benchmark_layernorm_module_still_accepts(capsys):
    assert main(["check", str(KB / "kb_layernorm.py"), "--quick", "--ref", str(KB / "kb_layernorm_ref.py")]) == 0
