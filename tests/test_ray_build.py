"""The distributed build (engine/indexing/ray_cluster.py) on a local Ray instance with two CPUs, against
the local build of the same corpus: same cache entries, same values, also after a killed worker."""

import json
import os
import signal
import threading
from collections import Counter

import numpy as np
import pytest

from engine.indexing.index import Index
from engine.cli import main
from engine.errors import PathLensError
from engine.ingest.corpus import load_corpus
from engine.store.cache import PERSISTED, DiskCache

ray = pytest.importorskip("ray", reason="Ray is not installed: pip install -r requirements-ray.txt")
from engine.indexing import ray_cluster  # noqa: E402  (imports Ray lazily, but its tests need it)

STAGES = ["tokens", "extraction:regex", "graph:regex", "embeddings", "extraction:ner", "graph:ner"]  # `engine build`'s order


# ---------------------------------------------------------------- on a local Ray instance


@pytest.fixture(scope="module")
def local_ray():
    assert not ray.is_initialized()
    assert ray_cluster.connect("local", cpus=2)  # ray.init(num_cpus=2, runtime_env=…)
    assert ray.cluster_resources()["CPU"] == 2
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def corpus():
    return load_corpus("dataroom-core")


@pytest.fixture(scope="module")
def local_build(corpus, tmp_path_factory):
    cache_dir = tmp_path_factory.mktemp("local-build")
    index = Index(corpus, cache=DiskCache(cache_dir))
    index.build_stages(STAGES)
    return index, cache_dir


def _same_as_local(index: Index, local: Index) -> None:
    assert index.embeddings().shape == local.embeddings().shape == (len(local.ids), 384)
    assert float(np.abs(index.embeddings() - local.embeddings()).max()) <= 1e-6
    for builder in ("regex", "ner"):
        assert index.extraction(builder) == local.extraction(builder)  # entities, display, counts
        g, h = index.graph(builder), local.graph(builder)
        assert g.entities == h.entities and g.passage_ids == h.passage_ids
        assert (g.incidence != h.incidence).nnz == 0 and g.incidence.nnz > 0
        assert index.aliases(builder).rows == local.aliases(builder).rows


def test_the_cli_builds_on_ray_the_same_cache_files_as_locally(local_ray, corpus, local_build, tmp_path, capsys):
    local, local_dir = local_build
    # the fixture's instance is already up: --ray local joins it rather than starting another
    assert main(["build", "--corpus", "dataroom-core", "--ray", "local", "--shard", "8",
                 "--cache-dir", str(tmp_path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["where"] == "ray local" and out["passages"] == len(corpus.passages) == 29
    assert [s["stage"] for s in out["stages"]] == STAGES and {s["from"] for s in out["stages"]} == {"built"}
    ray_files = sorted(p.name for p in tmp_path.glob("*.cache"))
    assert ray_files == sorted(p.name for p in local_dir.glob("*.cache")) and len(ray_files) == len(STAGES)
    for name in ray_files:  # the same entries, byte for byte
        assert (tmp_path / name).read_bytes() == (local_dir / name).read_bytes(), name

    # what the app does on opening the corpus: every component read from that cache, none built
    warm = Index(corpus, cache=DiskCache(tmp_path))
    warm.build_stages(STAGES)
    assert {e.kind for e in warm.cache.events} == {"hit"}
    _same_as_local(warm, local)


def _announcing(fn, address):
    """`fn` as a task that first tells the test its worker's pid over a socket and waits for the test's word (a
    closure, so Ray ships it by value). The test kills the worker while it waits: mid-task, at a moment the test
    chose, not one a poll happened to catch. Once the test stops listening, tasks (retries too) run straight on."""

    def task(*args):
        import os
        import socket

        try:
            with socket.create_connection(address, timeout=10) as s:
                s.sendall(str(os.getpid()).encode())
                s.recv(1)  # the test's word, or its closing the connection
        except OSError:
            pass
        return fn(*args)

    return task


class _Killer:
    """Kills (SIGKILL) the first Ray worker that announces a build task, as a crashed machine would."""

    def __init__(self):
        import socket

        self.killed: list[int] = []
        self._server = socket.create_server(("127.0.0.1", 0))
        self.address = self._server.getsockname()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def compute(self, config):
        """Ray's compute for an index, its tasks announcing themselves to this killer."""
        from engine.indexing.sharded import ShardConfig, ShardedCompute

        runner, address = ray_cluster.RayRunner(config), self.address

        class Announcing:
            def run(self, stage, fn, calls, sizes, on_batch, on_result=None, pick=None):
                return runner.run(stage, _announcing(fn, address), calls, sizes, on_batch, on_result, pick)

        return ShardedCompute(Announcing(), ShardConfig(config.shard, config.cpus_per_task), put=ray.put)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._server.close()
        self._thread.join(30)

    def _run(self) -> None:
        try:
            conn, _ = self._server.accept()  # blocks until a task announces itself
        except OSError:
            return
        with conn:
            pid = int(conn.recv(32))
            os.kill(pid, signal.SIGKILL)
            self.killed.append(pid)
        self._server.close()  # every later task (the retried one too) runs on unannounced


@pytest.mark.parametrize("stage", ["embeddings", "extraction:ner"])
def test_a_worker_killed_mid_build_is_retried_without_losing_or_repeating_passages(local_ray, corpus, local_build,
                                                                                  stage):
    local, _ = local_build
    with _Killer() as killer:
        index = Index(corpus, compute=killer.compute(ray_cluster.RayConfig(shard=8)))
        index.build(stage)
    assert killer.killed, "no worker announced a build task"
    built = index.embeddings() if stage == "embeddings" else index.extraction("ner")
    if stage == "embeddings":
        assert built.shape == (29, 384)
        assert np.allclose(np.linalg.norm(built, axis=1), 1.0, atol=1e-5)  # no row left empty
        assert float(np.abs(built - local.embeddings()).max()) <= 1e-6
    else:
        assert built == local.extraction("ner")  # a repeated shard would count its mentions twice
        assert built.raw_mentions == local.extraction("ner").raw_mentions


def test_a_shard_out_of_retries_fails_by_name(local_ray, corpus):
    killer = _Killer()
    index = Index(corpus, compute=killer.compute(ray_cluster.RayConfig(shard=8, max_retries=0)))
    with killer, pytest.raises(PathLensError, match=r"Ray build, extraction:ner: shard \d of 4 failed"):
        index.build("extraction:ner")
    assert killer.killed
    assert Counter(ray.get([ray.remote(lambda: 1).remote() for _ in range(2)])) == {1: 2}  # Ray still serves


# ---------------------------------------------------------------- the command line


@pytest.mark.parametrize("argv, message", [
    (["--ray", "127.0.0.1:9"], "--ray 127.0.0.1:9: no Ray head answers there"),
    (["--ray", "nonsense"], "expected 'local', 'auto', HOST:PORT or ray://HOST:PORT"),
    (["--cpus", "2"], "--cpus sizes a local Ray instance"),
    (["--stages", "graph:foo"], "--stages: unknown component 'graph:foo'"),
    (["--shard", "0"], "--shard must be at least 1"),
])
def test_bad_build_options_are_named(argv, message, capsys):
    assert main(["build", "--corpus", "dataroom-core", *argv]) == 2
    assert message in capsys.readouterr().err


def test_every_cached_component_can_be_built_by_name():
    assert set(STAGES) | {"ann"} == set(PERSISTED)
