"""The command line's options: a table of the subcommands (SUBCOMMANDS), each row its help and its arguments;
every catalog parameter as a flag named after it, and the options several subcommands share, declared once as
groups the rows splice in. Adding a subcommand is adding a row (and its function to engine.cli.COMMANDS)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from types import MappingProxyType
from typing import Callable, Mapping

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
                            everywhere=getattr(args, "everywhere", False), quarter=getattr(args, "fiscal_quarter", None))
    return search_config({name: getattr(args, name) for name in PARAMS}, corpus, tol=args.tol,
                         vocabulary=args.seeding == "vocabulary", rrf_members=members, rrf_weights=weights,
                         scope=scope)



def floats(text: str, flag: str) -> list[float]:
    try:
        return [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise PathLensError(f"{flag}: expected comma-separated numbers, got {text!r}") from None



# ---------------------------------------------------------------- the subcommands, as a table
#
# Each subcommand is one row of SUBCOMMANDS: its help line and its arguments, in the order `--help` lists them.
# The groups several subcommands share (CORPUS, AS_JSON, COMPARE, SEARCH, ASK, run_options) are declared once
# and spliced into the rows that take them; `parser()` builds every row the same way.


@dataclass(frozen=True)
class Later:
    """A keyword's value made anew each time a parser is built: one that needs a slow import, a fresh list, or the
    catalog as it is then."""

    make: Callable[[], object]


CATALOG_NAMES = Later(lambda: "comma-separated: " + ", ".join(CATALOG))  # read when a parser is built: the catalog
# as it is then, a retriever added to it included


@dataclass(frozen=True)
class Arg:
    """One `add_argument` call: a positional's name or an option's flags, and its keywords."""

    names: tuple[str, ...]
    options: Mapping[str, object]

    def add_to(self, p: argparse.ArgumentParser) -> None:
        p.add_argument(*self.names, **{k: v.make() if isinstance(v, Later) else v for k, v in self.options.items()})


def arg(*names: str, **options) -> Arg:
    return Arg(names, MappingProxyType(options))


@dataclass(frozen=True)
class Command:
    """A subcommand: its line in the top-level help, and its arguments in order."""

    help: str
    args: tuple[Arg | EachParam, ...] = ()


CORPUS = (arg("--corpus", default=None, help="a bundled corpus, or a folder, zip or file of documents (default: the "
                                             "full data room)"),)
AS_JSON = (arg("--json", action="store_true", help="print JSON instead of a table"),)
COMPARE = (arg("--compare", default="", metavar="A,B",
               help="print the paired-bootstrap 95%% CI of A − B for every metric (10,000 resamples, seed 42)"),)

# every catalog parameter as a flag named after it, with the catalog's default, range and help (None = not given:
# a bundled corpus's tuned default, else the catalog's, applies); then the settings that are not single numbers
class EachParam:
    """Every catalog parameter as a flag, read from the catalog when a parser is built (one added to it included)."""

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(spec.flag for spec in PARAMS.values())

    def add_to(self, p: argparse.ArgumentParser) -> None:
        for name, spec in PARAMS.items():
            p.add_argument(spec.flag, dest=name, type=type(spec.default), default=None,
                           help=f"{spec.help} Default {spec.default} (or the corpus's tuned value), "
                                f"range {spec.low}–{spec.high}.")


SEARCH = (EachParam(),) + (
    arg("--tol", type=float, default=None, help="stop PPR early when the L1 change is below this"),
    arg("--seeding", choices=("vocabulary", "paper"), default="vocabulary",
        help="graph seeding: 'vocabulary' also seeds every graph entity named in the question and weighs seeds by "
             "specificity (default); 'paper' seeds the extracted names only, uniformly, as the Aethel paper does"),
    arg("--rrf-members", default="", help="RRF member retrievers (default bm25,ppr-ner)"),
    arg("--rrf-weights", default="", help="RRF weights, one per member (weighted RRF); default all 1"),
)

# a correction of the scope the filings retriever reads off the question
SCOPE = (
    arg("--company", default=None, help="filings: the company the question is about (name or ticker; '' clears what "
                                        "was read)"),
    arg("--fiscal-year", type=int, default=None, help="filings: the fiscal year (0 clears what was read)"),
    arg("--fiscal-quarter", type=int, default=None,
        help="filings: the fiscal quarter, 1-4, by each company's own calendar (0 clears what was read)"),
    arg("--form", default=None, help="filings: the form: 10-K, 10-Q, 8-K or 'earnings release' ('' clears what was "
                                     "read)"),
    arg("--statement", default=None,
        help="filings: the statement (" + ", ".join(STATEMENTS) + "; '' clears what was read)"),
    arg("--everywhere", action="store_true",
        help="filings: search every filing even when the question names a company the room lacks (without it, such "
             "a question stops and the room's companies are named)"),
)

# one question, as on the Query page (`query` and `report`)
ASK = (
    arg("question"),
    arg("--retriever", default=None, metavar="RETRIEVER",
        help=Later(lambda: f"default {DEFAULT_RETRIEVER}, or {FILINGS_RETRIEVER} for a corpus of PDFs, as on the Query "
                   "page; one of: " + "; ".join(f"{n} ({s.description})" for n, s in CATALOG.items()))),
    arg("--k", type=int, default=5),
    arg("--without", action="append", default=Later(list), metavar="ENTITY",
        help="what-if: rank as if the extractor had never found this entity (repeatable)"),
    arg("--without-passage", action="append", default=Later(list), metavar="PASSAGE_ID",
        help="what-if: rank as if the corpus lacked this passage (repeatable)"),
) + SCOPE


def run_options(retrievers: str, file_required: bool) -> tuple[Arg, ...]:
    """A benchmark run's options (`bench` and `sweep`): which questions, which retrievers, which cut-offs."""
    return (
        arg("--format", required=file_required, help="musique, hotpotqa or 2wiki"),
        arg("--file", required=file_required, help="path to the benchmark's JSON or JSON Lines file"),
        arg("--sample", type=int, default=None, help="use a random sample of N questions"),
        arg("--seed", type=int, default=42),
        arg("--retrievers", default=retrievers, help=CATALOG_NAMES),
        arg("--k", default="1,3,5"),
    )


