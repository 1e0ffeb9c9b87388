# Two commands set up everything on a fresh Debian machine and run the project:
#   make demo   the tour: limn's first example, its IR, and litmus on a corpus kernel
#   make test   every chapter (nbdev-test) and every suite in tests/ (pytest), on both cores (about 11 minutes on this 2-core machine idle: 640 s measured in session 13; the target is 5)
#   make test-long   the same, plus the soaks (each check's full case count; tests marked `long`)
# Both create .venv and install the project into it when it is missing or older than pyproject.toml,
# and install the Debian packages the project needs (tools/system-deps.sh).

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test test-long test-soaks docs lab install mutants

$(STAMP): pyproject.toml tools/system-deps.sh
	@bash tools/system-deps.sh
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	# the CPU build of torch first (an unpinned torch would pull a CUDA build of several GB)
	$(BIN)/python -m pip install -q torch==2.13.0
	# compat mode puts src/ on sys.path, so a new module is importable without reinstalling, and `import litmus` inside nbs/ finds the package
	# (a regular package wins over nbs/litmus/, a folder of notebooks with the same name)
	$(BIN)/python -m pip install -q --config-settings editable_mode=compat -e ".[dev,triton]"
	# bytecode for every module, as a regular pip install writes it: a cold `litmus check` then skips compiling them
	# (this environment may set PYTHONDONTWRITEBYTECODE; a stale .pyc is only recompiled in memory, never wrong)
	$(BIN)/python -m compileall -q src
	# and pytest's assertion-rewritten test modules, which it caches only where bytecode may be written: without them each
	# of `make test`'s workers rewrites every test file again (about 9 s of CPU each)
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest --collect-only -q -p no:cacheprovider > /dev/null
	@touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/python examples/tour.py

# nbdev-test and pytest (pytest-xdist, a file per worker) run side by side on two workers each, sharing one compiled-kernel
# cache made for the run; each prints its summary and its time (tools/run_tests.sh, tests/conftest.py)
test: $(STAMP)
	@bash tools/run_tests.sh $(BIN) short

test-long: $(STAMP)
	@bash tools/run_tests.sh $(BIN) long

# only the soaks that `make test` leaves out (CI runs them after `make test` when its time allows)
test-soaks: $(STAMP)
	@bash tools/run_tests.sh $(BIN) soaks

docs: $(STAMP)
	$(BIN)/python tools/build_docs.py

lab: $(STAMP)
	$(BIN)/jupyter lab nbs

# a seeded sample of one-token mutants of the core, each run against the tests mapped to its module (about 30 minutes);
# not part of `make test`. Survivors are listed with their lines; equivalent ones go in tools/mutants_allow.txt.
mutants: $(STAMP)
	$(BIN)/python tools/mutants.py
