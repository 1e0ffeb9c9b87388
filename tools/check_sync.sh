#!/usr/bin/env bash
# The notebooks are the source. Fails when exporting them would change a committed module, when cleaning
# them would change a notebook, or when README.md is not what nbs/index.ipynb makes.
# Usage: tools/check_sync.sh [BIN]   (BIN: folder holding nbdev-export, nbdev-clean and python; default .venv/bin)
set -euo pipefail
bin=${1:-.venv/bin}
"$bin/nbdev-export"
if [ -n "$(git status --porcelain -- src)" ]; then
  echo "FAIL: nbdev-export changed modules; edit the notebook, export, and commit both:" >&2
  git status --porcelain -- src >&2
  exit 1
fi
"$bin/nbdev-clean"
if [ -n "$(git status --porcelain -- nbs/*.ipynb nbs/limn nbs/litmus nbs/bridge)" ]; then
  echo "FAIL: nbdev-clean changed notebooks; run nbdev-clean and commit:" >&2
  git status --porcelain -- nbs >&2
  exit 1
fi
"$bin/python" tools/build_docs.py --readme >/dev/null
if [ -n "$(git status --porcelain -- README.md)" ]; then
  echo "FAIL: README.md is made from nbs/index.ipynb; run: python tools/build_docs.py --readme, and commit it" >&2
  exit 1
fi
echo "notebooks, modules and README agree"
