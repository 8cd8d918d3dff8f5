"""`build`: a corpus's index into the on-disk cache, here or on a Ray cluster."""

from __future__ import annotations

import json
import sys

from ..errors import PathLensError
from ..indexing.availability import ready, room_stages
from ..store.cache import PERSISTED
from .output import load, open_index, progress_bars


def build_stages(corpus, names: str = "") -> list[str]:
    """The cached components a build makes, in build order: `names` (comma-separated), or every one
    the catalog's retrievers read, cheapest first (the HNSW graph only past ANN_MIN_PASSAGES, where dense search
    uses it)."""
    from ..store.ann import ANN_MIN_PASSAGES

    if names:
        chosen = [x.strip() for x in names.split(",") if x.strip()]
        for name in chosen:
            if name not in PERSISTED:
                raise PathLensError(f"--stages: unknown component {name!r}; choose from {', '.join(PERSISTED)}")
        return chosen
    return room_stages() + (["ann"] if len(corpus.passages) >= ANN_MIN_PASSAGES else [])


def cmd_build(args) -> None:
    import time

    if args.cpus is not None and args.cpus < 1:
        raise PathLensError(f"--cpus must be at least 1, got {args.cpus}")
    if args.shard < 1:
        raise PathLensError(f"--shard must be at least 1, got {args.shard}")
    if args.cpus is not None and args.ray is None:
        raise PathLensError("--cpus sizes a local Ray instance: give it with --ray local")
    corpus = load(args.corpus)
    stages = build_stages(corpus, args.stages)
    compute, started_ray = None, False
    if args.ray is not None:
        from ..indexing import ray_cluster

        started_ray = ray_cluster.connect(args.ray, args.cpus)
        compute = ray_cluster.ray_compute(ray_cluster.RayConfig(shard=args.shard))
    index = open_index(corpus, args.cache_dir, compute)
    cache = index.cache
    work = index.work(stages)  # a grown room: the models run over its new passages only
    if not args.json:
        for w in work:
            print(f"{w.stage}: {w.words()}", file=sys.stderr)
    show, close = progress_bars()
    rows = []
    t_all = time.perf_counter()
    announced: set[str] = set()
    try:
        for stage in stages:
            t0 = time.perf_counter()
            index.build(stage, progress=show)
            close()
            came_from = "cache" if any(e.component == stage and e.kind == "hit" for e in cache.events) else "built"
            now = [n for n in ready(index.stored) if n not in announced]
            announced.update(now)
            rows.append({"stage": stage, "seconds": round(time.perf_counter() - t0, 3), "from": came_from,
                         "after_seconds": round(time.perf_counter() - t_all, 3), "ready": now})
            if not args.json:
                print(f"{stage:<18} {rows[-1]['seconds']:>8.2f} s  ({came_from})"
                      + (f"  → now ready: {', '.join(now)} "
                         f"({rows[-1]['after_seconds']:.1f} s in)" if now else ""), file=sys.stderr)
    finally:
        close()
        if started_ray:
            import ray

            ray.shutdown()
    out = {"corpus": corpus.name, "passages": len(corpus.passages), "cache_dir": str(cache.directory),
           "where": f"ray {args.ray}" if args.ray else "local", "stages": rows,
           "computed": [{"stage": w.stage, "passages": w.passages, "kept_from_earlier_builds": w.stored,
                         "new_documents": list(w.new_documents), "changed_documents": list(w.changed_documents)}
                        for w in work],
           "seconds": round(time.perf_counter() - t_all, 3),
           "rejected": [f"{e.component}: {e.detail}" for e in cache.events if e.kind == "rejected"]}
    if args.json:
        print(json.dumps(out, indent=2))
        return
    print(f"{corpus.name}: {len(corpus.passages):,} passages built {out['where']} in {out['seconds']:.1f} s "
          f"into {cache.directory}")
