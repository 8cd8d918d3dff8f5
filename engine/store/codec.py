"""How the on-disk cache (engine.store.cache) writes a component's value and reads it back, without pickle: reading
a cache file back builds data, never runs code. The trust is the same as engine.store.parts' (JSON and raw arrays).

A payload is a line with the length of a JSON document, the document, then the arrays it refers to, one after the
other, each in NumPy's .npy format (read with allow_pickle=False: numbers and booleans only). A bare JSON array is
a list, and JSON's strings, numbers, true, false and null are themselves. Every JSON object is a tag with one key,
standing for one kind of value:

    {"tuple": [...]}                          a tuple
    {"dict": [[key, value], ...]}             a dict, in its order (a key may be any value here that can be one)
    {"bytes": "<base64>"}                     bytes
    {"array": i}                              the i-th .npy record after the document
    {"csr_matrix": [shape, data, indices, indptr]}, {"csc_matrix": [...]}   scipy's compressed sparse matrices
    {"hnsw": array}                           an engine.store.ann.HnswIndex: faiss's own serialisation of its graph
    {"dataclass": [name, {"dict": fields}]}   one of `_dataclasses`, rebuilt by its constructor from its fields

A dataclass is rebuilt only when its name is one of `_dataclasses`' (engine types the code imports itself): a
name in a file is looked up there, never imported. Types are matched exactly, so what is read back has the very
type that was stored (a tuple stays a tuple, an int64 array an int64 array, a dict keeps its order); a value of
any other type (a set, a Counter, a numpy scalar, an object array) is refused when stored, with a TypeError naming
its type, never written some other way. A file that does not decode raises (ValueError, KeyError, …): the cache
then rejects and rebuilds it. Sparse matrices are checked in full (every index in range) before anyone reads them.

The one reader here not written in Python and NumPy is faiss's, of an HNSW graph: it runs nothing named in the
file, but how well it checks a deliberately crafted graph is faiss's own affair (the file's SHA-256 catches
damage, not a writer who recomputes it).

A change to this format is a change of the cache's file layout: bump engine.store.cache.CACHE_VERSION.
"""

from __future__ import annotations

import base64
import dataclasses
import io
import json
from functools import lru_cache

import numpy as np
from scipy import sparse

from .ann import HnswIndex

ARRAY_KINDS = "biufc"  # booleans, signed and unsigned integers, floats, complex numbers: what an .npy holds as bytes
_SPARSE = {"csr_matrix": sparse.csr_matrix, "csc_matrix": sparse.csc_matrix}


@lru_cache(maxsize=None)
def _dataclasses() -> dict[str, type]:
    """The dataclasses a cache file may hold, by the name a file gives them (imported here, when first needed:
    the graph modules import more than the cache needs to start)."""
    from ..graph.entities import Extraction
    from ..graph.entity_graph import EntityGraph

    return {f"{c.__module__}.{c.__qualname__}": c for c in (Extraction, EntityGraph)}


# ---------------------------------------------------------------- writing


def encode(value) -> bytes:
    """`value` as a payload; TypeError for a value (or a part of it) of a type this codec does not know."""
    arrays: list[np.ndarray] = []
    doc = json.dumps(_encode(value, arrays), ensure_ascii=False, separators=(",", ":")).encode("utf-8",
                                                                                               "surrogatepass")
    out = io.BytesIO()
    out.write(b"%d\n" % len(doc))
    out.write(doc)
    for a in arrays:
        np.lib.format.write_array(out, a, allow_pickle=False)
    return out.getvalue()


def _unknown(value) -> TypeError:
    t = type(value)
    return TypeError(f"the on-disk cache cannot store a {t.__module__}.{t.__qualname__} "
                     f"(engine.store.codec knows plain values, tuples, lists, dicts, bytes, numeric numpy arrays, "
                     f"csr/csc matrices, HnswIndex and the dataclasses {', '.join(_dataclasses())})")


