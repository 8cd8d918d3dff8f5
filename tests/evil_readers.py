"""Document readers that misbehave on purpose, run by `engine.ingest.isolated`'s workers in the tests: a
crash, a hang, a flood of memory, and a plain bug. Each stands in for what a damaged file can do to PDFium."""

from __future__ import annotations

import os
import signal
import time

from engine.ingest.documents import read_document  # loaded with the worker, as the real reader is


def segfault(source):
    os.kill(os.getpid(), signal.SIGSEGV)


def sleep(source):
    time.sleep(60)


def spin(source):
    while True:  # CPU without end
        pass


def starved(source):
    """The real reader, as a machine with many other processes runs it: a little CPU time now and then, for
    three seconds of wall time."""
    end = time.monotonic() + 3
    while time.monotonic() < end:
        t = time.process_time()
        while time.process_time() - t < 0.02:
            pass
        time.sleep(0.1)
    return read_document(source)


def allocate(source):
    hog = bytearray(4 * 1024 ** 3)  # past any cap the tests set
    return hog


def key_error(source):
    raise KeyError("/Root")


def slow_start(source):
    """The real reader in a worker that took long to start (imported below: the module sleeps first)."""
    return read_document(source)


if os.environ.get("PATHLENS_TEST_SLOW_START"):  # a worker's start on a loaded machine, longer than the file limit
    time.sleep(float(os.environ["PATHLENS_TEST_SLOW_START"]))


def by_name(source):
    """The real reader, except for files whose name says how to fail."""
    for word, fn in (("SEGV", segfault), ("HANG", sleep), ("HOG", allocate), ("BUG", key_error), ("SPIN", spin),
                     ("SLOW", starved)):
        if word in source.name:
            return fn(source)
    return read_document(source)
