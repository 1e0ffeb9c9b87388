"""CI's checks hold: the sync check passes on the committed tree and fails on a hand-edited module, no chapter cell is
over 60 lines, the mutation check names only tests and mutants that exist, and the reading order is the import order
(a chapter imports only chapters before it; limn imports nothing of litmus)."""
import ast, json, re, statistics, subprocess, sys
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


HAND_EDITED = ["src/limn/ops.py", "src/litmus/affine.py", "src/viz/__init__.py"]   # one module of each package


def test_module_edited_without_its_notebook_fails(clone):
    """A module of each package edited by hand, all in one commit: the check fails and names every one of them (the
    names come from `git status` after the export, so each is named only if the export restored it). One clone and
    one check serve the three, where a clone and a check each cost seconds."""
    for module in HAND_EDITED:
        edited = clone / module
        edited.write_text(edited.read_text() + "\nEDITED_BY_HAND = True\n")
    commit_all(clone, "edit a module of each package by hand")
    run = check(clone)
    assert run.returncode != 0 and "nbdev-export changed modules" in run.stderr, run.stdout + run.stderr
    for module in HAND_EDITED:
        assert module in run.stderr, (module, run.stderr)


def test_the_committed_tree_is_in_sync_and_a_hand_edited_readme_fails(clone):
    """One check on a clone whose README was edited by hand holds all of the committed tree's sync: the check reaches
    the README step only when exporting and cleaning changed nothing, it fails there naming the README, and the README
    it rebuilt from nbs/index.ipynb is the one committed before the edit (so the clean tree passes every step; one
    run of the check, which executes the front page, where a clean run and an edited run would each cost one)."""
    readme = clone / "README.md"
    committed = readme.read_text()
    readme.write_text(committed + "\nedited by hand\n")
    commit_all(clone, "edit the README by hand")
    run = check(clone)
    assert run.returncode != 0 and "README.md is made from nbs/index.ipynb" in run.stderr, run.stdout + run.stderr
    assert "nbdev-export changed" not in run.stderr and "nbdev-clean changed" not in run.stderr, run.stderr
    assert readme.read_text() == committed, "the README built from nbs/index.ipynb differs from the committed one"


# One idea per cell (CONVENTIONS.md): no code cell in any chapter runs past MAX_CELL_LINES lines.
MAX_CELL_LINES = 60


def long_cells(nbs: Path = ROOT / "nbs", limit: int = MAX_CELL_LINES) -> list[tuple[str, str, int]]:
    "(notebook relative to nbs/, cell id, line count) of every code cell longer than `limit` lines, in every chapter."
    found = []
    for path in sorted(nbs.rglob("*.ipynb")):
        if any(part.startswith((".", "_")) for part in path.relative_to(nbs).parts):
            continue   # _proc/, checkpoints
        for index, cell in enumerate(json.loads(path.read_text())["cells"]):
            if cell["cell_type"] != "code":
                continue
            lines = len("".join(cell["source"]).splitlines())
            if lines > limit:
                found.append((path.relative_to(nbs).as_posix(), cell.get("id", f"#{index}"), lines))
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


# A chapter teaches in small steps (issue #29): its median code cell is at most MEDIAN_CELL_LINES lines, and no more than
# MAX_UNSHOWN_LINES exported lines go by without an example (a code cell that is not exported) that runs them.
MEDIAN_CELL_LINES = 15
MAX_UNSHOWN_LINES = 150


