"""The evidence report: one self-contained HTML file to hand over, read top down by someone who was not there.

It opens with the question and the answers: each ranked passage by document and page, with the one sentence saying what
its score owes to what (engine.explain.reasons), its routes with the share of the score they carry, and its text with
the matches marked. Then the evidence graph (interactive, vis-network inlined, and a static SVG beside it). Last, "How
this was computed": the retriever and every parameter, the seeds with their rules and weights, the link that reproduces
the view in the app and the command that writes the same file. The file is named after the question and day.

Every piece of corpus or user text is escaped before it becomes HTML; the interactive graph is a sandboxed srcdoc
iframe whose own page escapes its data (see `render`). The file fetches nothing: no script, style, font or image.
"""

from __future__ import annotations

import html
import re
import shlex
import hashlib
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Iterable, Sequence
from urllib.parse import urlencode

from ..errors import PathLensError
from ..indexing.index import Index, SearchConfig, param_values
from ..indexing.views import without
from ..catalog import EDGE_PARAMS, PARAMS, ranks_pages, spec
from .entity_notes import walk_definitions
from .figures import REPORT_PAGE_WIDTH, cited_page, graph_svg, hit_entities, hit_page, page_failure, page_figure
from ..ingest.documents import SourceFile
from .page_evidence import pdf_source
from .parts import explained, page_parts_html, walk_rank_words
from .reasons import IN_TEXT, exactness_words, explanation_lines, move_words, passage_name
from .render import COLORS, MARKDOWN_HEADING, ROLE_WORDS, page_height, passage_seed_summary, second_hop_summary, subgraph_html
from ..retrieve.retrievers import check_k, check_query
from ..text import tokenize


def highlight(text: str, terms: Iterable[str]) -> str:
    """Passage text as safe HTML with the given terms marked as whole words (the entity "Fund" is not marked
    inside "unfunded", nor "lt" inside the "&lt;" of the escaped text); the text is escaped first. Case is
    ignored, except that a name written with a capital does not mark a word in lower case ("to fund a
    facility" is not the Fund)."""
    safe = html.escape(text)
    words = sorted({t for t in terms if t.strip()}, key=len, reverse=True)
    if words:
        capital: dict[str, bool] = {}  # every term of this spelling starts with a capital
        for w in words:
            key = html.escape(w).lower()
            capital[key] = capital.get(key, True) and w[:1].isupper()

        def mark(m: re.Match) -> str:
            found = m.group(0)
            return found if found[:1].islower() and capital.get(found.lower()) else f"<mark>{found}</mark>"

        alternatives = "|".join(re.escape(html.escape(w)) for w in words)
        pattern = re.compile(rf"(?<![\w&#])(?:{alternatives})(?!\w)", re.IGNORECASE)
        safe = pattern.sub(mark, safe)
    # a Markdown heading of the source reads as a heading, not as "# …"
    return MARKDOWN_HEADING.sub(r"<strong>\1</strong>", safe)



def marked_terms(matched_entities: Iterable[str] | None, text: str, question: str) -> list[str]:
    """What to mark in a hit's text: the seed entities it mentions (graph retrievers), else the
    words that share a token with the question."""
    if matched_entities is not None:
        return list(matched_entities)
    q_terms = set(tokenize(question))
    return [w for w in text.split() if set(tokenize(w)) & q_terms]


UPLOADED = "your own files"  # what a link names as its corpus when the view is of uploaded files
UPLOADED_BEFORE = "upload a corpus file"  # the same, as links made with the picker's earlier wording name it


@dataclass(frozen=True)
class UploadedFile:
    """A file of an uploaded corpus, as a link names it: uploads are never shared, so a link says which files
    to add (by name, size and content) for its view to come back."""

    name: str
    size: int
    sha256: str

    def words(self) -> str:
        """"APPLE_2022_10K.pdf (1.2 MB, sha256 40f4a5169ac4…)"."""
        return f"{self.name} ({self.size_words()}, sha256 {self.sha256[:12]}…)"

    def size_words(self) -> str:
        return _size(self.size)

    def token(self) -> str:
        return f"{self.name}:{self.size}:{self.sha256}"


