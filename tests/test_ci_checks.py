"""CI's sync check (tools/check_sync.sh) passes on the committed tree and fails when a module is edited by hand."""
import shutil, subprocess, sys
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
