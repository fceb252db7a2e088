# floorgate: two commands for a newcomer (make run, make test), plus bench and lint.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
# make test's pytest-xdist workers for the tests not marked serial (TEST_WORKERS=0 runs them
# in pytest's own process). The run is bound by CPU, but some tests wait (switches, timeouts):
# 4 workers on a 2-core machine left 9% of it idle and took 7 min 29 s, where 3 took 8 min 28 s.
TEST_WORKERS ?= 4
# Each phase of make test ends with its 15 slowest tests: where the suite's time goes.
SLOWEST := --durations=15 --durations-min=1
PACKAGES := parsing routing storage resolvers schema rest

.PHONY: run reset test explore bench lint typecheck generate fmt clean image

$(STAMP): pyproject.toml setup.py parsing/_kernels.pyx
	@$(PYTHON) -c 'import sys; sys.exit(0 if (3, 11) <= sys.version_info < (3, 14) else "floorgate needs Python 3.11, 3.12 or 3.13 (pyproject.toml)")'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[embedded,dev]'
	@touch $(STAMP)

## make run: build .venv, start the embedded database, load the demo, serve https://localhost:8443
run: $(STAMP)
	$(VENV)/bin/floorgate demo

## make reset: drop the demo's database and load the demo anew (a new demo key); keeps the CA
reset: $(STAMP)
	$(VENV)/bin/floorgate demo --reset --no-serve

## make test: build .venv, report the code's structure (.ci/structure.py: crowded folders, import
## cycles, long modules, format markers, stray test files; a missed goal fails), and run the
## whole test suite against a real embedded database: the tests not marked serial on
## TEST_WORKERS pytest-xdist workers at once (each with its own database server), then the
## serial ones (timings measured on idle cores) alone, a failed one measured once more; both
## runs run, either failing fails
## (as root on Debian it first installs chromium for the browser tests and nginx for
## tests/e2e/test_nginx.py; the nginx package's own service is stopped again)
test: $(STAMP)
	@command -v chromium >/dev/null || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null \
		&& echo "Installing Debian's chromium for the browser test..." && apt-get update -qq \
		&& DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } \
		|| echo "chromium could not be installed: the browser test will be skipped"
	@command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || { [ "$$(id -u)" = 0 ] \
		&& command -v apt-get >/dev/null && echo "Installing Debian's nginx for the proxy test..." \
		&& apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx \
		>/dev/null && { service nginx stop >/dev/null 2>&1 || true; }; } \
		|| echo "nginx could not be installed: the proxy test will be skipped"
	$(PY) .ci/structure.py
	@# Bytecode on, even where the environment turns it off: the hundreds of processes the
	@# suite starts (servers, the CLI, attack clients) then load compiled modules, and the
	@# serial phase finds the test modules already rewritten by pytest (about 9 s).
	@unset PYTHONDONTWRITEBYTECODE; $(PY) -m compileall -q -j 0 $(PACKAGES) >/dev/null; \
	status=0; \
	echo '$(PY) -m pytest -n $(TEST_WORKERS) --dist worksteal -m "not serial" $(SLOWEST)'; \
	$(PY) -m pytest -n $(TEST_WORKERS) --dist worksteal -m "not serial" $(SLOWEST) || status=1; \
	echo '$(PY) -m pytest -m serial $(SLOWEST)'; \
	$(PY) -m pytest -m serial $(SLOWEST) || { \
		echo 'Measuring the failed ones once more, alone (a failure twice over fails):'; \
		$(PY) -m pytest -m serial --last-failed --last-failed-no-failures none; } || status=1; \
	exit $$status

## make explore: the property tests (hypothesis) with new random examples on each run;
## make test draws the same ones every time (tests/conftest.py)
explore: $(STAMP)
	HYPOTHESIS_PROFILE=explore $(PY) -m pytest -n $(TEST_WORKERS) -m "not serial" \
		$$(grep -rlE '^(from|import) hypothesis' tests --include='test_*.py')

## make bench: the benchmarks under tests/benchmarks (not part of make test)
bench: $(STAMP)
	$(PY) -m tests.benchmarks

## make lint: ruff's checks and formatting, and hadolint on the Containerfile, as CI runs them
lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/hadolint Containerfile

## make image: build the container image (Containerfile: the service without the embedded
## database, as a user that is not root) with podman, else docker; IMAGE names it
IMAGE ?= floorgate:latest
image:
	@engine=$$(command -v podman || command -v docker) \
		|| { echo "make image needs podman or docker"; exit 2; }; \
	echo "$$engine build -f Containerfile -t $(IMAGE) ."; \
	$$engine build -f Containerfile -t $(IMAGE) .

## make typecheck: mypy over the packages ([tool.mypy] in pyproject.toml), as CI runs it
typecheck: $(STAMP)
	$(PY) -m mypy

## make generate: rewrite every file written from the code (.ci/generate.py's table), with
## those recorded from the demo between two passes (the OpenAPI document embeds its examples)
generate: $(STAMP)
	$(PY) .ci/generate.py
	FLOORGATE_RECORD_EXAMPLES=1 FLOORGATE_UPDATE_ROUTING_PICTURE=1 $(PY) -m pytest -q \
		-p no:cacheprovider tests/rest/v1/openapi/test_document.py::test_examples_are_what_the_demo_answers \
		tests/docs/pictures/test_routing_picture.py tests/docs/pictures/test_option_pictures.py
	$(PY) .ci/generate.py

## make fmt: format the tree with ruff and apply ruff's safe fixes
fmt: $(STAMP)
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

## make clean: remove .venv and caches; your data, key and local CA in .floorgate/ stay
clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache
