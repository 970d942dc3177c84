# The two commands of the README: `make demo` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin

.PHONY: demo test docs bench clean

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

$(VENV)/.stamp-bench: $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e ".[bench,test,examples]"
	touch $@

demo: $(VENV)/.stamp-run
	$(BIN)/python -m sklearn_pgtm.demo

test: $(VENV)/.stamp-test
	$(BIN)/python -m pytest

docs: $(VENV)/.stamp-docs
	$(BIN)/python -m sphinx -b html -W --keep-going doc doc/_build/html

bench: $(VENV)/.stamp-bench
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf $(VENV) doc/_build build *.egg-info
