"""Documents read in worker processes: a file that crashes, hangs or floods memory in its reader costs
that file, never the server or the other files.

PDFium is C++ and reads whatever a user uploads; python-docx and BeautifulSoup parse untrusted XML and
HTML. So each document is read by a fresh interpreter (`python -m engine.ingest.isolated`) with a time
limit and a memory cap (`ReadLimits`), several at once (one per core), and only plain JSON comes back.
A worker that dies by a signal, runs past its time or past its memory is named with what happened
("the reader crashed (signal 11)", "stopped after 60 s", "ran past the 2 GiB memory cap"), and the
other files go on. Fresh interpreters rather than multiprocessing for the reason `engine.indexing.worker`
gives: a spawned child would re-run the Streamlit page script that is running.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import asdict, dataclass
from importlib import import_module
from pathlib import Path
from typing import Callable, Sequence

from ..errors import PathLensError
from . import read_cache
from .documents import Document, Problem, SourceFile
from .running_lines import DroppedLine

ROOT = Path(__file__).resolve().parents[2]  # the folder `engine` is in, so the worker imports the same code
READER = "engine.ingest.documents:read_document"


@dataclass(frozen=True)
class ReadLimits:
    """What one document's reader may take: seconds of its CPU time (or as long with its CPU time standing still)
    and bytes of address space."""

    seconds: float = 60.0
    memory_bytes: int = 2 * 1024 ** 3
    processes: int = 0  # 0: one per core

    @classmethod
    def from_env(cls) -> "ReadLimits":
        """The limits as configured: PATHLENS_READ_SECONDS and PATHLENS_READ_MEMORY_MB, else the defaults."""
        try:
            seconds = float(os.environ.get("PATHLENS_READ_SECONDS", cls.seconds))
            memory = int(float(os.environ.get("PATHLENS_READ_MEMORY_MB", cls.memory_bytes / 1024 ** 2)) * 1024 ** 2)
        except ValueError:
            raise PathLensError("PATHLENS_READ_SECONDS and PATHLENS_READ_MEMORY_MB must be numbers") from None
        return cls(seconds, memory)

    def __post_init__(self) -> None:
        if not self.seconds > 0:
            raise PathLensError(f"the time limit per file must be positive, got {self.seconds}")
        if self.memory_bytes < 64 * 1024 ** 2:
            raise PathLensError(f"the memory cap per worker must be at least 64 MiB, got {self.memory_bytes:,} bytes")


def _size(n: int) -> str:
    return f"{n / 1024 ** 3:g} GiB" if n >= 1024 ** 3 else f"{n / 1024 ** 2:g} MiB"


def _decode(reply: dict) -> tuple[Document, tuple[Problem, ...]]:
    d = reply["document"]
    doc = Document(d["name"], d["title"], tuple(d["pages"]), bool(d["paged"]),
                   tuple(DroppedLine(**x) for x in d["dropped"]), tuple(d["printed"]))
    return doc, tuple(Problem(**p) for p in reply["problems"])


STARTUP_SECONDS = 120.0  # what a worker's start may take before it reads anything
POLL_SECONDS = 0.5  # how often a reader's CPU time is looked at while it reads


def cpu_seconds(pid: int) -> float | None:
    """A process's CPU time (user and system) from /proc, or None where it cannot be read."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


