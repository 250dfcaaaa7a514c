# Two commands for a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
# Bytes of one WebSocket message Daphne reads before it is Python's problem (a form is a few hundred).
WS_MAX_MESSAGE ?= 16384
# What is installed, and from which file: the runtime (requirements.txt, the production install),
# and the tests' and tools' on top (requirements-dev.txt). A stamp is older than its file when the
# file changed: then it is installed again.
STAMP := $(VENV)/.installed
DEV_STAMP := $(VENV)/.installed-dev
# make run's friendly defaults: DEBUG on (a secret key generated into var/), unless the
# environment says otherwise. Outside make, DEBUG is off unless asked for.
LOCAL := DEBUG=$${DEBUG:-true}

.PHONY: run test lint format install install-dev migrate messages bench clean

$(STAMP): requirements.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	touch $(STAMP)

$(DEV_STAMP): $(STAMP) requirements-dev.txt
	$(BIN)/python -m pip install --quiet -r requirements-dev.txt
	touch $(DEV_STAMP)

install: $(STAMP)

install-dev: $(DEV_STAMP)

migrate: install
	$(LOCAL) $(BIN)/python manage.py migrate --noinput

# Compiled catalogues (.mo) are built, not committed (polib: no system gettext needed).
messages: install
	$(LOCAL) $(BIN)/python manage.py build_catalogues

run: migrate messages
	@echo "Serving on http://127.0.0.1:$(PORT)/ (Ctrl-C stops)"
	$(LOCAL) $(BIN)/daphne -e tcp:port=$(PORT):interface=127.0.0.1:backlog=1024 --websocket_connect_timeout 30 \
		--websocket-max-message-size $(WS_MAX_MESSAGE) \
		--access-log /dev/null svara_site.asgi:application

test: install-dev messages
	$(BIN)/python -m pytest $(PYTEST_ARGS)

lint: install-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	DEBUG=true $(BIN)/lint-imports
	DEBUG=true $(BIN)/mypy

format: install-dev
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

bench: install-dev
	$(BIN)/python -m bench.engine

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
