# Two commands for a newcomer: `make lab` and `make test`. Everything else is for maintainers.
VENV ?= .venv
PY := $(VENV)/bin/python
PYTHON ?= python3
# the exact versions that made the stored outputs, and each dependency at pyproject's lower bound;
# both written by `make lock` with uv, which lives in its own venv and is needed by nothing else
LOCK := requirements/lock.txt
LOWEST := requirements/lowest.txt
LOWEST_VENV := .venv-lowest
TOOLS := .venv-tools
UV := uv==0.13.9
COMPILE = $(TOOLS)/bin/uv pip compile pyproject.toml --extra test --python-version 3.11 --python-platform linux \
	--upgrade --quiet --custom-compile-command "make lock"

.PHONY: lab test test-lowest lock report bench notebooks lint clean

# A venv ($(1)) with exactly the versions of a requirements file ($(2)), then this package without
# dependencies; a venv made here tells git to ignore it.
define install
	test -x $(1)/bin/python || { $(PYTHON) -m venv $(1) && echo '*' > $(1)/.gitignore; }
	$(1)/bin/python -m pip install --quiet --upgrade pip
	$(1)/bin/python -m pip install --quiet -r $(2)
	$(1)/bin/python -m pip install --quiet --no-deps -e .
	touch $@
endef

$(VENV)/.locked: $(LOCK) pyproject.toml
	$(call install,$(VENV),$(LOCK))

$(LOWEST_VENV)/.locked: $(LOWEST) pyproject.toml
	$(call install,$(LOWEST_VENV),$(LOWEST))

$(VENV)/.bench: $(VENV)/.locked
	$(PY) -m pip install --quiet -e '.[bench]'
	touch $@

ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root)
CHAPTERS := $(sort $(wildcard chapter[0-9]*))  # discovered: adding chapterNN/ needs no edit here

lab: $(VENV)/.locked ## set up and open JupyterLab on the chapters, the first one open
	$(VENV)/bin/jupyter lab $(ROOT_FLAG) --LabApp.default_url=/lab/tree/$(firstword $(CHAPTERS))

test: $(VENV)/.locked ## set up and run every test: lint, unit tests and every notebook (nbval)
	$(VENV)/bin/ruff check .
	$(PY) -m pytest --nbval

test-lowest: $(LOWEST_VENV)/.locked ## make test's suite under the lowest versions pyproject declares
	$(LOWEST_VENV)/bin/ruff check .
	$(LOWEST_VENV)/bin/python -m pytest --nbval

lock: ## refresh the lock and the lowest versions, environment.yml, then re-execute the notebooks
	test -x $(TOOLS)/bin/uv || { $(PYTHON) -m venv $(TOOLS) && echo '*' > $(TOOLS)/.gitignore \
		&& $(TOOLS)/bin/pip install --quiet $(UV); }
	$(COMPILE) -o $(LOCK)
	$(COMPILE) --resolution lowest-direct -o $(LOWEST)
	{ sed '/^  - pip:$$/q' environment.yml; sed -n 's/^\([^ #].*==.*\)/      - \1/p' $(LOCK); \
		echo '      - -e .'; } > environment.yml.new && mv environment.yml.new environment.yml
	$(MAKE) notebooks

report: $(VENV)/.locked ## print every chapter's text report
	for chapter in $(CHAPTERS); do $(PY) -m llm_from_scratch.ch$${chapter#chapter} || exit 1; done

bench: $(VENV)/.bench ## the reading engine, the tiled head, numpy and PyTorch side by side; checks and explorers
	$(PY) benchmarks/bench_head.py
	$(PY) benchmarks/profile_head.py
	$(PY) benchmarks/bench_checks.py
	$(PY) benchmarks/bench_widgets.py

notebooks: $(VENV)/.locked ## re-execute every chapter's notebooks in place (commit the result)
	$(PY) -m tools.notebooks

lint: $(VENV)/.locked ## ruff over the package, tests, benchmarks and the notebooks' code cells
	$(VENV)/bin/ruff check .

clean:
	rm -rf $(VENV) $(LOWEST_VENV) $(TOOLS) artifacts .pytest_cache
