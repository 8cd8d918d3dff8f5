"""Exceptions raised at PathLens's boundaries.

Every input problem a user can cause is a `PathLensError` (a `ValueError`), so the
command line and the pages can show its message as one line and carry on.
"""


class PathLensError(ValueError):
    """Bad input: an unknown name, a malformed file, an out-of-range parameter."""


class NoSeedError(PathLensError):
    """A graph retriever found no query entity in its graph, so it returns no hits."""
