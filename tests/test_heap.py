import gc
import weakref

from engine.graph.entities import load_nlp
from engine.heap import settle


def test_settle_collects_cycles_then_freezes_what_is_alive():
    class Node:
        pass

    a, b, kept = Node(), Node(), Node()
    a.other, b.other = b, a  # a cycle: garbage once the names go
    gone = weakref.ref(a)
    del a, b
    settle()
    assert gone() is None  # collected before the freeze, not frozen forever
    assert gc.is_tracked(kept) and all(o is not kept for o in gc.get_objects())  # frozen: out of every generation
    assert gc.get_freeze_count() > 0


def test_the_spacy_pipeline_is_frozen_out_of_full_collections():
    load_nlp()
    assert gc.get_freeze_count() > 100_000  # spaCy's pipeline is ~200k tracked objects
