"""Index builds on a Ray cluster (`python -m engine build --ray ADDRESS`).

The two stages that cost minutes per thousand passages, extraction (regex or spaCy NER, with the
entity filter) and encoding, run as Ray tasks over shards of the corpus (`engine.indexing.sharded`,
whose docstring says why the shards agree with one process bit for bit). Everything after them
(linking passages to entities, graphs, alias tables, writing the on-disk cache) is the local
build's own code fed with their results (`Index(corpus, cache, compute=ray_compute(...))`), so the
cache a cluster writes is exactly what the app and the CLI read.

Plain tasks rather than Ray Data: a shard is a list of strings in and one small value out, and
tasks give each shard its own retry when a worker dies (`max_retries`), which is all this needs.
Ray is optional (requirements-ray.txt) and imported only here.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable

from ..errors import PathLensError
from ..store.cache import default_dir
from .sharded import BatchProgress, Pick, ShardConfig, ShardedCompute

ENGINE_DIR = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class RayConfig:
    shard: int = 256  # passages per task: big enough to amortise a task (~ms), small enough to spread and retry
    max_retries: int = 3  # per shard, when its worker dies (Ray's default for tasks, made explicit)
    cpus_per_task: int = 1


def _ray():
    try:
        import ray
    except ImportError as e:
        raise PathLensError("--ray needs Ray: pip install -r requirements-ray.txt") from e
    return ray


def runtime_env(encoder_dir: Path | None = None) -> dict:
    """What every worker needs: this engine's code (shipped by Ray, so cluster nodes need only the
    packages of requirements.txt), no hub access, and where the encoder's ONNX graph lives
    (`encoder_dir`, as PATHLENS_CACHE_DIR; when None, each node exports its own on first use)."""
    env = {"HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    if encoder_dir is not None:
        env["PATHLENS_CACHE_DIR"] = str(encoder_dir)
    return {"py_modules": [str(ENGINE_DIR)], "excludes": ["__pycache__"], "env_vars": env}


def connect(address: str, cpus: int | None = None) -> bool:
    """Join the cluster at `address` ("auto", "HOST:6379", "ray://HOST:10001"), or start a Ray
    instance on this machine for "local" (with `cpus` CPUs). True when this call started Ray, so
    the caller knows to shut it down.

    Local workers share this process's cache directory, so they read the ONNX graph exported here;
    a cluster's nodes do too when PATHLENS_CACHE_DIR is set (a shared folder, say), else each
    node exports its own once."""
    ray = _ray()
    local = address == "local"
    if cpus is not None and not local:
        raise PathLensError("--cpus sets the size of a local Ray instance (--ray local); "
                            "a cluster's workers bring their own CPUs")
    if not local and address != "auto":
        _check_reachable(address)
    if ray.is_initialized():  # this process already joined one (a test, a notebook): build there
        return False
    shared = default_dir() if local or os.environ.get("PATHLENS_CACHE_DIR") else None
    try:
        ray.init(address=None if local else address, num_cpus=cpus, runtime_env=runtime_env(shared),
                 include_dashboard=False, log_to_driver=False, configure_logging=False)
    except (ConnectionError, ValueError, RuntimeError) as e:
        raise PathLensError(f"--ray {address}: could not join a Ray cluster there ({e})") from e
    return True


def _check_reachable(address: str, timeout_s: float = 5.0) -> None:
    """Fail in seconds, by name, when nothing listens at a cluster address: Ray itself keeps
    retrying for minutes before it gives up."""
    import socket

    hostport = address.removeprefix("ray://")
    host, _, port = hostport.rpartition(":")
    if not host or not port.isdigit():
        raise PathLensError(f"--ray {address!r}: expected 'local', 'auto', HOST:PORT or ray://HOST:PORT")
    try:
        socket.create_connection((host, int(port)), timeout=timeout_s).close()
    except OSError as e:
        raise PathLensError(f"--ray {address}: no Ray head answers there ({e.strerror or e}); "
                            f"start one with `ray start --head` on that machine") from None


@lru_cache(maxsize=None)
def _remote(fn: Callable):
    return _ray().remote(fn)


class RayRunner:
    """`sharded.Runner` on the Ray cluster this process joined (`connect`)."""

    def __init__(self, config: RayConfig = RayConfig()):
        self.config = config

    def run(self, stage: str, fn: Callable, calls: list[tuple], sizes: list[int], on_batch: BatchProgress,
            on_result: Callable[[int, object], None] | None = None, pick: Pick | None = None) -> list:
        # every call is submitted at once and the cluster schedules them, so `pick` has no order to set here
        ray = _ray()
        remote = _remote(fn).options(max_retries=self.config.max_retries, num_cpus=self.config.cpus_per_task)
        refs = [remote.remote(*call) for call in calls]
        position = {ref: i for i, ref in enumerate(refs)}
        results: list = [None] * len(refs)
        pending, done, total = list(refs), 0, sum(sizes)
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            i = position[ready[0]]
            try:
                results[i] = ray.get(ready[0])
            except ray.exceptions.RayError as e:
                for ref in pending:
                    ray.cancel(ref)
                raise PathLensError(f"Ray build, {stage}: shard {i + 1} of {len(refs)} failed "
                                    f"(retried up to {self.config.max_retries} times): {type(e).__name__}: "
                                    f"{str(e).splitlines()[0] if str(e) else ''}") from e
            if on_result:
                on_result(i, results[i])
            done += sizes[i]
            if on_batch:
                on_batch(done, total)
        return results


def ray_compute(config: RayConfig = RayConfig()) -> ShardedCompute:
    """`engine.indexing.index.Compute` on the Ray cluster this process joined."""
    return ShardedCompute(RayRunner(config), ShardConfig(config.shard, config.cpus_per_task), put=_ray().put)


__all__ = ["RayConfig", "RayRunner", "connect", "ray_compute", "runtime_env"]
