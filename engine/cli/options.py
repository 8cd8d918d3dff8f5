"""The command line's options: every catalog parameter as a flag named after it, and the options several
subcommands share, declared once (parent parsers)."""

from __future__ import annotations

import argparse

from ..catalog import CATALOG, DEFAULT_RETRIEVER, FILINGS_RETRIEVER, PARAMS
from ..errors import PathLensError
from ..filings.scope import ScopeCorrection
from ..filings.structure import STATEMENTS
from ..indexing.index import SearchConfig, check_retriever, search_config
from ..store.cache import PERSISTED


CLI_DEFAULT_CORPUS = "dataroom"  # the full-size data room



class ArgParser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, status 2, like every other input error
        raise PathLensError(message)



def ints(text: str) -> list[int]:
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise PathLensError(f"expected comma-separated whole numbers, got {text!r}") from None



def retriever_names(text: str) -> list[str]:
    names = [x.strip() for x in text.split(",") if x.strip()]
    for n in names:
        check_retriever(n)
    if not names:
        raise PathLensError("name at least one retriever")
    return names



def config_of(args, corpus=None) -> SearchConfig:
    """Flags the user gave, over the corpus's tuned defaults, over the catalog's."""
    members = tuple(retriever_names(args.rrf_members)) if args.rrf_members else None
    weights = tuple(floats(args.rrf_weights, "--rrf-weights")) if args.rrf_weights else ()
    scope = ScopeCorrection(getattr(args, "company", None), getattr(args, "fiscal_year", None),
                            getattr(args, "form", None), getattr(args, "statement", None),
                            everywhere=getattr(args, "everywhere", False))
    return search_config({name: getattr(args, name) for name in PARAMS}, corpus, tol=args.tol,
                         vocabulary=args.seeding == "vocabulary", rrf_members=members, rrf_weights=weights,
                         scope=scope)