def _size(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 100_000 else f"{n / 1e3:.1f} kB" if n >= 1_000 else f"{n} bytes"


def uploaded_files(folder: Path) -> tuple[UploadedFile, ...]:
    """The files of an upload folder, by name."""
    return tuple(UploadedFile(f.name, f.stat().st_size, hashlib.sha256(f.read_bytes()).hexdigest())
                 for f in sorted(Path(folder).iterdir(), key=lambda f: f.name) if f.is_file())


def files_in_link(value: str) -> tuple[UploadedFile, ...]:
    """A link's `files` parameter read back ("NAME:SIZE:SHA256;…"); a malformed entry is left out."""
    out = []
    for entry in value.split(";"):
        name, _, rest = entry.rpartition(":")
        name, _, size = name.rpartition(":")
        if name and size.isdigit() and re.fullmatch(r"[0-9a-f]{64}", rest):
            out.append(UploadedFile(name, int(size), rest))
    return tuple(out)


def folder_placeholder(files: Sequence[UploadedFile]) -> str:
    """The CLI's --corpus for a view of uploaded files: a placeholder that says which files to put there."""
    names = [f.name for f in files]
    return ("FOLDER-holding-" + ",".join(names)) if len(names) <= 3 else f"FOLDER-holding-the-{len(names)}-files-listed-above"


@dataclass(frozen=True)
class ReportView:
    """Everything that defines a Query-page view, so the page and the CLI write the same file."""

    corpus: str  # a bundled corpus name or the path the CLI was given
    question: str
    retriever: str
    k: int
    config: SearchConfig
    without_entities: tuple[str, ...] = ()
    without_passages: tuple[str, ...] = ()
    files: tuple[UploadedFile, ...] = ()  # the files of an uploaded corpus; () for a bundled corpus or a path

    def link(self) -> str:
        """The Query page's URL parameters for this view (append to the app's address). A view of uploaded files
        names them, so the page opened in another session asks for exactly those files."""
        g = self.config.graph
        corpus = {"corpus": UPLOADED, "files": ";".join(f.token() for f in self.files)} if self.files else \
            {"corpus": self.corpus}
        params = {**corpus, "q": self.question, "retriever": self.retriever, "k": self.k,
                  **param_values(self.config)}  # every catalog parameter under its own name
        if g.tol is not None:
            params["tol"] = g.tol
        if not g.vocabulary:
            params["seeding"] = "paper"
        if self.retriever == "rrf":
            params["members"] = ",".join(self.config.rrf.members)
            if self.config.rrf.weights:
                params["weights"] = ",".join(f"{w:g}" for w in self.config.rrf.weights)
        sc = self.config.scope
        for key, value in (("company", sc.company), ("fiscal_year", sc.year), ("form", sc.form), ("statement", sc.statement)):
            if value is not None:
                params[key] = value if value not in ("", 0) else "none"
        if self.without_entities:
            params["without"] = ";".join(self.without_entities)
        if self.without_passages:
            params["without_passages"] = ";".join(self.without_passages)
        return "/?" + urlencode(params)

    def params_read(self) -> list[str]:
        """The catalog parameters this view's retriever reads (an RRF's, its members'), in catalog order."""
        names = set(spec(self.retriever).params)
        if self.retriever == "rrf":
            names.update(*(spec(m).params for m in self.config.rrf.members))
        return [name for name in PARAMS if name in names]

    def command(self) -> str:
        """The command line that writes this report."""
        g = self.config.graph
        corpus = folder_placeholder(self.files) if self.files else self.corpus
        argv = ["python", "-m", "engine", "report", self.question, "--corpus", corpus, "--retriever",
                self.retriever, "--k", str(self.k)]
        values = param_values(self.config)
        for name in self.params_read():
            argv += [PARAMS[name].flag, f"{values[name]:g}"]
        if g.tol is not None:
            argv += ["--tol", f"{g.tol:g}"]
        if not g.vocabulary:
            argv += ["--seeding", "paper"]
        if self.retriever == "rrf":
            argv += ["--rrf-members", ",".join(self.config.rrf.members)]
            if self.config.rrf.weights:
                argv += ["--rrf-weights", ",".join(f"{w:g}" for w in self.config.rrf.weights)]
        sc = self.config.scope
        for flag, value in (("--company", sc.company), ("--fiscal-year", sc.year), ("--form", sc.form),
                            ("--statement", sc.statement)):
            if value is not None:
                argv += [flag, str(value)]
        for e in self.without_entities:
            argv += ["--without", e]
        for p in self.without_passages:
            argv += ["--without-passage", p]
        return shlex.join(argv)  # the file is named after the question and the day, as the page's download


_STYLE = """body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;color:#222;max-width:1100px;margin:24px auto;
padding:0 16px}h1{font-size:24px}h2{font-size:19px;margin-top:28px}table{border-collapse:collapse;margin:8px 0}
td,th{border:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top}th{background:#f5f5f5}
.hit{border:1px solid #ddd;border-radius:6px;padding:10px 12px;margin:10px 0}.meta{color:#555;font-size:13px}
mark{background:#fff3a8}.whatif{border:2px solid #d62728;border-radius:6px;padding:4px 12px;margin:12px 0}.gold{color:#a86b00;font-weight:600}code{font-size:13px;overflow-wrap:anywhere}iframe{border:1px solid #ddd;width:100%}
svg{border:1px solid #ddd;width:100%;height:auto}figure.page{margin:10px 0}figure.page img{border:1px solid #ccc;
max-width:100%;height:auto}figcaption,.marks-key{color:#555;font-size:13px;margin:4px 0}"""


def _table(headers: list[str], rows: list[list[object]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def report_file_name(question: str, day: date) -> str:
    """The report's file name: the question's first words and the day, so a folder of reports reads as a list of
    questions ("evidence-report-who-manages-the-fund-whose-portfolio-2026-12-01.html")."""
    words = re.findall(r"[a-z0-9]+", question.lower())[:8]
    stem = "-".join(words)[:60].rstrip("-")
    return f"evidence-report-{stem + '-' if stem else ''}{day.isoformat()}.html"


def _parameters(view: ReportView, passages: int) -> list[list[object]]:
    g, hy = view.config.graph, view.config.hybrid
    corpus = (f"{view.corpus}: " + "; ".join(f.words() for f in view.files)) if view.files else view.corpus
    params = [["corpus", corpus], ["passages", f"{passages:,}"], ["retriever", view.retriever],
              ["k", view.k], ["α (restart probability)", g.alpha], ["iteration cap", g.iterations],
              ["tolerance", g.tol or "none"], ["β (alias weight)", g.beta],
              ["seeding", "vocabulary + specificity" if g.vocabulary else "paper (extracted names, uniform)"],
              ["w (passage-seed share)", hy.passage_weight], ["τ", hy.tau], ["passage seeds", hy.top],
              ["λ (lexical share)", hy.lexical]]
    if "filing_passage_weight" in spec(view.retriever).params:
        params.append(["w (filings: passage-seed share)", view.config.filing_passage_weight])
        params.append(["λ (filings: lexical share)", view.config.filing_lexical_share])
        params += [[f"{name.removeprefix('edge_').replace('_', ' ')} edge weight",
                    getattr(view.config.edges, name.removeprefix("edge_"))] for name in EDGE_PARAMS]
    if view.retriever == "rrf":
        params.append(["RRF members and weights", ", ".join(
            f"{m} × {w:g}" for m, w in zip(view.config.rrf.members, view.config.rrf.weights or
                                         [1.0] * len(view.config.rrf.members)))])
    if view.without_entities or view.without_passages:
        params.append(["what-if: taken out", "; ".join(view.without_entities + view.without_passages)])
    return params


def _what_if(view: ReportView, earlier: dict[str, tuple[int, float]], hits, titles: dict[str, str]) -> str:
    """The what-if, said first: what was taken out (crossed out in the graph, as on the page), what each answer's
    move is against, and the passages it pushed out of the top."""
    taken = [f"the entit{'y' if len(view.without_entities) == 1 else 'ies'} "
             + ", ".join(f"“{e}”" for e in view.without_entities)] if view.without_entities else []
    if view.without_passages:
        taken.append(f"the passage{'s' if len(view.without_passages) > 1 else ''} "
                     + ", ".join(passage_name(p, titles, IN_TEXT) for p in view.without_passages))
    shown = {h.passage_id for h in hits}
    gone = [passage_name(p, titles, IN_TEXT) for p in earlier if p not in shown]
    return ("<div class='whatif'><h2>What if: " + html.escape(" and ".join(taken)) + " taken out</h2>"
            "<p>These answers were ranked again as if the extractor had never found the entities, or the corpus "
            "lacked the passages, named here; the evidence graph draws what was taken out crossed out. Beside each "
            "answer: its move against the ranking with nothing taken out, and its score there when that changed.</p>"
            + (f"<p>Gone from the top: {html.escape('; '.join(gone))}.</p>" if gone else
               "<p>No passage left the top.</p>") + "</div>")


MAX_REPORT_PAGES = 10  # pages drawn into one report: ten of a 10-K add about 1.1 MB (docs/performance.md)


def _pages(answer, texts: dict[str, str], pdfs: str, width: int) -> dict[str, str]:
    """Each of the first MAX_REPORT_PAGES hits' cited page as a figure (its HTML), or the reason it is not shown:
    the page's file and number, said by the engine. Hits that cite no page of a PDF have none."""
    out: dict[str, str] = {}
    sources: dict[str, SourceFile | PathLensError] = {}
    for h in answer.hits:
        where = cited_page(h.passage_id)
        if where is None:
            continue
        if len(out) == MAX_REPORT_PAGES:
            out[h.passage_id] = page_failure(f"this report draws the pages of its first {MAX_REPORT_PAGES} answers "
                                             f"only; this one cites {where.doc} page {where.page}")
            continue
        try:
            if where.doc not in sources:  # a file is read once, and a file not found is said once per hit
                try:
                    sources[where.doc] = pdf_source(pdfs, where.doc)
                except PathLensError as e:
                    sources[where.doc] = e
            if isinstance(sources[where.doc], PathLensError):
                raise sources[where.doc]
            page = hit_page(sources[where.doc], h.passage_id, texts[h.passage_id], answer.question,
                            hit_entities(answer, h.passage_id), width)
            out[h.passage_id] = page_figure(page, h.rank)
        except PathLensError as e:
            out[h.passage_id] = page_failure(str(e))
    return out


def _hit(h, answer, titles: dict[str, str], texts: dict[str, str], question: str,
         gold: frozenset[str], moved: str = "", page: str = "") -> str:
    """One answer: its name, where it is and its score; why it came back in one sentence; its routes; its text;
    the page it cites, drawn with what matched marked."""
    e, ranked = explained(answer, h.passage_id)  # a walk's per-seed shares and paths; a learned ranker's parts
    mark = " · <span class='gold'>★ gold</span>" if h.passage_id in gold else ""
    # the name already says the document and the page or part ("… Q3 2024 · part 1"): beside it, only the file it is in
    source = h.passage_id.rpartition("#")[0] or h.passage_id
    out = [f"<div class='hit'><div><strong>{h.rank}. {html.escape(passage_name(h.passage_id, titles, IN_TEXT))}</strong> · "
           f"{html.escape(source)} · score {h.score:.5g}{mark}{html.escape(moved)}</div>"]
    if ranked is not None:
        out.append(page_parts_html(ranked) + f"<div class='meta'>{html.escape(walk_rank_words(ranked.walk_rank))}</div>")
    if e is not None:
        form = {"reason": "<p>{}</p>", "typed path": "<div><strong>Where this page sits:</strong> {}</div>",
                "path": "<div class='meta'>{}</div>"}
        out += [form[kind].format(html.escape(text)) for kind, text in explanation_lines(e, titles)]
    elif h.passage_id in answer.why and ranked is None:
        out.append(f"<p>Why: {html.escape(answer.why[h.passage_id].words())}</p>")
    terms = marked_terms(e.matched_entities if e is not None else None, texts[h.passage_id], question)
    out.append(f"<p>{highlight(texts[h.passage_id], terms)}</p>"
               f"{page}<div class='meta'>passage <code>{html.escape(h.passage_id)}</code></div></div>")
    return "\n".join(out)


def build_report(index: Index, view: ReportView, generated: str, pdfs: str | None = None,
                 page_width: int = REPORT_PAGE_WIDTH) -> str:
    """The report for one view of one question: the question, the answers with their one-sentence reasons and
    cited pages, the evidence graph, and last how it was computed (parameters, seeds, the link and the command).
    `generated` is the time stamp printed in it (the only part that differs between the page's download and the
    command line's file). The pages' PDFs are read from `pdfs` (a corpus as engine.explain.page_evidence names
    one: an upload's folder), by default from the view's corpus."""
    question, k = check_query(view.question), check_k(view.k)
    earlier = None  # with something taken out: the ranking with everything in, what each answer's move is against
    if view.without_entities or view.without_passages:
        everything = index.retriever(view.retriever, view.config).search(question, k)
        earlier = {h.passage_id: (h.rank, h.score) for h in everything}
        index = without(index, view.without_passages, view.without_entities)
    corpus = index.corpus
    texts = {p.id: p.text for p in corpus.passages}
    titles = index.passage_titles()
    gold = next((frozenset(q.gold) for q in corpus.queries if q.text.strip() == question), frozenset())
    answer = index.retriever(view.retriever, view.config).answer(question, k)
    walk, hits = answer.walk, answer.hits
    out = [f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>PathLens evidence report</title>"
           f"<style>{_STYLE}</style></head><body>",
           "<h1>PathLens evidence report</h1>",
           f"<p class='meta'>Generated {html.escape(generated)} · {html.escape(view.corpus)} · "
           f"{html.escape(view.retriever)}</p>",
           f"<h2>Question</h2><p>{html.escape(question)}</p>",
           *([f"<p><strong>Scope as understood{' (corrected)' if walk.extra.scope.corrected else ''}:</strong> "
              f"{html.escape(walk.extra.scope_words)}</p>"] if walk is not None and walk.extra is not None else [])]
    for n in answer.notes:
        out.append(f"<p><strong>Note:</strong> {html.escape(n)}</p>")
    if earlier is not None:
        out.append(_what_if(view, earlier, hits, titles))
    unit = "page" if ranks_pages(view.retriever) else "passage"  # as the Query page
    out.append(f"<h2>Answers: the top {len(hits)} {unit}{'s' if len(hits) != 1 else ''}</h2>")
    if not hits:
        out.append("<p>No passage was returned.</p>")
    pages = _pages(answer, texts, pdfs or view.corpus, page_width)
    out += [_hit(h, answer, titles, texts, question, gold, move_words(earlier, h.passage_id, h.rank, h.score),
                 pages.get(h.passage_id, "")) for h in hits]
    if walk is not None:
        present = {n.kind for n in walk.nodes}  # the key names only what this graph draws, as the frame's does
        key = " · ".join(f"<span style='color:{COLORS[r]}'>■</span> {html.escape(ROLE_WORDS[r])}"
                         for r in COLORS if r in present)
        out.append("<h2>Evidence graph</h2><p class='meta'>Left to right, as the walk went: seeds, the passages "
                   f"they lead to, and, where a name bridges further, that name and those passages. {key}</p>")
        height = page_height(walk, titles, gold, view.without_entities)
        page = subgraph_html(walk, titles=titles, texts=texts, gold=gold, height=height,
                             removed=view.without_entities, defined=walk_definitions(index, walk))
        out.append(f"<iframe sandbox='allow-scripts' height='{height + 20}' srcdoc=\"{html.escape(page, quote=True)}\">"
                   "</iframe>")
        out.append("<p class='meta'>The same graph as a static picture:</p>" + graph_svg(walk, titles, gold,
                                                                                          view.without_entities))
    out += ["<h2>How this was computed</h2>", _table(["parameter", "value"], _parameters(view, len(corpus)))]
    if walk is not None:
        out.append(f"<p class='meta'>{html.escape(exactness_words(walk))}</p>")
        out.append("<h3>Seeds: what the search starts from</h3>")
        if walk.seeds:
            out.append(_table(["entity", "rule", "weight", "passages it occurs in", "from"],
                              [[s.label, s.rule if s.source in ("query", "bridge") else f"alias ({s.rule})",
                                f"{s.weight:.4f}", s.passage_count,
                                f"#{s.named_at} of the first walk: {passage_name(s.via, titles, IN_TEXT)}"
                                if s.named_at else s.via] for s in walk.seeds]))
            if hop := second_hop_summary(walk, titles):
                out.append(f"<p class='meta'>{html.escape(hop)}</p>")
        if walk.passage_seeds:
            out.append(f"<p class='meta'>{html.escape(passage_seed_summary(walk))}</p>")
            out.append(_table(["passage seed", "similarity", "weight"],
                              [[passage_name(p.passage_id, titles, IN_TEXT), f"{p.cosine:.4f}", f"{p.weight:.4f}"]
                               for p in walk.passage_seeds]))
        for amb in walk.ambiguous:
            out.append(f"<p><strong>Ambiguous:</strong> “{html.escape(amb.term)}” is defined in "
                       f"{len({d for d, _ in amb.meanings})} documents as different names; none was seeded for it.</p>")
    if view.files:
        out += ["<p class='meta'>This view is of uploaded files, and uploads are never shared: to see it again, open "
                "the link below and add these files (or, for the command line, put them in one folder and give its "
                "path as FOLDER):</p>", _table(["file", "size", "sha256"], [[f.name, _size(f.size), f.sha256]
                                                                           for f in view.files])]
    if skipped := index.corpus.report.skipped:  # said here too: a walk-through's report listed a damaged file alone
        out.append("<p class='meta'>Not searched: " + html.escape("; ".join(map(str, skipped))) + ".</p>")
    out.append(f"<p class='meta'>Reproduce this view in PathLens: append <code>{html.escape(view.link())}</code> to the "
               f"app's address. Write this report again: <code>{html.escape(view.command())}</code></p>")
    return "\n".join(out + ["</body></html>"])
