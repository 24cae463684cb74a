# The two commands: `make run` and `make test`. Everything else is a step of theirs.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
WITH_DB := $(PY) -m incidentlib.localdb
HOST_PORT ?= 127.0.0.1:8000
# make run's demo followed source: a stored Statuspage example the development server itself
# serves (static/ingest/demo/), read by the worker over HTTP as any source, without internet.
DEMO_SOURCE := http://$(HOST_PORT)/static/ingest/demo
DEMO_HOST := $(firstword $(subst :, ,$(HOST_PORT)))
# The two commands are for development: DEBUG on unless you say otherwise.
export DEBUG ?= 1

.PHONY: run test lint messages manage clean-db

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -c 'import sys; sys.exit("incidentlib needs Python 3.11 or newer") if sys.version_info < (3, 11) else None'
	@$(PYTHON) -c 'import ensurepip, venv' 2>/dev/null || { echo "Python's venv module is missing: on Debian or Ubuntu, apt install python3-venv"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev,local]'
	touch $@

## make run: a working library with the demo cases at http://127.0.0.1:8000, and its worker
run: $(VENV)/.installed
	$(WITH_DB) env INGEST_ALLOWED_HOSTS=$(DEMO_HOST) sh -c '$(PY) manage.py migrate --no-input && $(PY) manage.py load_demo && $(PY) manage.py follow_source statuspage $(DEMO_SOURCE) --name demo-statuspage --licence "example, stored in static/ingest/demo" && $(PY) -m incidentlib.devrun $(HOST_PORT)'

## make test: the whole suite, on the same database logic
test: $(VENV)/.installed
	$(WITH_DB) $(PY) -m pytest $(PYTEST_ARGS)

## make manage ARGS="import_cases my-cases/": any manage.py command on the same database
manage: $(VENV)/.installed
	@$(WITH_DB) $(PY) manage.py $(ARGS)

lint: $(VENV)/.installed
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports

## make messages: refresh and compile the Korean translations (needs GNU gettext)
messages: $(VENV)/.installed
	$(PY) manage.py makemessages --locale ko --no-obsolete --add-location file --ignore=.venv --ignore=staticfiles
	$(PY) manage.py compilemessages --locale ko --ignore=.venv

## make clean-db: forget the embedded database (the next run starts afresh)
clean-db:
	rm -rf .pgdata