def cell_shape(path: Path) -> tuple[float, int]:
    "(median lines of the notebook's non-empty code cells, longest run of exported lines with no example between)."
    code = [c for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code" and "".join(c["source"]).strip()]
    lengths = [len("".join(c["source"]).splitlines()) for c in code]
    run = longest = 0
    for cell, lines in zip(code, lengths):
        if re.match(r"\s*#\|\s*export", "".join(cell["source"])):
            run += lines
            longest = max(longest, run)
        else:
            run = 0
    return (statistics.median(lengths) if lengths else 0), longest


def test_cell_shape_measures_median_and_unshown_run(tmp_path):
    "The check itself: three exported cells of 40 lines in a row are a run of 120; an example cell ends a run."
    def cell(lines, export):
        return {"cell_type": "code", "id": "x", "metadata": {}, "outputs": [],
                "source": (["#| export\n"] if export else []) + ["x = 1\n"] * lines}
    cells = [cell(39, True), cell(39, True), cell(39, True), cell(3, False), cell(59, True), cell(2, False)]
    path = tmp_path / "00_x.ipynb"
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    assert cell_shape(path) == (40, 120)


def test_every_chapter_teaches_in_small_steps():
    nbs = ROOT / "nbs"
    wide = []
    for path in sorted(nbs.rglob("*.ipynb")):
        if any(part.startswith((".", "_")) for part in path.relative_to(nbs).parts):
            continue   # _proc/, checkpoints
        median, longest = cell_shape(path)
        if median > MEDIAN_CELL_LINES or longest > MAX_UNSHOWN_LINES:
            wide.append(f"{path.relative_to(nbs)}: median code cell {median} lines, {longest} exported lines without an example")
    assert not wide, "; ".join(wide)


def test_exported_code_has_one_statement_per_line():
    "ruff's E701/E702/E703 (no `if x: y`, no `a; b`, no trailing `;`) find nothing in the exported modules."
    run = subprocess.run([str(BIN / "ruff"), "check", "--select", "E701,E702,E703", "src"],
                         cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def test_plain_code_check_passes():
    "tools/plain_code.py --check: no exported notebook cell joins statements (the notebooks are the source)."
    run = subprocess.run([sys.executable, "tools/plain_code.py", "--check"], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def test_plain_code_rewrites_and_proves(tmp_path):
    "The tool itself: each form is split onto its own lines, comments and strings survive, and the AST is unchanged."
    import importlib.util
    spec = importlib.util.spec_from_file_location("plain_code", ROOT / "tools" / "plain_code.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    old = ("#| export\nif a: b; c\nelif d: e  # why\nelse: f;\ntry: x = 'p; q: r'\nexcept E as e: raise T from e\n"
           "@dec\ndef f(a,\n      b): return [a,\n                  b]\nclass A: pass\n")
    new = tool.plain(old)
    assert tool.same_ast(old, new) and not tool.joined(tool.Source(new)), new
    assert new == ("#| export\nif a:\n    b\n    c\nelif d:\n    e  # why\nelse:\n    f\ntry:\n    x = 'p; q: r'\n"
                   "except E as e:\n    raise T from e\n@dec\ndef f(a,\n      b):\n    return [a,\n            b]\n"
                   "class A:\n    pass\n"), new
    assert sorted(kind for kind, _ in tool.joined(tool.Source(old))) == ["E701"] * 7 + ["E702", "E703"]


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



# ---- reading order = import order -------------------------------------------------------------------------------------
# The course is read in parts: the top-level chapters (nbs/*.ipynb, the shared drawing package), Part I limn, Part II
# litmus, Part III the bridge; inside a part, by chapter number. A chapter may import (in any code cell, exported or not)
# only modules exported by chapters before it. There is no exception list.
PART_ORDER = ("", "limn", "litmus", "bridge")


def module_of_default_exp(default_exp: str) -> str:
    "The module a `#| default_exp` names: nbdev exports into src/, so `limn.tensor` is src/limn/tensor.py and `viz.__init__` is viz."
    return default_exp.removesuffix(".__init__")


def course(nbs: Path) -> list[dict]:
    "Every numbered chapter under `nbs`, in reading order: its path, its position, its module, its code cells."
    found = []
    for path in nbs.rglob("*.ipynb"):
        rel = path.relative_to(nbs)
        if any(part.startswith((".", "_")) for part in rel.parts) or not re.match(r"\d+_", path.stem):
            continue   # checkpoints, _proc/, and the front page (index.ipynb is no chapter)
        part = rel.parts[0] if len(rel.parts) > 1 else ""
        assert part in PART_ORDER, f"{rel}: part {part!r} has no place in the reading order {PART_ORDER}"
        cells = ["".join(c["source"]) for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code"]
        default_exp = next((m.group(1) for s in cells if (m := re.search(r"^#\|\s*default_exp\s+(\S+)", s, re.M))), None)
        module = module_of_default_exp(default_exp) if default_exp else None
        found.append({"path": rel.as_posix(), "position": (PART_ORDER.index(part), int(path.stem.split("_")[0])),
                      "module": module, "cells": cells})
    return sorted(found, key=lambda chapter: chapter["position"])


def package_exports(root: Path, package: str) -> dict:
    """Name -> module for what a package's hand-written __init__.py re-exports (`from .tensor import Tensor`,
    `from . import nn`, or a lazy __init__'s `_EXPORTS` table)."""
    init = root / "src" / package / "__init__.py"
    exports = {}
    if not init.exists():
        return exports
    for node in ast.parse(init.read_text()).body:
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            for alias in node.names:
                source = f"{package}.{node.module}" if node.module else f"{package}.{alias.name}"
                exports[alias.asname or alias.name] = source
        # a lazy __init__ (PEP 562) keeps its re-exports in tables: _EXPORTS = {name: module}, _RENAMED = {name: (module, original)}
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] in (["_EXPORTS"], ["_RENAMED"]):
            for name, module in ast.literal_eval(node.value).items():
                exports[name] = f"{package}.{module if isinstance(module, str) else module[0]}"
    return exports


def cell_imports(source: str) -> list[str]:
    """Every module a code cell imports (dotted names, and `package.name` for each name of a `from` import); a bare
    `import limn` counts through the attributes the cell reads of it (`limn.grad` is `limn.grad`)."""
    code = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!")))
    tree = ast.parse(code)
    found, bare = [], {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.append(alias.name)
                if "." not in alias.name:
                    bare[alias.asname or alias.name] = alias.name
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append(node.module)
            found += [f"{node.module}.{alias.name}" for alias in node.names]
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in bare:
            found.append(f"{bare[node.value.id]}.{node.attr}")
    return found


def import_order_violations(root: Path) -> list[str]:
    "Each place a chapter under root/nbs imports a module of a chapter at or after its own place (itself excluded)."
    chapters = course(root / "nbs")
    position = {c["module"]: c["position"] for c in chapters if c["module"]}
    path_of = {c["module"]: c["path"] for c in chapters if c["module"]}
    exports = {package: package_exports(root, package) for package in {m.split(".")[0] for m in position}}

    def chapter_module(name: str) -> str | None:
        "The chapter module `name` is, is inside, or (for a package's re-export) comes from."
        package, _, rest = name.partition(".")
        first = rest.split(".")[0]
        if first in exports.get(package, {}) and f"{package}.{first}" not in position:
            name = exports[package][first]
        parts = name.split(".")
        for end in range(len(parts), 0, -1):
            if ".".join(parts[:end]) in position:
                return ".".join(parts[:end])
        return None

    problems = []
    for chapter in chapters:
        for index, source in enumerate(chapter["cells"]):
            for name in cell_imports(source):
                module = chapter_module(name)
                if module is None or module == chapter["module"]:
                    continue
                if position[module] >= chapter["position"]:
                    problems.append(f"{chapter['path']} (code cell {index}) imports {module}, the module of the later chapter "
                                    f"{path_of[module]}")
    return sorted(set(problems))


def test_import_order_finds_a_chapter_that_imports_a_later_one(tmp_path):
    "The check itself: an example cell importing a later chapter's module, through a package re-export, is named."
    def notebook(default_exp, *sources):
        cells = [{"cell_type": "code", "id": f"c{i}", "metadata": {}, "outputs": [], "source": [s]}
                 for i, s in enumerate([f"#| default_exp {default_exp}", *sources])]
        return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    (tmp_path / "nbs" / "limn").mkdir(parents=True)
    (tmp_path / "nbs" / "litmus").mkdir()
    (tmp_path / "src" / "limn").mkdir(parents=True)
    (tmp_path / "src" / "limn" / "__init__.py").write_text("from .second import Thing\n")
    (tmp_path / "nbs" / "limn" / "00_first.ipynb").write_text(notebook("limn.first", "import limn\nlimn.Thing()"))
    (tmp_path / "nbs" / "limn" / "01_second.ipynb").write_text(notebook("limn.second", "#| export\nfrom limn.first import x"))
    (tmp_path / "nbs" / "litmus" / "00_third.ipynb").write_text(notebook("litmus.third", "from limn.second import Thing"))
    assert import_order_violations(tmp_path) == [
        "limn/00_first.ipynb (code cell 1) imports limn.second, the module of the later chapter limn/01_second.ipynb"]
    (tmp_path / "nbs" / "limn" / "02_fourth.ipynb").write_text(notebook("limn.fourth", "from litmus.third import y"))
    assert len(import_order_violations(tmp_path)) == 2      # Part I importing Part II


def test_every_chapter_imports_only_chapters_before_it():
    problems = import_order_violations(ROOT)
    assert not problems, "a chapter imports a later one (reorder, or change the example):\n" + "\n".join(problems)


def imported_modules(path: Path):
    """(line, module name) of each import in a module, function-local ones included: plain imports, absolute
    from-imports and `import_module("...")` / `__import__("...")` with a literal."""
    for node in ast.walk(ast.parse(path.read_text())):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) in ("import_module", "__import__"):
            names = [a.value for a in node.args[:1] if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        for name in names:
            yield node.lineno, name


def litmus_imports_in_limn(root: Path) -> list[str]:
    "Each import of litmus (Part II, and the bridge in it) anywhere in limn's modules."
    return [f"{path.relative_to(root).as_posix()}:{line} imports {name}"
            for path in sorted((root / "src" / "limn").glob("*.py"))
            for line, name in imported_modules(path) if name.split(".")[0] in ("litmus", "bridge")]


def test_limn_imports_nothing_of_litmus():
    problems = litmus_imports_in_limn(ROOT)
    assert not problems, "limn (Part I) must not import litmus or the bridge:\n" + "\n".join(problems)


def limn_imports_in_litmus(root: Path) -> list[str]:
    "Each import of limn in litmus's modules, the bridge (Part III, src/litmus/bridge.py) excepted by its part: it joins the two."
    return [f"{path.relative_to(root).as_posix()}:{line} imports {name}"
            for path in sorted((root / "src" / "litmus").glob("*.py")) if path.name != "bridge.py"
            for line, name in imported_modules(path) if name.split(".")[0] == "limn"]


def test_litmus_imports_nothing_of_limn():
    "Part II stands on its own: it draws with the shared `viz` package, never with limn's modules."
    problems = limn_imports_in_litmus(ROOT)
    assert not problems, "litmus (Part II) must not import limn:\n" + "\n".join(problems)
