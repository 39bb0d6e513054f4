# Two commands for a newcomer: `make lab` and `make test`. Everything else is for maintainers.
VENV ?= .venv
PY := $(VENV)/bin/python
PYTHON ?= python3
# The Pythons CI proves (tools/lock.py names the same): another one is refused in one line, before anything is made.
SUPPORTED := 3.11 3.12 3.13
OLDEST := $(firstword $(SUPPORTED))
# The exact versions that made the stored outputs, one universal lock for every supported Python (a pin has a
# marker where a package differs), and each dependency at pyproject's lower bound for the oldest Python; both
# written by `make lock` with uv, which lives in its own venv and is needed by nothing else.
LOCK := requirements/lock.txt
LOWEST := requirements/lowest.txt
LOWEST_VENV := .venv-lowest
TOOLS := .venv-tools
UV := uv==0.13.9
# `make lock` moves every package to its newest release; `make lock UPGRADE="--upgrade-package NAME"` adds or moves
# NAME alone and keeps every other pin, so no stored output changes
UPGRADE ?= --upgrade
COMPILE = $(TOOLS)/bin/uv pip compile pyproject.toml --extra test --python-version $(OLDEST) $(UPGRADE) --quiet \
	--custom-compile-command "make lock"

.PHONY: lab notebook7 test check test-lowest lock report bench notebooks lint clean FORCE

# The interpreter PYTHON names, found where .ci/run finds one (tools/find-python: PATH, then pyenv's installed
# versions, whose shims refuse a version not selected); looked up once, when a recipe first needs it
FOUND = $(eval FOUND := $$(shell tools/find-python $$(PYTHON)))$(FOUND)
minor = $(shell $(1) -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)

# $(FOUND) is one of the Pythons $(1), or make stops with one line that names them
check_python = $(if $(FOUND),$(FOUND) -c 'import sys; v = "%d.%d" % sys.version_info[:2]; sys.exit(None if v in \
	"$(1)".split() else "$(PYTHON) is Python " + v + "; this needs Python $(1): for example make \
	PYTHON=python$(lastword $(1)) $(or $(MAKECMDGOALS),test)")',{ echo "make: PYTHON=$(PYTHON) is no Python that \
	can make a venv here (not on PATH, not in pyenv's versions)" >&2; exit 1; })

# A venv made by another Python than the one PYTHON names, when PYTHON is given (make PYTHON=…, or the
# environment): its stamp is out of date, and the recipe says so in one line and makes it anew. Without PYTHON, a
# venv keeps the Python it was made by.
stale = $(and $(filter command line environment,$(origin PYTHON)),$(wildcard $(1)/bin/python),$(filter-out \
	$(call minor,$(1)/bin/python),$(call minor,$(FOUND))))
anew = $(if $(call stale,$(1)),FORCE)
made_by = make: $(1) was made by Python $(call minor,$(1)/bin/python) and PYTHON=$(PYTHON) is Python
remake_if_stale = $(if $(call stale,$(1)),@$(call check_python,$(2)) && echo "$(made_by) $(call minor,$(FOUND)): \
	making $(1) anew" && rm -rf $(1))

# A venv ($(1)) made by a Python among $(3), with exactly the versions of a requirements file ($(2)), then
# this package without dependencies, and the settings its JupyterLab needs (written into the venv only: kernel
# messages sent at once, no news prompt); a venv made here tells git to ignore it.
define install
	$(call remake_if_stale,$(1),$(3))
	@test -x $(1)/bin/python || $(call check_python,$(3))
	test -x $(1)/bin/python || { $(FOUND) -m venv $(1) && echo '*' > $(1)/.gitignore; }
	$(1)/bin/python -m pip install --quiet --upgrade pip
	$(1)/bin/python -m pip install --quiet -r $(2)
	$(1)/bin/python -m pip install --quiet --no-deps -e .
	$(1)/bin/python -m llm_from_scratch.book.lab_settings
	touch $@
endef

$(VENV)/.locked: $(LOCK) pyproject.toml $(call anew,$(VENV))
	$(call install,$(VENV),$(LOCK),$(SUPPORTED))

