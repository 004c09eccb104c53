# Every target bootstraps .venv from python3 when it is missing, so a fresh clone needs nothing
# but `make serve` or `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 5006
# The lecture (index page) and every demo servable alone; same list as dashboards.APPS.
APPS := dashboards/lecture.py dashboards/self_attention.py dashboards/scaling.py \
	dashboards/multihead.py dashboards/positional.py dashboards/capital.py dashboards/explorer.py
# The system allocator gives memory back when a class closes its sessions; CPython's own
# allocator kept the server at ~1.8x its baseline (bench/bench_sessions.py).
SERVE_ENV := PYTHONMALLOC=malloc

.PHONY: serve serve-prod test lint format docs export chromium nginx clean bench soak

$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -c constraints.txt -e '.[test]'
	touch $(STAMP)

## serve: the lecture on http://localhost:5006 (bound to localhost only)
serve: $(STAMP)
	@echo "Clase 04 en http://localhost:$(PORT)/"
	$(SERVE_ENV) $(BIN)/panel serve $(APPS) --address $(HOST) --port $(PORT) \
		--allow-websocket-origin localhost:$(PORT) --allow-websocket-origin 127.0.0.1:$(PORT) \
		--index lecture

## test: everything CI runs (lint, model tests, dashboard tests, browser tests)
test: $(STAMP) chromium nginx
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

## docs: regenerate the worked-examples document from the models
docs: $(STAMP)
	$(BIN)/python -m attnmodel.worked_examples --write docs/ejemplos-trabajados.md

## export: the lecture as self-contained HTML files that work offline (dist/)
export: $(STAMP)
	$(BIN)/python -m dashboards.export

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

clean:
	rm -rf $(VENV) dist .pytest_cache .ruff_cache .hypothesis

## bench: the benchmarks of issue #5, one table of targets (writes bench/results.json)
bench: $(STAMP) chromium nginx
	$(BIN)/python bench/run.py

## soak: issue #6's soak, 200 sessions in sequence then 50 editing for 5 minutes
soak: $(STAMP) chromium
	$(BIN)/python bench/run.py --only soak

## serve-prod: several panel serve workers behind nginx (README: "Desplegar para una clase")
serve-prod: $(STAMP)
	HOST=$(HOST) PORT=$(PORT) bash deploy/serve-prod.sh
