import os
import tempfile
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
# tests (and the app processes they start) keep their index cache out of the checkout; pytest-xdist's workers share
# one for the run, so a corpus one worker built is read by the other (writes are atomic: engine.store.cache)
_RUN = os.environ.get("PYTEST_XDIST_TESTRUNUID")
os.environ["PATHLENS_CACHE_DIR"] = (os.path.join(tempfile.gettempdir(), f"pathlens-test-cache-{_RUN}") if _RUN
                                    else tempfile.mkdtemp(prefix="pathlens-test-cache-"))
os.makedirs(os.environ["PATHLENS_CACHE_DIR"], exist_ok=True)

from engine.ingest.corpus import Corpus, load_corpus  # noqa: E402
from engine.ingest.questions import LabeledQuery  # noqa: E402
from engine.ingest.passage import Passage  # noqa: E402
from engine.indexing.index import Index  # noqa: E402


@pytest.fixture(scope="session")
def core_corpus() -> Corpus:
    return load_corpus("dataroom-core")


@pytest.fixture(scope="session")
def core_index(core_corpus) -> Index:
    return Index(core_corpus)


def make_corpus(texts, name="tiny", queries=()) -> Corpus:
    return Corpus(name, tuple(Passage(f"p{i}", f"d{i}", "", t) for i, t in enumerate(texts)), tuple(queries))


@pytest.fixture
def tiny():
    texts = [
        'NorthRiver Capital Partners IV, L.P. (the "Fund") acquired Brightwater Logistics in 2021.',
        "Brightwater Logistics reported Fee-Related Earnings (FRE) growth. Its CFO is Elliot Park.",
        "Halvorsen State Pension Fund is the largest LP of the Fund with a $150 million commitment.",
        "Calder Bank lends to Brightwater Logistics under a Credit Agreement.",
        "The weather was fine and nothing else happened on 12 March 2024.",
    ]
    queries = [LabeledQuery("q1", "Who lends to Brightwater Logistics?", ("p3",), "single-hop"),
               LabeledQuery("q2", "Who is the largest LP of NorthRiver Capital Partners IV?", ("p0", "p2"), "multi-hop")]
    return make_corpus(texts, queries=queries)
