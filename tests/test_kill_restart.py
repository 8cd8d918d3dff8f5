"""A build killed with SIGKILL, then started again, leaves exactly the cache a clean build leaves:
the same files, byte for byte, and no temporary left over. Killed at three points: during
extraction, during encoding and while writing a cache file (tests/killable_build.py holds the
build there and says so, so the kill lands where it is meant to)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from engine.store.parts import FILE_NAME as PARTS, PartStore
from tests.conftest import ROOT

BUILD = ["--corpus", "dataroom-core", "--stages", "tokens,extraction:regex,graph:regex,embeddings", "--json"]


def build(cache: str) -> None:
    subprocess.run([sys.executable, "-m", "engine", "build", *BUILD, "--cache-dir", cache], cwd=ROOT, check=True,
                   capture_output=True, timeout=300)


def files(folder) -> dict[str, object]:
    """Every file's bytes; the per-passage parts database by its rows (SQLite's file layout is its own)."""
    out: dict[str, object] = {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}
    if PARTS in out:
        out[PARTS] = PartStore(folder).rows()
    return out


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    folder = tmp_path_factory.mktemp("clean")
    build(str(folder))
    return files(folder)


@pytest.mark.parametrize("point", ["extraction", "encoding", "cache-write"])
def test_a_build_killed_and_started_again_gives_the_clean_cache(point, clean, tmp_path):
    child = subprocess.Popen([sys.executable, "-m", "tests.killable_build", point, "--", *BUILD,
                              "--cache-dir", str(tmp_path)], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == f"at {point}", "the build ended before reaching its kill point"
        before = {p.name for p in tmp_path.iterdir()}
        os.kill(child.pid, signal.SIGKILL)
        assert child.wait(30) == -signal.SIGKILL
    finally:
        child.kill()
        child.stdout.close()
    assert "embeddings" not in " ".join(n for n in before if not n.startswith(".tmp-"))  # killed before it was stored
    if point == "cache-write":
        assert any(n.startswith(".tmp-") for n in before)  # a half-written file was left behind…
    build(str(tmp_path))
    assert PARTS in clean and files(tmp_path) == clean  # …and is gone, with every component as a clean build writes it
