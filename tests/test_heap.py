"""engine.heap.settle freezes what lives for the process. Each test runs in a fresh interpreter: a freeze in
the suite's own process would change how every later test's garbage is collected, and depend on order."""

import subprocess
import sys

from tests.conftest import ROOT


def run(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_settle_collects_cycles_then_freezes_what_is_alive():
    assert run("""
import gc, weakref
from engine.heap import settle
class Node: pass
a, b, kept = Node(), Node(), Node()
a.other, b.other = b, a  # a cycle: garbage once the names go
gone = weakref.ref(a)
del a, b
assert gc.get_freeze_count() == 0
settle()
print(gone() is None, gc.is_tracked(kept) and all(o is not kept for o in gc.get_objects()), gc.get_freeze_count() > 0)
""") == "True True True"  # collected before the freeze, not frozen forever; kept is frozen: out of every generation


def test_the_spacy_pipeline_is_frozen_out_of_full_collections():
    frozen = int(run("import gc; from engine.graph.entities import load_nlp; load_nlp(); print(gc.get_freeze_count())"))
    assert frozen > 100_000  # spaCy's pipeline is ~200k tracked objects