def _perf_sections() -> str:
    from ..evaluate.perf import SECTION_NAMES

    return ("comma-separated sections to run (default all): " + ", ".join(SECTION_NAMES)
            + "; without cold_build the on-disk cache is read")


SUBCOMMANDS: Mapping[str, Command] = MappingProxyType({
    "list": Command("list bundled corpora"),
    "query": Command("rank passages for one question", CORPUS + AS_JSON + ASK + SEARCH),
    "report": Command("write the self-contained HTML evidence report of one question", CORPUS + ASK + SEARCH + (
        arg("--out", default=None, help="the HTML file to write (default: evidence-report-<the question's first "
                                        "words>-<today>.html, the name the Query page's download has)"),
    )),
    "page": Command("draw one page of a PDF to PNG, with what a question matched marked on it, and read its "
                    "statement table with the column each value sits under", CORPUS + AS_JSON + (
        arg("doc", help="the PDF, as its passages cite it (e.g. APPLE_2022_10K.pdf)"),
        arg("page", type=int, help="the page, from 1"),
        arg("--question", default=None, help="mark what the corpus's default retriever matched for this question: "
                                             "its best hit on the page outlined, the question's words and the hit's "
                                             "seed entities filled"),
        arg("--retriever", default=None, metavar="RETRIEVER", help="with --question: instead of the default"),
        arg("--k", type=int, default=10, help="with --question: how many hits to look through for the page"),
        arg("--row", default=None, metavar="LABEL", help="mark the row that starts with this line item"),
        arg("--width", type=int, default=1400, help="the image's width in pixels (default 1400)"),
        arg("--out", default=None, help="the PNG to write (default: <document>-p<page>.png)"),
    )),
    "eval": Command("metrics over the corpus's labeled queries", CORPUS + AS_JSON + COMPARE + SEARCH + (
        arg("--queries", action="append", default=None, metavar="FILE",
            help="labeled questions (JSON lines) to use instead of any queries.jsonl beside the corpus; repeat to pool "
                 "several files. With several rooms (--corpus A,B), one file per room, in order: each room is "
                 "evaluated with its own index and the questions are reported together"),
        arg("--unit", default="auto", choices=("auto", "passage", "page"),
            help="what rankings rank: pages (each page once, at its best passage), passages, or auto: pages when "
                 "every question's gold is pages"),
        arg("--by", default="kind", metavar="FIELD",
            help="group the per-group tables by this field of the questions: kind (the default) or any extra field; "
                 "a comma-separated value puts a question in each group it names"),
        arg("--only", default="", metavar="FIELD=VALUE",
            help="evaluate only the questions whose field has this value, e.g. half=test"),
        arg("--cluster", default="", choices=("", "doc", "company"),
            help="with --compare: also print the CI that resamples whole filings (doc) or companies with their "
                 "questions, beside the one that resamples questions"),
        arg("--retrievers", default="bm25,tfidf,dense,rrf", help=CATALOG_NAMES),
        arg("--k", default="1,3,5"),
    )),
    "bench": Command("MuSiQue / HotpotQA / 2Wiki benchmark, closed pool or open corpus",
                     AS_JSON + COMPARE + run_options("bm25,tfidf,dense,ppr-regex,bct-regex", True) + SEARCH + (
        arg("--mode", default="closed", help="closed (per-question pool) or open (pooled corpus)"),
        arg("--queries", default=None, metavar="FILE",
            help="open corpus: labeled questions (JSON lines, as eval's) asked of it instead of the benchmark's own, "
                 "e.g. tests/data/musique_open.comparisons.queries.jsonl"),
        arg("--against", default="", metavar="NAME=VALUE,…",
            help="also run each retriever with these parameters instead (e.g. hop_share=0), and compare each with "
                 "itself under them (paired bootstrap)"),
    )),
    "sweep": Command("metric versus corpus size, over resampled subsets", CORPUS + AS_JSON + COMPARE
                     + run_options("bm25,tfidf,dense,ppr-regex,bct-regex,ppr-ner,bct-ner,rrf", False) + SEARCH + (
        arg("--sizes", default=None,
            help="comma-separated whole numbers and 'full' (default: 100,500,1000,2000,full where they fit the "
                 "corpus, else four sizes from its gold-passage count up)"),
        arg("--resamples", type=int, default=5),
        arg("--metric", default="hr@5"),
    )),
    "perf": Command("speed and memory benchmark (needs requirements-bench.txt)", CORPUS + AS_JSON + (
        arg("--format", default=None, help="with --file: the pooled open corpus of a benchmark file"),
        arg("--file", default=None),
        arg("--no-growth", action="store_true", help="skip the 1k/10k/100k growth runs"),
        arg("--no-sweep", action="store_true", help="skip the full default sweep"),
        arg("--sections", default="", help=Later(_perf_sections)),
        arg("--ann-size", type=int, default=100_000, metavar="N",
            help="synthetic unit vectors for the ANN timing (default 100,000; docs/performance.md's row used "
                 "1,000,000)"),
        arg("--ann-pool", default=None, metavar="CORPUS",
            help="pool this corpus's passages with the measured one's for the ANN recall check"),
        arg("--growth-sizes", default="1000,10000,100000", metavar="N,N,…",
            help="generated corpus sizes for the growth rows (e.g. 1000,10000,100000,1000000)"),
        arg("--baseline-build", action="store_true",
            help="room_build: also rerun today's path (float32 encoding, every stage in catalog order)"),
        arg("--question", default="What were total revenues?",
            help="upload_first_answer: the question asked as soon as the uploaded room can be asked"),
        arg("--params", default="", metavar="NAME=VALUE,…",
            help="query_latency: catalog parameters over the corpus's defaults (e.g. hop_share=0.6)"),
        arg("--add-document", default="", metavar="FILE",
            help="with a folder: the document add_document adds to the room built without it (default: the last "
                 "by name)"),
    )),
    "build": Command("build a corpus's index into the on-disk cache, here or on a Ray cluster", CORPUS + AS_JSON + (
        arg("--ray", default=None, metavar="ADDRESS",
            help="run extraction and encoding as Ray tasks: 'auto' (the cluster this machine joined), HOST:6379, "
                 "ray://HOST:10001, or 'local' (a Ray instance on this machine)"),
        arg("--cpus", type=int, default=None, help="with --ray local: CPUs of the local instance"),
        arg("--shard", type=int, default=256, help="with --ray: passages per task (default 256)"),
        arg("--stages", default="", help="components to build (default all that are cached): " + ", ".join(PERSISTED)),
        arg("--cache-dir", default=None,
            help="where to write the cache (default $PATHLENS_CACHE_DIR, else .pathlens-cache)"),
    )),
    "demo": Command("which labeled question the Query page should open on: each one's top hit and the share of its "
                    "score owed to a bridging entity", CORPUS + AS_JSON + (
        arg("--retriever", default=DEFAULT_RETRIEVER, help=f"default {DEFAULT_RETRIEVER}, the page's"),
    )),
    "filings": Command("each filing's identity: company, its names, form, fiscal year, quarter, period end, and which "
                       "page and rule gave each", CORPUS + AS_JSON),
    "graph": Command("graph statistics and extraction filter counts", CORPUS + AS_JSON + (
        arg("--builder", default="regex", choices=None),
    )),
    "scope-eval": Command("how many labelled questions the question reader scopes to exactly the expected filings, "
                          "by kind (tests/data/question_reading.jsonl)", AS_JSON + (
        arg("--queries", default="tests/data/question_reading.jsonl", metavar="FILE"),
        arg("--shared", default="../shared/data", help="the folder holding each question's room"),
        arg("--only", default="", metavar="half=HALF", help="only this half: half=tune or half=test"),
    )),
    "train-ranker": Command("retrain the learned page ranker (filing-learned) on the tuning halves of the filings dev "
                            "sets; the same data gives the same file, byte for byte", (
        arg("--shared", default="../shared/data", help="the shared data folder holding the dev sets' rooms"),
        arg("--out", default=None, help="the model file to write (default: the engine's own, "
                                        "engine/retrieve/page_ranker.json)"),
        arg("--check", action="store_true", help="write nothing; say whether retraining gives the saved file"),
        arg("--kind", default="lambdarank", choices=("lambdarank", "linear"),
            help="lambdarank (the shipped model: LightGBM's trees) or linear (a logistic regression over the same "
                 "features, to compare on the test halves; write it elsewhere with --out)"),
    )),
    "precedents": Command("past deals like the one a question describes, ranked, each score split into named parts",
                          AS_JSON + (
        arg("question"),
        arg("--k", type=int, default=10, help="how many deals to show (default 10)"),
        arg("--ranker", default="learned", metavar="RANKER",
            help="learned (default: gradient-boosted, trained on reverse queries), hand (DealGraph's hand weights), "
                 "dense (description similarity alone) or walk (the deal graph's walk alone)"),
        arg("--sector", action="append", default=Later(list), metavar="SECTOR",
            help="filter: only deals of this sector (repeatable, or comma-separated; the lexicon's words work)"),
        arg("--region", action="append", default=Later(list), metavar="REGION",
            help="filter: only deals of this region (repeatable, or comma-separated; 'Germany' is DACH)"),
        arg("--year-from", type=int, default=None, help="filter: only deals of this year or later"),
        arg("--year-to", type=int, default=None, help="filter: only deals of this year or earlier"),
        arg("--cue", action="append", default=Later(list), metavar="FIELD=VALUE",
            help="correct a cue read from the question (repeatable): sector, subsector, region, role, min_add_ons, "
                 "origin, exit, year_from, year_to, size_min, size_max; an empty value clears it (region=)"),
        arg("--why", action="append", default=Later(list), metavar="DEAL_ID",
            help="also score this deal wherever it ranks: why not this one (repeatable)"),
        arg("--deals", default=None, metavar="FILE",
            help="your deal list (CSV or JSON Lines, columns in docs/precedents.md) instead of the bundled universe"),
    )),
    "deals": Command("read a deal list (CSV or JSON Lines): what loaded, and each row left out by line and field",
                     AS_JSON + (
        arg("--import", dest="import_file", required=True, metavar="FILE",
            help="the deal list; columns in docs/precedents.md"),
    )),
    "train-precedents": Command("remake the learned precedents ranker from the reverse queries, byte for byte",
                                AS_JSON + (
        arg("--out", default=None, metavar="FILE",
            help="where to write the model (default: engine/deals/precedents_ranker.json, the one shipped)"),
    )),
    "precedents-eval": Command("the precedents rankers compared: precision@3 and nDCG@10 with paired-bootstrap "
                               "95%% CIs", AS_JSON + (
        arg("--sets", default="investor-test,heldout-templates",
            help="comma-separated question sets: investor-test, investor-tune, heldout-templates, train-templates"),
        arg("--resamples", type=int, default=10_000, help="bootstrap resamples (default 10,000, seed 42)"),
        arg("--drop-phrases", default="", metavar="PHRASE,…",
            help="read the questions with a lexicon without these phrases: what the figures owe to them"),
        arg("--by-score", action="store_true",
            help="rank by each ranker's score alone, not first by the asked cues a deal meets as the page does"),
    )),
})


def parser() -> argparse.ArgumentParser:
    """The command line, built from SUBCOMMANDS: a subparser per row, its arguments added in order."""
    top = ArgParser(prog="python -m engine", description="PathLens engine: retrieval you can explain.")
    sub = top.add_subparsers(dest="command")
    for name, command in SUBCOMMANDS.items():
        p = sub.add_parser(name, help=command.help)
        for a in command.args:
            a.add_to(p)
    return top
