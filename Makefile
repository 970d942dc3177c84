# The commands of the README: `make demo`, `make test`, `make docs`, and what CI
# runs (.ci/run): `make test`, `make docs`, `make dist-check`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
SPHINX := $(BIN)/python -m sphinx -b html -W --keep-going

.PHONY: demo test docs docs-noplot dist-check bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.stamp-run: $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.stamp-test: $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e ".[test]"
	touch $@

$(VENV)/.stamp-docs: $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e ".[docs,examples]"
	touch $@

$(VENV)/.stamp-dist: $(BIN)/python
	$(BIN)/python -m pip install --quiet build
	touch $@

$(VENV)/.stamp-bench: $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e ".[bench,test,examples]"
	touch $@

demo: $(VENV)/.stamp-run
	$(BIN)/python -m sklearn_pgtm.demo

test: $(VENV)/.stamp-test
	$(BIN)/python -m pytest

# The site with the examples gallery executed; warnings are errors.
docs: $(VENV)/.stamp-docs
	$(SPHINX) doc doc/_build/html

# The same without running the examples (quick check of the text).
docs-noplot: $(VENV)/.stamp-docs
	$(SPHINX) -D plot_gallery=0 doc doc/_build/html

# sdist + wheel, each installed into a fresh venv and smoke-tested there.
dist-check: $(VENV)/.stamp-dist
	$(BIN)/python .ci/dist_check.py

bench: $(VENV)/.stamp-bench
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf $(VENV) doc/_build doc/generated doc/auto_examples doc/sg_execution_times.rst \
		build dist *.egg-info
