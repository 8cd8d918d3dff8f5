"""A build worker process (`python -m engine.indexing.worker`), started by `sharded.PoolRunner`.

It reads pickled (function, arguments) pairs from stdin and writes each result, pickled, to stdout,
until stdin closes (which is also how it ends when its parent dies). Why not multiprocessing: a
spawned child imports its parent's main module again, and in the Streamlit server that is the page
script running at that moment, which would then run in every worker.

Why pickle is safe here, unlike in the on-disk cache (engine.store.codec: no pickle): this is calls between
processes of one build, not stored data. The pipes are the worker's own stdin and stdout, opened by the parent
that started it (`sharded.PoolRunner`) and reachable by no other process; both ends run this engine's code from the
same checkout, and nothing pickled is ever written to disk or read back later.
"""

from __future__ import annotations

import pickle
import sys


def serve(inp, out) -> None:
    while True:
        try:
            fn, args = pickle.load(inp)
        except EOFError:
            return
        try:
            reply = (True, fn(*args))
        except Exception as e:  # noqa: BLE001 — sent back to the parent, which names the shard
            reply = (False, f"{type(e).__name__}: {e}")
        pickle.dump(reply, out, protocol=pickle.HIGHEST_PROTOCOL)
        out.flush()


if __name__ == "__main__":
    channel_in, channel_out = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # a library's print must never land in the results channel
    serve(channel_in, channel_out)