def _encode(v, arrays: list[np.ndarray]):
    t = type(v)
    if v is None or t is bool or t is int or t is float or t is str:
        return v
    if t is tuple or t is list:
        # a tuple of strings (a passage's tokens, ids, entity keys) goes to JSON as it is: no call per string
        items = v if all(type(x) is str for x in v) else [_encode(x, arrays) for x in v]
        return {"tuple": items} if t is tuple else list(items)
    if t is dict:
        return {"dict": [[_encode(k, arrays), _encode(x, arrays)] for k, x in v.items()]}
    if t is bytes:
        return {"bytes": base64.b64encode(v).decode("ascii")}
    if t is np.ndarray:
        if v.dtype.kind not in ARRAY_KINDS or v.dtype.hasobject or v.dtype.names is not None:
            raise TypeError(f"the on-disk cache cannot store an array of dtype {v.dtype} (only {ARRAY_KINDS!r} kinds)")
        arrays.append(v)
        return {"array": len(arrays) - 1}
    if t in _SPARSE.values():
        name = next(k for k, c in _SPARSE.items() if c is t)
        return {name: [list(v.shape), *(_encode(a, arrays) for a in (v.data, v.indices, v.indptr))]}
    if t is HnswIndex:
        state = v.__getstate__()
        return {"hnsw": _encode(state["faiss"], arrays)}
    if t in _dataclasses().values():
        fields = dataclasses.fields(v)
        if not all(f.init for f in fields):
            raise TypeError(f"{t.__qualname__} has a field its constructor does not take: the cache cannot rebuild it")
        return {"dataclass": [f"{t.__module__}.{t.__qualname__}",
                              {"dict": [[f.name, _encode(getattr(v, f.name), arrays)] for f in fields]}]}
    raise _unknown(v)


# ---------------------------------------------------------------- reading


def decode(payload: bytes):
    """The value `encode` made `payload` from; raises (ValueError, KeyError, …) on anything else."""
    line_end = payload.index(b"\n", 0, 24)
    size = int(payload[:line_end].decode("ascii"))
    if not 0 < size <= len(payload) - line_end - 1:
        raise ValueError(f"a JSON document of {size} bytes in a payload of {len(payload)}")
    doc = payload[line_end + 1:line_end + 1 + size].decode("utf-8", "surrogatepass")
    stream = io.BytesIO(payload)
    stream.seek(line_end + 1 + size)
    arrays = []
    while stream.tell() < len(payload):
        a = np.lib.format.read_array(stream, allow_pickle=False)
        if a.dtype.kind not in ARRAY_KINDS or a.dtype.names is not None:
            raise ValueError(f"an array of dtype {a.dtype}")
        arrays.append(a)

    def tag(obj: dict):
        if len(obj) != 1:
            raise ValueError(f"a JSON object with {len(obj)} keys, not one tag")
        ((name, body),) = obj.items()
        return _DECODERS[name](body, arrays)  # KeyError: an unknown tag

    return json.loads(doc, object_hook=tag)  # tags are decoded innermost first: a tag's body is already decoded


def _array(i, arrays) -> np.ndarray:
    if type(i) is not int or not 0 <= i < len(arrays):
        raise ValueError(f"no array {i!r}")
    return arrays[i]


def _sparse(name: str):
    def decode_sparse(body, arrays):
        (rows, cols), data, indices, indptr = body
        if not all(type(a) is np.ndarray for a in (data, indices, indptr)) or indices.dtype.kind != "i" \
                or indptr.dtype != indices.dtype:
            raise ValueError(f"a {name} whose parts are not arrays of the right kinds")
        m = _SPARSE[name]((data, indices, indptr), shape=(rows, cols))
        m.data, m.indices, m.indptr = data, indices, indptr  # as stored: the constructor narrows int64 indices that fit
        m.check_format(full_check=True)  # every index in range: sparse arithmetic does not check them itself
        if (m.data.dtype, m.indices.dtype) != (data.dtype, indices.dtype):
            raise ValueError(f"a {name} whose arrays changed type on reading")
        return m

    return decode_sparse


def _hnsw(body, arrays) -> HnswIndex:
    if type(body) is not np.ndarray or body.dtype != np.uint8:
        raise ValueError("an HNSW graph that is not bytes")
    index = HnswIndex.__new__(HnswIndex)
    index.__setstate__({"faiss": body})  # faiss reads its own format (and sets the search width: engine.store.ann)
    return index


def _dataclass(body, arrays):
    name, fields = body
    cls = _dataclasses()[name]  # KeyError: a class the cache does not rebuild
    expected = [f.name for f in dataclasses.fields(cls)]
    if type(fields) is not dict or list(fields) != expected:
        raise ValueError(f"{name} with fields {list(fields)!r}, not {expected!r}")
    return cls(**fields)


def _bytes(body, arrays) -> bytes:
    if type(body) is not str:
        raise ValueError("bytes that are not base64 text")
    return base64.b64decode(body, validate=True)


def _dict(body, arrays) -> dict:
    if type(body) is not list or not all(type(kv) is list and len(kv) == 2 for kv in body):
        raise ValueError("a dict that is not a list of pairs")
    return dict(body)


def _tuple(body, arrays) -> tuple:
    if type(body) is not list:
        raise ValueError("a tuple that is not a list")
    return tuple(body)


_DECODERS = {"tuple": _tuple, "dict": _dict, "bytes": _bytes, "array": _array, "hnsw": _hnsw,
             "dataclass": _dataclass, **{name: _sparse(name) for name in _SPARSE}}

__all__ = ["ARRAY_KINDS", "decode", "encode"]
