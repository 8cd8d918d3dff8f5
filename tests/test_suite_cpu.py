"""tests/suite_cpu.py, the suite's CPU-by-process counter (docs/tests.md): its grouping and its report."""

import subprocess
import sys

from tests.conftest import ROOT
from tests.suite_cpu import kind


def test_processes_are_grouped_by_their_command_lines():
    assert kind("/usr/lib/chromium/chromium --type=renderer --headless") == "headless Chromium"
    assert kind("/work/main/.venv/bin/python -m streamlit run app.py --server.port 8501") == "Streamlit app servers"
    assert kind("/work/main/.venv/bin/python -m engine.indexing.worker 3") == "index worker processes"
    assert kind("/work/main/.venv/bin/python -u -c import sys;exec(eval(sys.stdin.readline()))") == "pytest workers"
    assert kind("/work/main/.venv/bin/python -m engine query --corpus dataroom-core") == "the rest"


def test_it_runs_pytest_and_reports_cpu_and_each_workers_end():
    out = subprocess.run([sys.executable, "-m", "tests.suite_cpu", "-q", "-n", "2", "-p", "no:cacheprovider",
                          "tests/test_metrics.py"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "pytest exited 0 after " in out.stdout and " CPU-s in all" in out.stdout, out.stdout
    assert "  pytest workers " in out.stdout, out.stdout
    assert "  gw0 ended its last test at " in out.stdout and "  gw1 ended its last test at " in out.stdout, out.stdout
    assert "main ended" not in out.stdout, out.stdout  # the controller is not a worker
