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
CHAPTERS := $(sort $(wildcard chapter[0-9]*))  # discovered: adding chapterNN/ needs no edit here

lab: $(VENV)/.base ## set up and open JupyterLab on the chapters, the first one open
	$(VENV)/bin/jupyter lab $(ROOT_FLAG) --ServerApp.default_url=/lab/tree/$(firstword $(CHAPTERS))

test: $(VENV)/.test ## set up and run every test: lint, unit tests and every notebook (nbval)
	$(VENV)/bin/ruff check .
	$(PY) -m pytest --nbval

report: $(VENV)/.base ## print every chapter's text report
	for chapter in $(CHAPTERS); do $(PY) -m llm_from_scratch.ch$${chapter#chapter} || exit 1; done

bench: $(VENV)/.bench ## benchmark the head and the tiled head (vs numpy and PyTorch, plain process) and the explorers' latency
	$(PY) benchmarks/bench_head.py
	$(PY) benchmarks/profile_head.py
	$(PY) benchmarks/bench_widgets.py

notebooks: $(VENV)/.test ## re-execute every chapter's notebooks in place (commit the result)
	$(PY) -m llm_from_scratch.book.notebooks

lint: $(VENV)/.test ## ruff over the package, tests, benchmarks and the notebooks' code cells
	$(VENV)/bin/ruff check .

clean:
	rm -rf $(VENV) artifacts .pytest_cache
