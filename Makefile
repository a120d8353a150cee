# The two commands of the README, and a few conveniences for developers.
# Everything installs into ./.venv; nothing outside the checkout is touched.

PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
# pyproject.toml gives ranges; the README's commands install the exact
# versions CI tested (also for the build backend, hence the variable rather
# than -c).
PIP := PIP_CONSTRAINT=$(CURDIR)/constraints.txt $(BIN)/pip

.PHONY: run test dev bench clean constraints

$(BIN)/python:
	$(PY) -m venv $(VENV)

# Install satcc and run its main job on the embedded defaults.
run: $(BIN)/python
	$(PIP) install -q .
	$(BIN)/satcc reproduce all --quick --allow-fail
	$(BIN)/satcc run examples/geo_cbr.toml --out out/geo_cbr

# Install satcc with its test tools and run every check CI runs (the HTML
# report test renders pages in Debian's headless Chromium, installed here if
# missing).
test: $(BIN)/python
	$(PIP) install -q '.[test]'
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets -- -D warnings
	cargo test --workspace
	$(BIN)/ruff check python tests benches
	$(BIN)/ruff format --check python tests benches
	bash scripts/ensure-chromium.sh
	bash scripts/ensure-ns2.sh
	bash scripts/ensure-emulation-tools.sh
	bash scripts/ensure-tshark.sh
	$(BIN)/pytest

# Editable install for development: Python edits apply at once, Rust edits
# after `make dev` again.
dev: $(BIN)/python
	$(PIP) install -q maturin -e '.[test]'
	$(BIN)/maturin develop --release -q

bench: $(BIN)/python
	$(PIP) install -q .
	$(BIN)/satcc bench
	cargo bench -p satcc-core --bench b1

# After changing a dependency in pyproject.toml: pin what a fresh install of
# satcc with its test tools resolves to today.
constraints:
	rm -rf .venv-constraints
	$(PY) -m venv .venv-constraints
	.venv-constraints/bin/pip install -q '.[test]' maturin
	.venv-constraints/bin/pip freeze --exclude satcc | { sed -n '1,3p' constraints.txt; cat; } > constraints.txt.new
	mv constraints.txt.new constraints.txt
	rm -rf .venv-constraints

clean:
	rm -rf $(VENV) target out results
