# Two commands set everything up (see README): `make run` and `make test`.
# Both are idempotent: the virtual environment is (re)built only when a requirements file changes.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8501

.PHONY: run test

$(VENV)/.installed: requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -r requirements.txt
	touch $@

run: $(VENV)/.installed
	HF_HUB_OFFLINE=1 $(PY) -m streamlit run app.py --server.port $(PORT) --server.headless true

test: $(VENV)/.installed
	HF_HUB_OFFLINE=1 $(PY) -m pytest -q