$(LOWEST_VENV)/.locked: $(LOWEST) pyproject.toml $(call anew,$(LOWEST_VENV))
	$(call install,$(LOWEST_VENV),$(LOWEST),$(OLDEST))

$(VENV)/.bench: $(VENV)/.locked
	$(PY) -m pip install --quiet -e '.[bench]'
	touch $@

ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root)
CHAPTERS := $(sort $(wildcard chapter[0-9]*))  # discovered: adding chapterNN/ needs no edit here

lab: $(VENV)/.locked ## set up and open JupyterLab on the chapters, the first one open
	$(VENV)/bin/jupyter lab $(ROOT_FLAG) --LabApp.default_url=/lab/tree/$(firstword $(CHAPTERS))

notebook7: $(VENV)/.locked ## the same in Jupyter Notebook 7 (the test extra installs it, its minor JupyterLab's)
	$(VENV)/bin/jupyter notebook $(ROOT_FLAG) --JupyterNotebookApp.default_url=/tree/$(firstword $(CHAPTERS))

# The tiers (README, "For maintainers"): the quick one has no kernel, no browser and no slow test; make test runs
# every tier, the browser one beside the others. Both use the two cores (pytest-xdist): a test module, or a
# notebook's cells, runs whole in one process, so a module's fixtures (a JupyterLab server, a notebook run) are
# made once. Both print their wall time.
QUICK := -m "not notebook and not browser and not slow"
PARALLEL := -n 2 --dist loadscope
timed = start=$$(date +%s); $(1); status=$$?; echo "make $@: $$(( $$(date +%s) - start )) s of wall time"; exit $$status

test: $(VENV)/.locked ## set up and run every test: lint, unit tests, every notebook (nbval) and the browser test
	@$(call timed,$(VENV)/bin/ruff check . && $(PY) -m pytest --nbval $(PARALLEL))

check: $(VENV)/.locked ## after every edit: lint and the quick tier (no kernel, no browser, no slow test), within 60 s
	@$(call timed,$(VENV)/bin/ruff check . && $(PY) -m pytest -q -n 2 $(QUICK))

# the lowest versions leave out only the rest of each exhaustive walk (marked walk): it repeats its quick sample's
# calls on more inputs of the chapter's own, so no version can fail it that its sample, which runs, would not fail
test-lowest: $(LOWEST_VENV)/.locked ## make test's suite under the lowest versions pyproject declares (no walk's rest)
	@$(call timed,$(LOWEST_VENV)/bin/ruff check . && $(LOWEST_VENV)/bin/python -m pytest --nbval $(PARALLEL) \
		-m "not walk")

lock: ## refresh the lock and the lowest versions, environment.yml, then re-execute the notebooks
	test -x $(TOOLS)/bin/uv || { $(FOUND) -m venv $(TOOLS) && echo '*' > $(TOOLS)/.gitignore \
		&& $(TOOLS)/bin/pip install --quiet $(UV); }
	$(COMPILE) --universal --fork-strategy fewest -o $(LOCK)
	$(COMPILE) --python-platform linux --resolution lowest-direct -o $(LOWEST)
	$(MAKE) $(VENV)/.locked
	$(PY) -m tools.lock environment
	$(MAKE) notebooks

report: $(VENV)/.locked ## print every chapter's text report
	for chapter in $(CHAPTERS); do $(PY) -m llm_from_scratch.ch$${chapter#chapter} || exit 1; done

bench: $(VENV)/.bench ## the reading engine, the tiled head, numpy and PyTorch side by side; checks and explorers
	$(PY) benchmarks/bench_head.py
	$(PY) benchmarks/profile_head.py
	$(PY) benchmarks/bench_checks.py
	$(PY) benchmarks/bench_enter.py
	$(PY) benchmarks/bench_paths.py
	$(PY) benchmarks/bench_widgets.py

notebooks: $(VENV)/.locked ## carry the source edition's code cells into the others, then re-execute every notebook (commit)
	$(PY) -m tools.editions && $(PY) -m tools.notebooks

lint: $(VENV)/.locked ## ruff over the package, tests, benchmarks and the notebooks' code cells
	$(VENV)/bin/ruff check .

FORCE:

clean:
	rm -rf $(VENV) $(LOWEST_VENV) $(TOOLS) artifacts .pytest_cache
