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


def test_a_load_asked_for_by_two_threads_at_once_runs_once():
    import threading

    from engine.heap import load_once

    calls, inside, release = [], threading.Event(), threading.Event()
    second_inside = threading.Event()

    @load_once
    def load(name):
        calls.append(name)
        (second_inside if inside.is_set() else inside).set()
        release.wait(10)
        return object()

    results = []
    first = threading.Thread(target=lambda: results.append(load("model")))
    first.start()
    assert inside.wait(10)  # the first caller is loading…
    second = threading.Thread(target=lambda: results.append(load("model")))
    second.start()
    # …and the second must wait for it rather than load again (with lru_cache alone it is inside at once)
    assert not second_inside.wait(1.0)
    release.set()
    first.join(10), second.join(10)
    assert calls == ["model"] and len(results) == 2 and results[0] is results[1]
    assert load("other") is not results[0] and calls == ["model", "other"]  # other arguments load on their own