class _Worker:
    """A worker process that reads documents one at a time from its stdin: a header line (name, size), then
    the bytes; it answers each with one JSON line. Started once and reused until something goes wrong with a
    file, when it is ended and the next file gets a fresh one, so a process start is paid per batch."""

    def __init__(self, limits: ReadLimits, reader: str):
        env = {**os.environ,
               "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)}
        # the worker caps its own memory first (preexec_fn is unsafe in a threaded parent such as the app)
        self.proc = subprocess.Popen([sys.executable, "-m", "engine.ingest.isolated", reader, str(limits.memory_bytes)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
                                     env=env)
        self.limits = limits
        self.ready = False  # it says so once its interpreter and reader are loaded

    def read(self, source: SourceFile) -> dict:
        """The reader's reply for the file (its document and problems, `_decode`); raises PathLensError naming the
        file and what happened (the worker is then dead and must not be reused: `alive` is False). The file's time
        limit starts once the worker is ready: its own start (an interpreter and the reader's imports, seconds on
        a loaded machine) is not the file's doing."""
        return self._exchange(source, {})

    def call(self, source: SourceFile, function: str, args: dict):
        """`function(source, **args)` run in the worker ("module:name", answering plain JSON): its answer, or
        PathLensError as `read` raises it."""
        return self._exchange(source, {"call": function, "args": args})["result"]

    def _exchange(self, source: SourceFile, request: dict) -> dict:
        """Send the file with `request` and wait for the worker's one-line JSON reply within the time limit."""
        proc, limits = self.proc, self.limits
        line = b""
        if not self.ready:
            line = self._reply_line(STARTUP_SECONDS)
            if line is None:
                self.stop()
                raise PathLensError(f"{source.name}: could not be read: the reader's worker process did not start "
                                    f"within {STARTUP_SECONDS:g} s")
            self.ready = bool(line)  # b"": it died at start, said below
        if self.ready:
            try:
                proc.stdin.write(json.dumps({"name": source.name, "size": len(source.data), **request}).encode()
                                 + b"\n" + source.data)
                proc.stdin.flush()
            except (BrokenPipeError, OSError):
                pass  # it died on the file before: said below
            line = self._reply_line(limits.seconds, by_cpu=True)
        if line is None:
            self.stop()
            raise PathLensError(f"{source.name}: stopped after {limits.seconds:g} s (the time limit per file); "
                                "the file may be damaged or built to stall a reader")
        if not line:
            code = proc.wait()
            if code < 0:
                sig = -code
                name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else "signal"
                raise PathLensError(f"{source.name}: the reader crashed (signal {sig}, {name}); the file is damaged "
                                    "or not what its name says")
            last = (proc.stderr.read().decode("utf-8", "replace").strip().splitlines() or ["no output"])[-1]
            if "MemoryError" in last or "bad_alloc" in last:
                raise PathLensError(f"{source.name}: ran past the {_size(limits.memory_bytes)} memory cap per file")
            raise PathLensError(f"{source.name}: the reader failed (exit {code}: {last[:200]})")
        reply = json.loads(line)
        if reply.get("memory"):
            self.stop()  # a MemoryError may leave the interpreter in any state: start afresh
            raise PathLensError(f"{source.name}: ran past the {_size(limits.memory_bytes)} memory cap per file")
        if reply.get("error"):
            raise PathLensError(reply["error"])
        return reply

    def _reply_line(self, seconds: float, by_cpu: bool = False) -> bytes | None:
        """One line of the worker's answer; b"" when it died, None when it ran past `seconds`: of wall time, or
        (`by_cpu`, a file's limit) of the worker's own CPU time, or as long with its CPU time standing still (asleep,
        or blocked on nothing). By CPU, a busy machine, which slows every reader, stops none a quiet one reads: a
        10-K "stopped after 60 s" in wall time under a load of 12 on two cores. Without /proc, wall time."""
        import selectors

        start = cpu_seconds(self.proc.pid) if by_cpu else None
        with selectors.DefaultSelector() as sel:
            sel.register(self.proc.stdout, selectors.EVENT_READ)
            if start is None:
                return self.proc.stdout.readline() if sel.select(timeout=seconds) else None
            last, moved = start, time.monotonic()
            while not sel.select(timeout=min(POLL_SECONDS, seconds)):
                used = cpu_seconds(self.proc.pid)
                if used is None:
                    break  # it is gone: readline says so
                if used - start >= seconds:
                    return None
                if used > last:
                    last, moved = used, time.monotonic()
                elif time.monotonic() - moved >= seconds:
                    return None
        return self.proc.stdout.readline()

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            stream.close()


def read_many(sources: Sequence[SourceFile], limits: ReadLimits = ReadLimits(), reader: str = READER,
              progress: Callable[[str, int, int], None] | None = None
              ) -> list[tuple[Document, tuple[Problem, ...]] | PathLensError]:
    """Each document read in a worker process, `limits.processes` workers at a time (default one per core),
    results in the order given: its document and problems, or the PathLensError that names what went wrong
    (a crash, a hang, memory, a reader's failure). A worker that fails a file is replaced for the next. A file
    this code has read already is taken from `read_cache`, with no worker.
    `progress("files", done, total)` is called at the start and as each file is over, read or not (a page follows
    an upload by it)."""
    if not sources:
        return []
    out: list = [None] * len(sources)
    todo = iter(range(len(sources)))
    lock = threading.Lock()
    over = [0]
    if progress is not None:
        progress("files", 0, len(sources))

    def one_more() -> None:
        with lock:
            over[0] += 1
            if progress is not None:
                progress("files", over[0], len(sources))

    def serve() -> None:
        worker: _Worker | None = None
        try:
            while True:
                with lock:
                    i = next(todo, None)
                if i is None:
                    return
                # the shipped reader's replies are kept (`read_cache`); a test's own reader may do anything
                k = read_cache.key(sources[i], reader) if reader == READER else None
                reply = read_cache.get(k) if k is not None else None
                if reply is None:
                    if worker is None or not worker.alive:
                        worker = _Worker(limits, reader)
                    try:
                        reply = worker.read(sources[i])
                    except PathLensError as e:
                        out[i] = e
                    else:
                        if k is not None:
                            read_cache.put(k, reply)
                if reply is not None:
                    out[i] = _decode(reply)
                one_more()
        finally:
            if worker is not None:
                worker.proc.stdin.close()  # ends its loop
                worker.stop()

    workers = min(limits.processes or os.cpu_count() or 1, len(sources))
    threads = [threading.Thread(target=serve, name=f"pathlens-read-{n}") for n in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


def read_one(source: SourceFile, limits: ReadLimits = ReadLimits(), reader: str = READER
             ) -> tuple[Document, tuple[Problem, ...]]:
    """One document read in a worker process; raises PathLensError naming the file and what happened."""
    result = read_many([source], limits, reader)[0]
    if isinstance(result, PathLensError):
        raise result
    return result


def call_one(source: SourceFile, function: str, args: dict, limits: ReadLimits = ReadLimits()):
    """`function(source, **args)` ("module:name", answering plain JSON) run in a fresh worker process under
    `limits`, as a document's reader is: its answer, or PathLensError naming the file and what happened (a crash,
    a hang, memory, the function's own failure). The function's module is loaded with the worker, outside the
    file's time."""
    worker = _Worker(limits, function)
    try:
        return worker.call(source, function, args)
    finally:
        worker.stop()


def _serve(reader: str, memory_bytes: int) -> None:
    """In the worker: cap its own memory, then read files from stdin until it closes, one JSON line each. A
    header naming a `call` ("module:name") runs that function on the file with the header's `args` instead."""
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    module, _, fn = reader.partition(":")
    read = getattr(import_module(module), fn)
    inp, out = sys.stdin.buffer, sys.stdout
    sys.stdout = sys.stderr  # a library's print must never land in the reply
    out.write(json.dumps({"ready": True}) + "\n")  # loaded: from here on, each file's time is its own
    out.flush()
    while True:
        header = inp.readline()
        if not header:
            return
        head = json.loads(header)
        name, data = head["name"], inp.read(head["size"])
        try:
            if head.get("call"):
                module, _, fn = head["call"].partition(":")
                reply = {"result": getattr(import_module(module), fn)(SourceFile(name, data), **head.get("args", {}))}
            else:
                doc, problems = read(SourceFile(name, data))
                reply = {"document": asdict(doc), "problems": [asdict(p) for p in problems]}
        except PathLensError as e:
            reply = {"error": str(e)}
        except MemoryError:
            reply = {"error": "memory", "memory": True}
        except Exception as e:  # noqa: BLE001 — the reader's own failure on a damaged file, named by the parent
            reply = {"error": f"{name}: could not be read: the reader failed ({type(e).__name__}: {e})"}
        out.write(json.dumps(reply) + "\n")
        out.flush()


if __name__ == "__main__":
    _serve(sys.argv[1], int(sys.argv[2]))


__all__ = ["READER", "ReadLimits", "call_one", "read_many", "read_one"]