def floats(text: str, flag: str) -> list[float]:
    try:
        return [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise PathLensError(f"{flag}: expected comma-separated numbers, got {text!r}") from None



def _add_search_options(p: argparse.ArgumentParser) -> None:
    """Every catalog parameter as a flag named after it, with the catalog's default, range and help; then
    the settings that are not single numbers."""
    for name, spec in PARAMS.items():
        # None = not given: a bundled corpus's tuned default, else the catalog's, applies
        p.add_argument(spec.flag, dest=name, type=type(spec.default), default=None,
                       help=f"{spec.help} Default {spec.default} (or the corpus's tuned value), "
                            f"range {spec.low}–{spec.high}.")
    p.add_argument("--tol", type=float, default=None, help="stop PPR early when the L1 change is below this")
    p.add_argument("--seeding", choices=("vocabulary", "paper"), default="vocabulary",
                   help="graph seeding: 'vocabulary' also seeds every graph entity named in the question and weighs "
                        "seeds by specificity (default); 'paper' seeds the extracted names only, uniformly, as the "
                        "Aethel paper does")
    p.add_argument("--rrf-members", default="", help="RRF member retrievers (default bm25,ppr-ner)")
    p.add_argument("--rrf-weights", default="", help="RRF weights, one per member (weighted RRF); default all 1")



def _add_scope_options(p: argparse.ArgumentParser) -> None:
    """A correction of the scope the filings retriever reads off the question."""
    p.add_argument("--company", default=None, help="filings: the company the question is about (name or ticker; "
                                                   "'' clears what was read)")
    p.add_argument("--fiscal-year", type=int, default=None, help="filings: the fiscal year (0 clears what was read)")
    p.add_argument("--form", default=None, help="filings: the form, e.g. 10-K or 8-K ('' clears what was read)")
    p.add_argument("--statement", default=None,
                   help="filings: the statement (" + ", ".join(STATEMENTS) + "; '' clears what was read)")
    p.add_argument("--everywhere", action="store_true",
                   help="filings: search every filing even when the question names a company the room lacks "
                        "(without it, such a question stops and the room's companies are named)")



def _options(add) -> argparse.ArgumentParser:
    """A parent parser holding options several subcommands share, declared once (`add(parser)` adds them)."""
    p = argparse.ArgumentParser(add_help=False)
    add(p)
    return p



def parser() -> argparse.ArgumentParser:
    corpus = _options(lambda p: p.add_argument(
        "--corpus", default=None, help="a bundled corpus, or a folder, zip or file of documents (default: the full "
                                       "data room)"))
    as_json = _options(lambda p: p.add_argument("--json", action="store_true", help="print JSON instead of a table"))
    search = _options(_add_search_options)
    compare = _options(lambda p: p.add_argument(
        "--compare", default="", metavar="A,B",
        help="print the paired-bootstrap 95%% CI of A − B for every metric (10,000 resamples, seed 42)"))

    def ask(p: argparse.ArgumentParser) -> None:  # one question, as on the Query page
        p.add_argument("question")
        p.add_argument("--retriever", default=None, metavar="RETRIEVER",
                       help=f"default {DEFAULT_RETRIEVER}, or {FILINGS_RETRIEVER} for a corpus of PDFs, as on the Query "
                            "page; one of: " + "; ".join(f"{n} ({s.description})" for n, s in CATALOG.items()))
        p.add_argument("--k", type=int, default=5)
        p.add_argument("--without", action="append", default=[], metavar="ENTITY",
                       help="what-if: rank as if the extractor had never found this entity (repeatable)")
        p.add_argument("--without-passage", action="append", default=[], metavar="PASSAGE_ID",
                       help="what-if: rank as if the corpus lacked this passage (repeatable)")
        _add_scope_options(p)

    def run(retrievers: str, file_required: bool) -> argparse.ArgumentParser:  # `bench` and `sweep`
        def add(p: argparse.ArgumentParser) -> None:
            p.add_argument("--format", required=file_required, help="musique, hotpotqa or 2wiki")
            p.add_argument("--file", required=file_required, help="path to the benchmark's JSON or JSON Lines file")
            p.add_argument("--sample", type=int, default=None, help="use a random sample of N questions")
            p.add_argument("--seed", type=int, default=42)
            p.add_argument("--retrievers", default=retrievers, help="comma-separated: " + ", ".join(CATALOG))
            p.add_argument("--k", default="1,3,5")
        return _options(add)

    parser = ArgParser(prog="python -m engine", description="PathLens engine: retrieval you can explain.")
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("list", help="list bundled corpora")
    sub.add_parser("query", help="rank passages for one question", parents=[corpus, as_json, _options(ask), search])
    r = sub.add_parser("report", help="write the self-contained HTML evidence report of one question",
                       parents=[corpus, _options(ask), search])
    r.add_argument("--out", default=None, help="the HTML file to write (default: evidence-report-<the question's first "
                                                "words>-<today>.html, the name the Query page's download has)")

    e = sub.add_parser("eval", help="metrics over the corpus's labeled queries", parents=[corpus, as_json, compare, search])
    e.add_argument("--queries", action="append", default=None, metavar="FILE",
                   help="labeled questions (JSON lines) to use instead of any queries.jsonl beside the corpus; "
                        "repeat to pool several files. With several rooms (--corpus A,B), one file per room, in order: "
                        "each room is evaluated with its own index and the questions are reported together")
    e.add_argument("--unit", default="auto", choices=("auto", "passage", "page"),
                   help="what rankings rank: pages (each page once, at its best passage), passages, or auto: pages "
                        "when every question's gold is pages")
    e.add_argument("--by", default="kind", metavar="FIELD",
                   help="group the per-group tables by this field of the questions: kind (the default) or any "
                        "extra field; a comma-separated value puts a question in each group it names")
    e.add_argument("--only", default="", metavar="FIELD=VALUE",
                   help="evaluate only the questions whose field has this value, e.g. half=test")
    e.add_argument("--cluster", default="", choices=("", "doc", "company"),
                   help="with --compare: also print the CI that resamples whole filings (doc) or companies "
                        "with their questions, beside the one that resamples questions")
    e.add_argument("--retrievers", default="bm25,tfidf,dense,rrf", help="comma-separated: " + ", ".join(CATALOG))
    e.add_argument("--k", default="1,3,5")

    b = sub.add_parser("bench", help="MuSiQue / HotpotQA / 2Wiki benchmark, closed pool or open corpus",
                       parents=[as_json, compare, run("bm25,tfidf,dense,ppr-regex,bct-regex", True), search])
    b.add_argument("--mode", default="closed", help="closed (per-question pool) or open (pooled corpus)")
    b.add_argument("--queries", default=None, metavar="FILE",
                   help="open corpus: labeled questions (JSON lines, as eval's) asked of it instead of the "
                        "benchmark's own, e.g. tests/data/musique_open.comparisons.queries.jsonl")
    b.add_argument("--against", default="", metavar="NAME=VALUE,…",
                   help="also run each retriever with these parameters instead (e.g. hop_share=0), and compare "
                        "each with itself under them (paired bootstrap)")

    w = sub.add_parser("sweep", help="metric versus corpus size, over resampled subsets",
                       parents=[corpus, as_json, compare,
                                run("bm25,tfidf,dense,ppr-regex,bct-regex,ppr-ner,bct-ner,rrf", False), search])
    w.add_argument("--sizes", default=None,
                   help="comma-separated whole numbers and 'full' (default: 100,500,1000,2000,full where they fit "
                        "the corpus, else four sizes from its gold-passage count up)")
    w.add_argument("--resamples", type=int, default=5)
    w.add_argument("--metric", default="hr@5")

    from ..evaluate.perf import SECTION_NAMES

    pf = sub.add_parser("perf", help="speed and memory benchmark (needs requirements-bench.txt)", parents=[corpus, as_json])
    pf.add_argument("--format", default=None, help="with --file: the pooled open corpus of a benchmark file")
    pf.add_argument("--file", default=None)
    pf.add_argument("--no-growth", action="store_true", help="skip the 1k/10k/100k growth runs")
    pf.add_argument("--no-sweep", action="store_true", help="skip the full default sweep")
    pf.add_argument("--sections", default="", help="comma-separated sections to run (default all): "
                    + ", ".join(SECTION_NAMES) + "; without cold_build the on-disk cache is read")
    pf.add_argument("--ann-size", type=int, default=100_000, metavar="N",
                    help="synthetic unit vectors for the ANN timing (default 100,000; docs/performance.md's row used 1,000,000)")
    pf.add_argument("--ann-pool", default=None, metavar="CORPUS",
                    help="pool this corpus's passages with the measured one's for the ANN recall check")
    pf.add_argument("--growth-sizes", default="1000,10000,100000", metavar="N,N,…",
                    help="generated corpus sizes for the growth rows (e.g. 1000,10000,100000,1000000)")
    pf.add_argument("--baseline-build", action="store_true",
                    help="room_build: also rerun today's path (float32 encoding, every stage in catalog order)")
    pf.add_argument("--question", default="What were total revenues?",
                    help="upload_first_answer: the question asked as soon as the uploaded room can be asked")
    pf.add_argument("--params", default="", metavar="NAME=VALUE,…",
                    help="query_latency: catalog parameters over the corpus's defaults (e.g. hop_share=0.6)")
    pf.add_argument("--add-document", default="", metavar="FILE",
                    help="with a folder: the document add_document adds to the room built without it "
                         "(default: the last by name)")

    bd = sub.add_parser("build", help="build a corpus's index into the on-disk cache, here or on a Ray cluster",
                        parents=[corpus, as_json])
    bd.add_argument("--ray", default=None, metavar="ADDRESS",
                    help="run extraction and encoding as Ray tasks: 'auto' (the cluster this machine joined), "
                         "HOST:6379, ray://HOST:10001, or 'local' (a Ray instance on this machine)")
    bd.add_argument("--cpus", type=int, default=None, help="with --ray local: CPUs of the local instance")
    bd.add_argument("--shard", type=int, default=256, help="with --ray: passages per task (default 256)")
    bd.add_argument("--stages", default="", help="components to build (default all that are cached): "
                    + ", ".join(PERSISTED))
    bd.add_argument("--cache-dir", default=None,
                    help="where to write the cache (default $PATHLENS_CACHE_DIR, else .pathlens-cache)")

    dm = sub.add_parser("demo", help="which labeled question the Query page should open on: each one's top hit and "
                                     "the share of its score owed to a bridging entity", parents=[corpus, as_json])
    dm.add_argument("--retriever", default=DEFAULT_RETRIEVER, help=f"default {DEFAULT_RETRIEVER}, the page's")

    sub.add_parser("filings", help="each filing's identity: company, its names, form, fiscal year, quarter, period end, "
                                   "and which page and rule gave each", parents=[corpus, as_json])
    g = sub.add_parser("graph", help="graph statistics and extraction filter counts", parents=[corpus, as_json])
    g.add_argument("--builder", default="regex", choices=None)
    return parser
