"""Indexing: an index of a corpus, its components built once, from the cache when they are there (`index`);
builds that run in the background with progress, shared between sessions (`background`); NER and encoding as
shard tasks on worker processes (`sharded`, `worker`) or a Ray cluster (`ray_cluster`). Imports every layer below.
"""
