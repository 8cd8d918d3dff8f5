"""The cited page itself: one PDF page rendered to PNG, with its characters and where each sits.

A hit cites a page (`APPLE_2022_10K.pdf#p32.0`); a reader trusts it once they see that page. PDFium draws the
page (`render_page`) and reads its character list beside it: each character with its box in page points and its
baseline, and the affine map from page points to the image, so a mark (engine.explain.page_marks) or a table
cell (engine.explain.page_table) found in the characters lands on the drawn words at any width.

PDFium is C++ reading whatever was uploaded, so the parent never runs it on a file: `rendered_page` asks a
worker process (engine.ingest.isolated, the readers' workers, with their time and memory caps) and gets back
the PNG and the characters as plain JSON. A page that cannot be drawn raises PathLensError naming the file and
the page; the caller keeps showing the passage. Drawn pages are kept on disk (`PageCache`) by the file's
SHA-256, the page and the width: PNG bytes, and the characters as JSON, never a pickle.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import math
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..errors import PathLensError
from ..ingest.documents import MAX_PAGE_CHARS, SourceFile, _pdfium_lock
from ..ingest.isolated import ReadLimits, call_one

DEFAULT_WIDTH = 1400  # pixels: 10-point text is legible on a 1400×900 screen at this width
MIN_WIDTH, MAX_WIDTH = 200, 5000
MAX_PIXELS = 60_000_000  # a page drawn taller than this (a hostile MediaBox) is refused, not allocated
WORKER_CALL = "engine.explain.page_image:render_in_worker"
LAYOUT_VERSION = 1  # what a cached layout file holds; the renderer's own version is in the file name too

Box = tuple[float, float, float, float]  # left, bottom, right, top in page points (the PDF's own space, y up)


@dataclass(frozen=True)
class PageLayout:
    """A page's characters as PDFium lists them, and how page points map onto the drawn image.

    `text[i]` is character i of PDFium's list (the list `get_text_range` reads, so a passage's words are found
    in it), `boxes[i]` its loose box (the font's full height: marks cover whole lines of text), `baselines[i]`
    the y of its origin. Generated characters (the spaces and line ends PDFium inserts) have empty boxes.
    `size` is the page in points as drawn, after its /Rotate; `matrix` (a, b, c, d, e, f), read off PDFium's own
    map from the image to the page, takes a page point (x, y) to the drawn page's points, y down:
    (a·x + c·y + e, b·x + d·y + f). Multiply by `scale(width)` for pixels."""

    doc: str
    page: int
    text: str
    boxes: tuple[Box, ...]
    baselines: tuple[float, ...]
    size: tuple[float, float]
    matrix: tuple[float, float, float, float, float, float]

    def __post_init__(self) -> None:
        if not len(self.text) == len(self.boxes) == len(self.baselines):
            raise PathLensError(f"{self.doc} page {self.page}: a layout needs one box and baseline per character")

    def scale(self, width: int) -> float:
        """Pixels per drawn point at this image width."""
        return width / self.size[0]

    def to_pixels(self, box: Box, width: int) -> tuple[int, int, int, int]:
        """A box in page points as (x0, y0, x1, y1) pixels of the image `width` wide, y down, rounded outward."""
        a, b, c, d, e, f = self.matrix
        s = self.scale(width)
        l, bo, r, t = box
        xs, ys = [], []
        for x, y in ((l, bo), (r, bo), (l, t), (r, t)):
            xs.append((a * x + c * y + e) * s)
            ys.append((b * x + d * y + f) * s)
        eps = 1e-6  # a box edge on a pixel's edge stays there, whatever the float rounding
        return (math.floor(min(xs) + eps), math.floor(min(ys) + eps), math.ceil(max(xs) - eps),
                math.ceil(max(ys) - eps))

    def as_json(self) -> dict:
        return {"version": LAYOUT_VERSION, "doc": self.doc, "page": self.page, "text": self.text,
                "boxes": [list(b) for b in self.boxes], "baselines": list(self.baselines), "size": list(self.size),
                "matrix": list(self.matrix)}

    @classmethod
    def from_json(cls, d: dict) -> "PageLayout":
        if d.get("version") != LAYOUT_VERSION:
            raise ValueError("another layout version")
        return cls(str(d["doc"]), int(d["page"]), str(d["text"]), tuple(tuple(map(float, b)) for b in d["boxes"]),
                   tuple(map(float, d["baselines"])), (float(d["size"][0]), float(d["size"][1])),
                   tuple(map(float, d["matrix"])))


@dataclass(frozen=True)
class RenderedPage:
    """A page drawn `width` pixels wide (PNG bytes), its layout, and whether it came from the cache."""

    png: bytes
    width: int
    height: int
    layout: PageLayout
    cached: bool = False


def check_width(width: int) -> int:
    if isinstance(width, bool) or not isinstance(width, int) or not MIN_WIDTH <= width <= MAX_WIDTH:
        raise PathLensError(f"the image width must be a whole number of pixels from {MIN_WIDTH} to {MAX_WIDTH}, "
                            f"got {width!r}")
    return width


def check_page(page: int) -> int:
    if isinstance(page, bool) or not isinstance(page, int) or page < 1:
        raise PathLensError(f"a page number counts from 1, got {page!r}")
    return page


def _render_scale(width: int, page_width: float) -> float:
    # pypdfium2 sizes the bitmap as ceil(points × scale): a hair under width/points keeps it `width` wide
    return width / page_width * (1 - 1e-9)


def _failure(name: str, page: int, why: str) -> PathLensError:
    return PathLensError(f"{name} page {page} could not be rendered ({why})")


def render_page(data: bytes, name: str, page: int, width: int = DEFAULT_WIDTH) -> tuple[bytes, PageLayout]:
    """The page drawn `width` pixels wide, as PNG bytes, and its layout, in this process (what a worker runs;
    call `rendered_page` from anywhere else). Raises PathLensError naming the file and the page."""
    import ctypes

    import pypdfium2 as pdfium
    import pypdfium2.raw as raw

    check_page(page)
    check_width(width)
    with _pdfium_lock:
        try:
            pdf = pdfium.PdfDocument(data)
        except pdfium.PdfiumError as e:
            why = str(e).strip().rstrip(".")
            raise _failure(name, page, "the file is encrypted: it needs a password to open" if "password" in why.lower()
                           else f"not a readable PDF: {why}") from None
        try:
            count = len(pdf)
            if page > count:
                raise _failure(name, page, f"the file has {count} page{'s' if count != 1 else ''}")
            try:
                pg = pdf[page - 1]
            except pdfium.PdfiumError as e:
                raise _failure(name, page, str(e).strip().rstrip(".")) from None
            try:
                w_pt, h_pt = pg.get_size()
                if not (w_pt > 1 and h_pt > 1):
                    raise _failure(name, page, f"its size is {w_pt:g} × {h_pt:g} points")
                scale = _render_scale(width, w_pt)
                if math.ceil(h_pt * scale) * width > MAX_PIXELS:
                    raise _failure(name, page, f"a page of {w_pt:g} × {h_pt:g} points is too tall to draw "
                                               f"{width} pixels wide")
                bitmap = pg.render(scale=scale, rev_byteorder=True)
                image = bitmap.to_pil()
                conv = bitmap.get_posconv(pg)
                # three corners of the image back to page points give the affine map from page to image
                (x0, y0), (x1, y1), (x2, y2) = (conv.to_page(0, 0), conv.to_page(bitmap.width, 0),
                                                conv.to_page(0, bitmap.height))
                matrix = _page_to_image(x0, y0, (x1 - x0) / bitmap.width, (y1 - y0) / bitmap.width,
                                        (x2 - x0) / bitmap.height, (y2 - y0) / bitmap.height, width / w_pt)
                tp = pg.get_textpage()
                try:
                    n = min(tp.count_chars(), MAX_PAGE_CHARS)
                    text = tp.get_text_range(0, n) if n else ""
                    if len(text) != n:  # rare: PDFium's text left characters out; read them one by one
                        text = "".join(chr(raw.FPDFText_GetUnicode(tp, i)) for i in range(n))
                    boxes, baselines = [], []
                    x, y = ctypes.c_double(), ctypes.c_double()
                    for i in range(n):
                        if raw.FPDFText_IsGenerated(tp, i) == 1 or not raw.FPDFText_GetCharOrigin(tp, i, x, y):
                            boxes.append((0.0, 0.0, 0.0, 0.0))
                            baselines.append(0.0)
                            continue
                        box = tp.get_charbox(i, loose=True)
                        box = box if box[2] > box[0] and box[3] > box[1] else tp.get_charbox(i)
                        boxes.append(tuple(round(v, 2) for v in box))  # a hundredth of a point: as kept on disk
                        baselines.append(round(y.value, 2))
                finally:
                    tp.close()
            finally:
                pg.close()
            out = io.BytesIO()
            image.save(out, format="PNG")
        except (PathLensError, MemoryError):
            raise
        except pdfium.PdfiumError as e:
            raise _failure(name, page, str(e).strip().rstrip(".")) from None
        except Exception as e:  # noqa: BLE001 — PDFium's wrapper on a damaged page: named with the page
            raise _failure(name, page, f"PDFium failed: {type(e).__name__}: {str(e)[:200]}") from None
        finally:
            pdf.close()
    layout = PageLayout(name, page, text, tuple(boxes), tuple(baselines), (w_pt, h_pt), matrix)
    return out.getvalue(), layout


def _page_to_image(x0: float, y0: float, ux: float, uy: float, vx: float, vy: float,
                   scale: float) -> tuple[float, float, float, float, float, float]:
    """Invert page = (x0, y0) + u·(ux, uy) + v·(vx, vy) (u, v in pixels) and divide by the pixels per point:
    the map from page points to drawn points."""
    det = ux * vy - vx * uy
    if abs(det) < 1e-12:
        raise ValueError("the page's transform cannot be inverted")
    a, c = vy / det / scale, -vx / det / scale
    b, d = -uy / det / scale, ux / det / scale
    return a, b, c, d, -(a * x0 + c * y0), -(b * x0 + d * y0)


def render_in_worker(source: SourceFile, page: int, width: int) -> dict:
    """What a worker process answers for a render request: plain JSON (the PNG in base64)."""
    png, layout = render_page(source.data, source.name, page, width)
    return {"png": base64.b64encode(png).decode("ascii"), "layout": layout.as_json()}


def render_isolated(source: SourceFile, page: int, width: int,
                    limits: ReadLimits | None = None) -> tuple[bytes, PageLayout]:
    """`render_page` in a worker process under the readers' time and memory caps (ReadLimits.from_env())."""
    try:
        reply = call_one(source, WORKER_CALL, {"page": page, "width": width}, limits or ReadLimits.from_env())
        return base64.b64decode(reply["png"]), PageLayout.from_json(reply["layout"])
    except PathLensError as e:
        said = str(e)
        if said.startswith(f"{source.name} page {page} could not be rendered"):
            raise
        raise _failure(source.name, page, said.removeprefix(f"{source.name}: ").removeprefix(f"{source.name} ")) from None
    except (KeyError, TypeError, ValueError) as e:  # a reply not in the shape asked for
        raise _failure(source.name, page, f"the worker's answer was malformed: {type(e).__name__}") from None


# ---------------------------------------------------------------- the cache


def _renderer_version() -> str:
    from importlib.metadata import version

    return f"pdfium{version('pypdfium2')}-l{LAYOUT_VERSION}"


_PNG_START, _PNG_END = b"\x89PNG\r\n\x1a\n", b"IEND\xaeB`\x82"


class PageCache:
    """Drawn pages on disk under `directory` (default: the engine's cache directory's `pages/`): per file
    (its SHA-256), `p{page}-w{width}-{renderer}.png`, and the page's layout as JSON beside it. Written to a
    temporary name and renamed, so a reader sees a whole file or none; a truncated or foreign file is
    redrawn, never trusted."""

    def __init__(self, directory: Path | None = None):
        if directory is None:
            from ..store.cache import default_dir

            directory = default_dir() / "pages"
        self.directory = Path(directory)

    def _paths(self, digest: str, page: int, width: int) -> tuple[Path, Path]:
        folder, version = self.directory / digest, _renderer_version()
        return folder / f"p{page}-w{width}-{version}.png", folder / f"p{page}-{version}.layout.json"

    def load(self, digest: str, page: int, width: int) -> tuple[bytes, PageLayout] | None:
        png_path, layout_path = self._paths(digest, page, width)
        try:
            png = png_path.read_bytes()
            layout = PageLayout.from_json(json.loads(layout_path.read_text("utf-8")))
        except (OSError, ValueError, KeyError, TypeError, IndexError):
            return None
        if not (png.startswith(_PNG_START) and png.endswith(_PNG_END)) or layout.page != page:
            return None
        return png, layout

    def store(self, digest: str, page: int, width: int, png: bytes, layout: PageLayout) -> None:
        png_path, layout_path = self._paths(digest, page, width)
        try:
            png_path.parent.mkdir(parents=True, exist_ok=True)
            _write_atomic(layout_path, json.dumps(layout.as_json(), separators=(",", ":")).encode("utf-8"))
            _write_atomic(png_path, png)
        except OSError:
            pass  # a read-only or full disk costs a redraw, not the page


def _write_atomic(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".tmp-{os.getpid()}-", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


Renderer = Callable[[SourceFile, int, int], tuple[bytes, PageLayout]]


def rendered_page(source: SourceFile, page: int, width: int = DEFAULT_WIDTH, cache: PageCache | None = None,
                  render: Renderer = render_isolated) -> RenderedPage:
    """Page `page` (from 1) of the PDF `source` drawn `width` pixels wide, from the cache when it was drawn
    there before, else by `render` (a worker process) and kept. Raises PathLensError naming the file and page."""
    check_page(page)
    check_width(width)
    cache = cache if cache is not None else PageCache()
    digest = hashlib.sha256(source.data).hexdigest()
    kept = cache.load(digest, page, width)
    if kept is not None:
        png, layout = kept
        if png_size(png)[0] == width:
            return RenderedPage(png, width, png_size(png)[1], layout, cached=True)
    png, layout = render(source, page, width)
    cache.store(digest, page, width, png, layout)
    return RenderedPage(png, width, png_size(png)[1], layout)


def png_size(png: bytes) -> tuple[int, int]:
    """A PNG's width and height in pixels, from its header (IHDR, the first chunk)."""
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")


__all__ = ["DEFAULT_WIDTH", "Box", "PageCache", "PageLayout", "RenderedPage", "check_page", "check_width", "png_size",
           "render_isolated", "render_page", "rendered_page"]
