"""Where the test suite's CPU goes, by kind of process, and when each pytest worker finished.

    .venv/bin/python -m tests.suite_cpu [PYTEST-ARGS…]      (default: the suite as `make test` runs it)

Runs pytest with this module as a plugin, and reads every process's CPU time from /proc/<pid>/stat twice a second
while it runs. A process counts at its last reading, so one that lives less than half a second is missed. It then
prints the CPU-seconds of each kind of process and the moment each xdist worker's last test ended. docs/tests.md's
table is its output.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections import Counter

SUITE = ["-q", "-n", "2", "--dist", "loadfile"]
TIMELINE = "SUITE_CPU_TIMELINE"  # where the plugin, in each worker, notes when its tests end


def pytest_runtest_logfinish(nodeid, location):  # a pytest hook: this module is also the plugin
    if os.environ.get(TIMELINE):
        with open(os.environ[TIMELINE], "a", encoding="utf-8") as f:
            f.write(f"{os.environ.get('PYTEST_XDIST_WORKER', 'main')} {time.time()}\n")


def kind(cmdline: str) -> str:
    """The kind of process a command line belongs to, as the table groups them."""
    if "chrom" in cmdline:
        return "headless Chromium"
    if "streamlit" in cmdline:
        return "Streamlit app servers"
    if "engine.indexing.worker" in cmdline:
        return "index worker processes"
    if "import sys;exec(eval(sys.stdin.readline()))" in cmdline:  # how execnet starts an xdist worker
        return "pytest workers"
    return "the rest"


def _readings() -> dict[tuple[str, str], tuple[float, str]]:
    """(pid, start time) → (CPU-seconds so far, command line) of every process readable now."""
    tick = os.sysconf("SC_CLK_TCK")
    out = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat", encoding="utf-8") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{pid}/cmdline", encoding="utf-8", errors="replace") as f:
                cmdline = f.read().replace("\0", " ")
        except OSError:
            continue
        out[(pid, fields[19])] = ((int(fields[11]) + int(fields[12])) / tick, cmdline)
    return out


def main(args: list[str]) -> int:
    timeline = tempfile.NamedTemporaryFile(prefix="suite-cpu-", suffix=".txt", delete=False).name
    env = {**os.environ, "HF_HUB_OFFLINE": "1", TIMELINE: timeline}
    start = time.time()
    run = subprocess.Popen([sys.executable, "-m", "pytest", "-p", "tests.suite_cpu", *(args or SUITE)], env=env)
    last: dict[tuple[str, str], tuple[float, str]] = {}
    while run.poll() is None:
        for key, (cpu, cmdline) in _readings().items():
            # an exited process still waiting for its parent reads with no command line: keep the one it had
            last[key] = (cpu, cmdline or last.get(key, (0.0, ""))[1])
        time.sleep(0.5)
    wall = time.time() - start
    by_kind = Counter()
    for cpu, cmdline in last.values():
        by_kind[kind(cmdline)] += cpu
    total = sum(by_kind.values())
    print(f"\npytest exited {run.returncode} after {wall // 60:.0f}:{wall % 60:02.0f}; {total:,.0f} CPU-s in all")
    for name, cpu in by_kind.most_common():
        print(f"  {name:<24} {cpu:>7,.0f} CPU-s  {cpu / total:.0%}")
    ends: dict[str, float] = {}
    with open(timeline, encoding="utf-8") as f:
        for line in f:
            worker, at = line.split()
            ends[worker] = max(ends.get(worker, 0.0), float(at) - start)
    os.unlink(timeline)
    if any(w.startswith("gw") for w in ends):  # under xdist the controller hears every test end too
        ends.pop("main", None)
    for worker, at in sorted(ends.items()):
        print(f"  {worker} ended its last test at {at // 60:.0f}:{at % 60:02.0f}")
    return run.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
