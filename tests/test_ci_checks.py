"""CI's checks hold: the sync check passes on the committed tree and fails on a hand-edited module, no chapter cell is
over 60 lines, and the mutation check names only tests and mutants that exist."""
import json, subprocess, sys
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


@pytest.fixture()
def clone(tmp_path):
    subprocess.run(["git", "clone", "-q", str(ROOT), str(tmp_path / "repo")], check=True)
    return tmp_path / "repo"


def commit_all(repo, message):
    "Commit in the clone, as a hand edit that reached main would be."
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", message], cwd=repo, check=True)


def check(repo):
    return subprocess.run(["bash", "tools/check_sync.sh", str(BIN)], cwd=repo, capture_output=True, text=True)


def test_clean_clone_is_in_sync(clone):
    run = check(clone)
    assert run.returncode == 0, run.stdout + run.stderr


def test_module_edited_without_its_notebook_fails(clone):
    viz = clone / "limn" / "viz.py"
    viz.write_text(viz.read_text() + "\nEDITED_BY_HAND = True\n")
    commit_all(clone, "edit a module by hand")
    run = check(clone)
    assert run.returncode != 0 and "nbdev-export changed modules" in run.stderr and "limn/viz.py" in run.stderr


def test_readme_edited_without_the_front_page_fails(clone):
    readme = clone / "README.md"
    readme.write_text(readme.read_text() + "\nedited by hand\n")
    commit_all(clone, "edit the README by hand")
    run = check(clone)
    assert run.returncode != 0 and "README.md is made from nbs/index.ipynb" in run.stderr


# One idea per cell (CONVENTIONS.md): no code cell in any chapter runs past MAX_CELL_LINES lines.
MAX_CELL_LINES = 60


def long_cells(nbs: Path = ROOT / "nbs", limit: int = MAX_CELL_LINES) -> list[tuple[str, str, int]]:
    "(notebook relative to nbs/, cell id, line count) of every code cell longer than `limit` lines, in every chapter."
    found = []
    for path in sorted(nbs.rglob("*.ipynb")):
        if any(part.startswith((".", "_")) for part in path.relative_to(nbs).parts): continue   # _proc/, checkpoints
        for index, cell in enumerate(json.loads(path.read_text())["cells"]):
            if cell["cell_type"] != "code": continue
            lines = len("".join(cell["source"]).splitlines())
            if lines > limit: found.append((path.relative_to(nbs).as_posix(), cell.get("id", f"#{index}"), lines))
    return found


def test_long_cells_finds_a_long_cell(tmp_path):
    "The check itself: a 61-line cell is found and named, a 60-line cell is not."
    cells = [{"cell_type": "code", "id": "short", "source": ["x = 1\n"] * 60, "metadata": {}, "outputs": []},
             {"cell_type": "code", "id": "long", "source": ["x = 1\n"] * 61, "metadata": {}, "outputs": []},
             {"cell_type": "markdown", "id": "prose", "source": ["words\n"] * 200, "metadata": {}}]
    (tmp_path / "part").mkdir()
    (tmp_path / "part" / "00_x.ipynb").write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    assert long_cells(tmp_path) == [("part/00_x.ipynb", "long", 61)]


def test_no_code_cell_is_over_60_lines():
    too_long = long_cells()
    assert not too_long, f"code cells over {MAX_CELL_LINES} lines (split them, one idea per cell): " + ", ".join(
        f"{nb} cell {cell} ({n} lines)" for nb, cell, n in too_long)


def _mutants_tool():
    import importlib.util
    spec = importlib.util.spec_from_file_location("mutants_tool", ROOT / "tools" / "mutants.py")
    tool = sys.modules["mutants_tool"] = importlib.util.module_from_spec(spec)   # dataclasses look their module up
    spec.loader.exec_module(tool)
    return tool


def test_every_test_the_mutation_map_names_exists():
    """A mapped target that does not exist fails pytest for every mutant, which would count as a kill: each file, class
    and test the map names must be there, and each chapter."""
    tool = _mutants_tool()
    for module, (chapter, targets) in tool.TESTS.items():
        assert (ROOT / chapter).exists(), (module, chapter)
        for target in targets:
            path, *names = target.split("::")
            assert (ROOT / path).exists(), (module, target)
            text = (ROOT / path).read_text()
            for name in names:
                assert f"class {name}" in text or f"def {name}(" in text, (module, target)


def test_every_allowed_mutant_is_a_mutant_of_the_code_with_a_reason():
    """tools/mutants_allow.txt lists equivalent (or slack) mutants by key: each key must still name a candidate mutant
    of today's code, so an entry cannot outlive the line it excuses, and each gives its reason."""
    tool = _mutants_tool()
    named = {}                                  # module -> the line texts the entries name (`module:line :: old -> new`)
    for key in tool.allowed():
        module, _, rest = key.partition(":")
        named.setdefault(module, set()).add(rest.rsplit(" :: ", 1)[0])
    keys = {c.key for module in tool.TESTS if module in named for c in tool.candidates(module, lines_like=named[module])}
    for key, reason in tool.allowed().items():
        assert key in keys, f"stale allow-list entry (no such mutant today): {key}"
        assert len(reason) > 20, key

