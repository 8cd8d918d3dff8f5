# Two commands set everything up (see README): `make run` and `make test`.
# Both are idempotent: the virtual environment is (re)built only when a requirements file changes.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8501
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: run test chromium

$(VENV)/.installed: requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -r requirements.txt
	touch $@

$(VENV)/.installed-test: $(VENV)/.installed requirements-test.txt requirements-bench.txt requirements-ray.txt
	$(PY) -m pip install -q --disable-pip-version-check -r requirements-test.txt
	touch $@

# Browser tests drive Debian's Chromium; Playwright never downloads a browser of its own.
chromium:
	@test -x /usr/bin/chromium || { $(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium >/dev/null; }

# The encoder's ONNX graph is exported from the packaged weights once per cache directory (engine/store/dense.py),
# and the Precedents page's bundled deal descriptions are encoded once (about 2 minutes; then read from the cache
# in 2 s): doing both here keeps them out of the first question and the first visit to Precedents.
run: $(VENV)/.installed
	HF_HUB_OFFLINE=1 $(PY) -c "from engine.store import dense; dense.load_encoder()"
	HF_HUB_OFFLINE=1 $(PY) -c "from engine.deals.index import bundled_index; bundled_index()"
	HF_HUB_OFFLINE=1 $(PY) -m streamlit run app.py --server.port $(PORT)

# -n 2: the suite on both cores, a test file per worker at a time (its module's app server and builds stay together)
test: $(VENV)/.installed-test chromium
	HF_HUB_OFFLINE=1 $(PY) -m pytest -q -n 2 --dist loadfile
