# Two commands for a newcomer: `make lab` and `make test`. Everything else is for maintainers.
VENV ?= .venv
PY := $(VENV)/bin/python
PYTHON ?= python3

.PHONY: lab test report bench notebooks lint clean

$(VENV)/.base: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e .
	touch $@

$(VENV)/.test: $(VENV)/.base
	$(PY) -m pip install --quiet -e '.[test]'
	touch $@

$(VENV)/.bench: $(VENV)/.base
	$(PY) -m pip install --quiet -e '.[bench]'
	touch $@

ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root)

lab: $(VENV)/.base ## set up and open JupyterLab on the chapter
	$(VENV)/bin/jupyter lab $(ROOT_FLAG) chapter27/

test: $(VENV)/.test ## set up and run every test: lint, unit tests and every notebook (nbval)
	$(VENV)/bin/ruff check src tests benchmarks
	$(PY) -m pytest --nbval

report: $(VENV)/.base ## print the chapter's text report
	$(PY) -m llm_from_scratch.ch27

bench: $(VENV)/.bench ## benchmark the head (engine vs closed form vs PyTorch) and the explorers' latency
	MALLOC_MMAP_THRESHOLD_=4294967296 MALLOC_TRIM_THRESHOLD_=68719476736 $(PY) benchmarks/bench_head.py
	MALLOC_MMAP_THRESHOLD_=4294967296 MALLOC_TRIM_THRESHOLD_=68719476736 $(PY) benchmarks/profile_head.py
	$(PY) benchmarks/bench_widgets.py

notebooks: $(VENV)/.test ## re-execute every notebook in place (commit the result)
	$(PY) -m llm_from_scratch.ch27.notebooks chapter27

lint: $(VENV)/.test
	$(VENV)/bin/ruff check src tests benchmarks

clean:
	rm -rf $(VENV) artifacts .pytest_cache
