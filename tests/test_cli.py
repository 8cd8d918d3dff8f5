import json
import re
import subprocess
import sys

import pytest

from engine.cli import main
from tests.conftest import ROOT


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_eval_json_shape(capsys):
    code, out, _ = run(capsys, "eval", "--corpus", "dataroom-core", "--retrievers", "bm25,tfidf,ppr-regex", "--k", "1,3,5", "--json")
    assert code == 0
    data = json.loads(out)
    assert set(data) == {"corpus", "n_passages", "n_queries", "unit", "config", "results"}
    assert data["corpus"] == "dataroom-core" and data["n_queries"] == 40
    for name in ("bm25", "tfidf", "ppr-regex"):
        res = data["results"][name]
        for m in ("hr@1", "hr@3", "hr@5", "mrr", "recall@5", "all@5"):
            assert 0.0 <= res[m] <= 1.0
        assert set(res["by_kind"]) == {"single-hop", "multi-hop"}
        # per-question values, so anyone can compute a paired CI: their means are the reported means
        assert len(res["per_query"]) == 40
        assert sum(v["hr@5"] for v in res["per_query"].values()) / 40 == pytest.approx(res["hr@5"])


def test_compare_prints_the_paired_bootstrap_ci_of_every_metric(capsys):
    from engine.evaluate.metrics import paired_bootstrap

    code, out, err = run(capsys, "eval", "--corpus", "dataroom-core", "--retrievers", "bm25,ppr-regex",
                         "--k", "1,5", "--compare", "ppr-regex,bm25", "--json")
    assert code == 0, err
    data = json.loads(out)
    cmp = data["compare"]
    assert (cmp["a"], cmp["b"]) == ("ppr-regex", "bm25")
    assert set(cmp["metrics"]) == {"hr@1", "hr@5", "mrr", "recall@1", "recall@5", "all@1", "all@5"}
    a, b = data["results"]["ppr-regex"]["per_query"], data["results"]["bm25"]["per_query"]
    ref = paired_bootstrap([a[q]["mrr"] for q in a], [b[q]["mrr"] for q in a], resamples=10_000, seed=42)
    assert cmp["metrics"]["mrr"]["low"] == ref.low and cmp["metrics"]["mrr"]["high"] == ref.high
    assert cmp["metrics"]["mrr"]["mean_diff"] == pytest.approx(data["results"]["ppr-regex"]["mrr"]
                                                               - data["results"]["bm25"]["mrr"])
    code, out, _ = run(capsys, "eval", "--corpus", "dataroom-core", "--retrievers", "bm25,ppr-regex",
                       "--compare", "ppr-regex,bm25")
    assert code == 0 and "ppr-regex − bm25: paired bootstrap over 40 questions" in out
    assert re.search(r"^mrr\s+[+-]\d\.\d{3}\s+[+-]\d\.\d{3}\s+[+-]\d\.\d{3}", out, re.M)


def test_bench_json_has_per_query_values_and_compare(capsys):
    code, out, err = run(capsys, "bench", "--format", "musique", "--file", str(ROOT / "tests" / "fixtures" / "musique.jsonl"),
                         "--mode", "closed", "--retrievers", "bm25,ppr-regex", "--compare", "bm25,ppr-regex", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert set(data["results"]["bm25"]["per_query"]) == set(data["results"]["ppr-regex"]["per_query"])
    assert "hr@5" in data["compare"]["metrics"]


def test_bench_against_compares_each_retriever_with_itself_under_other_settings(capsys):
    code, out, err = run(capsys, "bench", "--format", "musique", "--file", str(ROOT / "tests" / "fixtures" / "musique.jsonl"),
                         "--mode", "closed", "--retrievers", "ppr-regex", "--alpha", "0.5", "--against", "alpha=0.15",
                         "--json")
    assert code == 0, err
    data = json.loads(out)
    assert set(data["results"]) == {"ppr-regex", "ppr-regex [alpha=0.15]"} and "compare" not in data
    (pair,) = data["against"]
    assert (pair["a"], pair["b"]) == ("ppr-regex", "ppr-regex [alpha=0.15]")
    a, b = (data["results"][n]["per_query"] for n in ("ppr-regex", "ppr-regex [alpha=0.15]"))
    diffs = [a[q]["hr@1"] - b[q]["hr@1"] for q in a]  # the paired CI is over these, question by question
    assert pair["metrics"]["hr@1"]["mean_diff"] == pytest.approx(sum(diffs) / len(diffs))
    code, _, err = run(capsys, "bench", "--format", "musique", "--file", str(ROOT / "tests" / "fixtures" / "musique.jsonl"),
                       "--retrievers", "ppr-regex", "--against", "alpha")
    assert code == 2 and "--against: expected NAME=VALUE" in err


def test_query_graph_json(capsys):
    code, out, _ = run(capsys, "query", "--corpus", "dataroom-core", "--retriever", "bct-regex", "--alpha", "0.2", "--iterations", "15",
                       "--k", "3", "--json", "Who manages the fund that owns Solano Foods?")
    assert code == 0
    data = json.loads(out)
    assert len(data["hits"]) == 3 and len(data["residuals"]) == 15
    assert data["seeds"] and all("seed_shares" in h["explanation"] and "evidence_paths" in h["explanation"]
                                 for h in data["hits"])
    assert data["config"]["graph"]["alpha"] == 0.2


def test_query_json_explains_lexical_and_fused_hits(capsys):
    code, out, _ = run(capsys, "query", "--corpus", "dataroom-core", "--retriever", "bm25", "--k", "3", "--json",
                       "Calder Bank credit agreement")
    assert code == 0
    for h in json.loads(out)["hits"]:
        assert sum(t["contribution"] for t in h["explanation"]["terms"]) == pytest.approx(h["score"], rel=1e-12)
    code, out, _ = run(capsys, "query", "--corpus", "dataroom-core", "--retriever", "rrf", "--k", "3",
                       "Calder Bank credit agreement")
    assert code == 0 and "why: bm25 ranks it #1, worth 0.0164 (1/(60 + 1): the higher it ranks, the more)" in out


def test_query_without_an_entity_is_a_what_if(capsys):
    q = "Which bank is administrative agent on the credit facility of the company whose CFO is Elliot Park?"
    base = ["query", "--corpus", "dataroom-core", "--retriever", "ppr-regex", "--k", "3", "--json", q]
    code, out, _ = run(capsys, *base)
    before = json.loads(out)
    assert code == 0 and "elliot park" in {s["entity"] for s in before["seeds"]}
    code, out, _ = run(capsys, *base, "--without", "Elliot Park")
    after = json.loads(out)
    assert code == 0 and "elliot park" not in {s["entity"] for s in after["seeds"]}
    assert [h["passage_id"] for h in after["hits"]] != [h["passage_id"] for h in before["hits"]]
    top = before["hits"][0]["passage_id"]
    code, out, _ = run(capsys, *base, "--without-passage", top)
    assert code == 0 and top not in {h["passage_id"] for h in json.loads(out)["hits"]}
    code, _, err = run(capsys, *base, "--without", "Nobody Known")
    assert code == 2 and "no entity 'nobody known'" in err


def test_query_table(capsys):
    code, out, _ = run(capsys, "query", "--corpus", "dataroom-core", "--retriever", "bm25", "Calder Bank credit agreement")
    from engine.ingest.corpus import load_corpus
    from engine.indexing.index import Index

    hits = Index(load_corpus("dataroom-core")).retriever("bm25").search("Calder Bank credit agreement", 5)
    ranked = re.findall(r"^ ?(\d+)\. +([\d.]+) +(\S+)", out, re.MULTILINE)
    assert code == 0 and [(int(r), p) for r, _, p in ranked] == [(h.rank, h.passage_id) for h in hits]
    assert [float(s) for _, s, _ in ranked] == pytest.approx([h.score for h in hits], abs=5e-6)


@pytest.mark.parametrize("argv,message", [
    (["query", "--retriever", "nope", "x"], "unknown retriever"),
    (["query", "--k", "0", "x"], "k must"),
    (["query", "   "], "empty"),
    (["query", "--corpus", "no-such", "x"], "unknown corpus"),
    (["query", "--retriever", "ppr-regex", "--alpha", "1.5", "Calder Bank"], "alpha"),
    (["query", "--retriever", "ppr-regex", "--iterations", "0", "Calder Bank"], "iterations"),
    (["query", "--retriever", "bct-regex", "--beta", "-1", "Calder Bank"], "β"),
    (["query", "--corpus", "dataroom-core", "--retriever", "ppr-regex", "what about the weather?"], "no hits"),
    (["eval", "--k", "0"], "cut-off"),
    (["eval", "--k", "a,b"], "whole numbers"),
    (["frobnicate"], "invalid choice"),
    (["eval", "--corpus", "dataroom-core", "--retrievers", "bm25", "--compare", "bm25,dense"], "not among --retrievers"),
    (["eval", "--corpus", "dataroom-core", "--compare", "bm25"], "two retrievers"),
    (["query", "--retriever", "hybrid-regex", "--passage-weight", "2", "Calder Bank"], "passage-seed weight w"),
    (["query", "--retriever", "hybrid-regex", "--tau", "0", "Calder Bank"], "temperature τ"),
])
def test_bad_input_exits_2_with_one_line(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert message in err and len(err.strip().splitlines()) == 1


def test_module_entry_point_and_listing():
    p = subprocess.run([sys.executable, "-m", "engine"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and "dataroom-core" in p.stdout
    p = subprocess.run([sys.executable, "-m", "engine", "graph", "--corpus", "dataroom-core", "--builder", "regex", "--json"], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    data = json.loads(p.stdout)
    assert data["stats"]["entities"] > 20 and data["extraction"]["kept"] == data["stats"]["entities"]
    assert any(a["rule"] == "defined term" for a in data["aliases"])
    notes = {n["entity"]: n["note"] for n in data["largest_entities"]}  # what makes each large, as the Corpus page says
    assert notes["Fund"] == "a term 01-northriver-iv-q3-2024-lp-report.md defines as “NorthRiver Capital Partners IV, L.P.”", notes


def test_sweep_defaults_to_sizes_that_fit_a_benchmark_corpus(capsys):
    # the fixture's open corpus is smaller than 100 passages, so the fixed defaults cannot apply
    code, out, err = run(capsys, "sweep", "--format", "musique", "--file", str(ROOT / "tests" / "fixtures" / "musique.jsonl"),
                         "--retrievers", "bm25,ppr-regex", "--resamples", "2", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["sizes"][-1] == data["n_passages"] and len(data["sizes"]) >= 2
    assert set(data["results"][str(data["sizes"][0])]) == {"bm25", "ppr-regex"}
    # as text: the table, then the sweep read out, from the same numbers
    code, text, err = run(capsys, "sweep", "--format", "musique", "--file", str(ROOT / "tests" / "fixtures" /
                          "musique.jsonl"), "--retrievers", "bm25,ppr-regex", "--resamples", "2")
    full = data["results"][str(data["n_passages"])]
    best = max(full, key=lambda r: full[r]["mean"])
    lines = text.strip().splitlines()
    assert code == 0 and lines[-2].startswith(f"On the whole corpus ({data['n_passages']:,} passages) "), lines
    assert (best in lines[-2] and f"{full[best]['mean']:.3f}" in lines[-2]
            and lines[-1].startswith(f"From {data['sizes'][0]:,} passages to")), lines
    assert data["in_words"] == lines[-2:]  # --json carries the same sentences
    code, _, err = run(capsys, "sweep", "--corpus", "dataroom-core", "--sizes", "5,full", "--retrievers", "bm25")
    assert code == 2 and "smaller than the" in err


def test_every_catalog_parameter_is_a_flag_named_after_it_and_its_values_round_trip(capsys):
    from engine.catalog import PARAMS
    from engine.indexing.index import param_values, search_config

    with pytest.raises(SystemExit):
        main(["query", "--help"])
    helptext = capsys.readouterr().out
    for name, p in PARAMS.items():
        assert f"{p.flag} {name.upper()}" in helptext and p.flag == "--" + name.replace("_", "-")
    # every value set comes back under its name, none lost or renamed on the way through the config
    chosen = {name: (p.high if isinstance(p.default, int) else (p.low + p.high) / 2) for name, p in PARAMS.items()}
    assert param_values(search_config(chosen)) == chosen


@pytest.mark.parametrize("text, said", [("Acme Widgets hired Dana Cho.", "(1 passage)"),
                                        ("Acme Widgets hired Dana Cho.\n\n" + "Filler words. " * 90
                                         + "\n\nBeta Gadgets sold a plant.", "(3 passages)")])
def test_a_k_past_the_corpus_says_how_many_passages_there_are(capsys, tmp_path, text, said):
    from engine.ingest.corpus import load_corpus

    (tmp_path / "room.txt").write_text(text)
    n = len(load_corpus(str(tmp_path / "room.txt")).passages)
    assert said == f"({n} passage{'s' * (n > 1)})"
    assert main(["query", "--corpus", str(tmp_path / "room.txt"), "--retriever", "bm25", "--k", "5", "Acme"]) == 0
    assert (f"note: k = 5 is larger than the corpus {said}: every passage the retriever ranks is shown"
            in capsys.readouterr().err)


def test_eval_only_keeps_one_group_and_cluster_prints_both_intervals(capsys):
    from engine.evaluate.metrics import cluster_bootstrap
    from engine.ingest.corpus import load_corpus

    code, out, err = run(capsys, "eval", "--corpus", "dataroom-core", "--retrievers", "bm25,ppr-regex", "--k", "5",
                         "--only", "kind=multi-hop", "--compare", "ppr-regex,bm25", "--cluster", "doc", "--json")
    assert code == 0, err
    data = json.loads(out)
    multi = {q.id for q in load_corpus("dataroom-core").queries if q.kind == "multi-hop"}
    assert set(data["results"]["bm25"]["per_query"]) == multi and data["n_queries"] == len(multi)
    clustered = data["compare"]["clustered"]
    assert clustered["by"] == "doc"
    # the clustered interval, recomputed from the per-question values and each question's gold documents
    corpus = load_corpus("dataroom-core")
    doc_of = {p.id: p.doc_id for p in corpus.passages}
    a, b = data["results"]["ppr-regex"]["per_query"], data["results"]["bm25"]["per_query"]
    qs = {q.id: q for q in corpus.queries}
    clusters = [" + ".join(sorted({doc_of[g] for g in qs[q].gold})) for q in a]
    ref = cluster_bootstrap([a[q]["hr@5"] for q in a], [b[q]["hr@5"] for q in a], clusters, resamples=10_000, seed=42)
    assert clustered["clusters"] == len(set(clusters)) and clustered["metrics"]["hr@5"]["low"] == ref.low
    code, out, _ = run(capsys, "eval", "--corpus", "dataroom-core", "--retrievers", "bm25,ppr-regex", "--k", "5",
                       "--compare", "ppr-regex,bm25", "--cluster", "doc")
    assert code == 0 and "paired bootstrap over 40 questions" in out and "bootstrap of whole documents:" in out
    code, _, err = run(capsys, "eval", "--corpus", "dataroom-core", "--only", "kind=none")
    assert code == 2 and "no question has kind = 'none'" in err
    code, _, err = run(capsys, "eval", "--corpus", "dataroom-core", "--cluster", "company", "--compare", "bm25,tfidf")
    assert code == 2 and "no 'company' field" in err


def test_filings_lists_each_identity_with_the_page_and_rule_of_each_field(capsys, tmp_path):
    from tests.filingmaker import write_pdfs

    folder = write_pdfs(tmp_path / "room")
    code, out, _ = run(capsys, "filings", "--corpus", str(folder), "--json")
    out = json.loads(out)
    rows = {r["doc"]: r for r in out["filings"]}
    acme = rows["ACME_2020_10K.pdf"]
    assert (acme["company"], acme["form"], acme["fiscal_year"], acme["quarter"], acme["period_end"]) == (
        "Acme Widgets", "10-K", 2020, None, "2020-05-31")
    assert "acmewidgets" in acme["names"] and "ACMW" in acme["symbols"]
    fields = {x["field"]: (x["page"], x["rule"]) for x in acme["read_from"]}
    assert fields["form"] == (1, "cover: FORM 10-K") and fields["company"] == (1, "cover")
    assert fields["period_end"] == (1, "cover: For the fiscal year ended May 31, 2020")
    _, table, _ = run(capsys, "filings", "--corpus", str(folder))
    assert "ACME_2019_10K.pdf" in table and "2019-05-31" in table and "Acme Widgets: acmewidgets" in table


def test_a_plain_query_on_filings_prints_the_rankers_parts_and_the_walk_that_found_the_page(capsys, tmp_path):
    """The table a terminal reads, on a room of PDFs, whose default retriever is the learned page ranker: each hit's
    score in its largest parts, the walk's rank of the page, and the walk's own sentence (it raised on a page
    ranker's explanation)."""
    from tests.filingmaker import write_pdfs

    folder = write_pdfs(tmp_path / "room")
    code, out, _ = run(capsys, "query", "--corpus", str(folder), "--k", "2",
                       "What were Acme's additions to property, plant and equipment in fiscal 2020?")
    assert code == 0
    first = out.split("\n 2. ")[0]
    score = float(re.search(r"^ 1\. (\S+) ", first, re.M).group(1))
    said = re.search(r"score ([+-]\d+\.\d\d) from ([+-]\d+\.\d\d), where every page of this search begins: "
                     r"(.+)$", first, re.M)
    parts = [float(v) for v in re.findall(r" ([+-]\d+\.\d\d)(?:;|$)", said.group(3))]
    assert float(said.group(1)) == pytest.approx(score, abs=0.005)
    assert sum(parts) + float(said.group(2)) == pytest.approx(score, abs=0.005 * (len(parts) + 2))
    assert "The graph search that found this page ranked it " in first and "Its score: " in first


def test_eval_pools_a_dev_set_split_over_two_rooms(capsys, tmp_path):
    """Two rooms, each with its own questions: `--corpus A,B --queries QA,QB` evaluates each room with its own index
    and reports the questions together, clustered by filing across both."""
    rooms = []
    for name, texts in (("a", ["Calder Bank lends to Brightwater Logistics.", "Elliot Park is the CFO."]),
                        ("b", ["Juniper Peak owns Solano Foods.", "Osprey Mutual is its largest investor."])):
        folder = tmp_path / name
        folder.mkdir()
        for i, t in enumerate(texts):
            (folder / f"{name}{i}.md").write_text(t, "utf-8")
        questions = tmp_path / f"{name}.jsonl"
        questions.write_text("\n".join(json.dumps({"id": f"{name}-q{i}", "text": t.split()[0] + " " + t.split()[1],
                                                    "gold": [f"{name}{i}.md#0000"]}) for i, t in enumerate(texts)),
                             "utf-8")
        rooms.append((folder, questions))
    singles = []
    for folder, questions in rooms:
        _, out, _ = run(capsys, "eval", "--corpus", str(folder), "--queries", str(questions), "--retrievers", "bm25",
                        "--k", "1", "--json")
        singles.append(json.loads(out)["results"]["bm25"]["per_query"])
    code, out, _ = run(capsys, "eval", "--corpus", f"{rooms[0][0]},{rooms[1][0]}",
                       "--queries", f"{rooms[0][1]},{rooms[1][1]}", "--retrievers", "bm25,tfidf", "--k", "1",
                       "--compare", "bm25,tfidf", "--cluster", "doc", "--json")
    data = json.loads(out)
    assert code == 0 and data["n_queries"] == 4 and data["corpus"] == "a + b"
    assert data["results"]["bm25"]["per_query"] == {**singles[0], **singles[1]}
    assert data["results"]["bm25"]["hr@1"] == pytest.approx(sum(v["hr@1"] for s in singles for v in s.values()) / 4)
    code, _, err = run(capsys, "eval", "--corpus", f"{rooms[0][0]},{rooms[1][0]}", "--queries", str(rooms[0][1]))
    assert code == 2 and "--corpus names 2 rooms, so --queries takes 2 files" in err


def test_every_subcommand_in_the_table_answers_help_and_is_listed_at_the_top(capsys):
    """The parser is built from options.SUBCOMMANDS: each row is a subcommand the top-level help lists with its line,
    whose own help shows every argument of its row; and each row has its function in engine.cli.COMMANDS."""
    from engine.cli import COMMANDS
    from engine.cli.options import SUBCOMMANDS

    assert set(SUBCOMMANDS) == set(COMMANDS)
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    top = capsys.readouterr().out
    assert done.value.code == 0 and "{" + ",".join(SUBCOMMANDS) + "}" in top
    for name, command in SUBCOMMANDS.items():
        assert re.search(rf"^ +{re.escape(name)} +{re.escape(' '.join(command.help.split()[:2]))}", top, re.M), name
        with pytest.raises(SystemExit) as done:
            main([name, "--help"])
        text = capsys.readouterr().out
        assert done.value.code == 0 and text.startswith(f"usage: python -m engine {name} "), name
        for a in command.args:
            assert a.names[0] in text, (name, a.names)
    # and the bare listing names every subcommand but itself
    main([])
    listed = capsys.readouterr().out.split("Subcommands: ", 1)[1].split(" (", 1)[0].split(", ")
    assert listed == [n for n in SUBCOMMANDS if n != "list"], listed


def _shared_groups() -> dict[str, tuple[set[str], set[str]]]:
    """A shared option → the subcommands that take it, and the rest of its group (declared once in options.py)."""
    from engine.catalog import PARAMS

    return {
        "--corpus": ({"query", "report", "eval", "sweep", "perf", "build", "demo", "filings", "graph"}, set()),
        "--json": ({"query", "eval", "bench", "sweep", "perf", "build", "demo", "filings", "graph"}, set()),
        "--compare": ({"eval", "bench", "sweep"}, set()),
        "--tol": ({"query", "report", "eval", "bench", "sweep"},  # the search options: every catalog parameter
                  {p.flag for p in PARAMS.values()} | {"--seeding", "--rrf-members", "--rrf-weights"}),
        "--company": ({"query", "report"},  # one question, with the filings scope
                      {"--retriever", "--k", "--without", "--without-passage", "--fiscal-year", "--form",
                       "--statement", "--everywhere"}),
        "--sample": ({"bench", "sweep"}, {"--format", "--file", "--seed", "--retrievers", "--k"}),  # a benchmark run
    }


@pytest.mark.parametrize("option", ["--corpus", "--json", "--compare", "--tol", "--company", "--sample"])
def test_a_shared_option_stays_on_every_subcommand_that_takes_it(option):
    import argparse

    from engine.cli.options import parser

    (subparsers,) = [a for a in parser()._actions if isinstance(a, argparse._SubParsersAction)]
    flags = {name: set(p._option_string_actions) for name, p in subparsers.choices.items()}
    takers, group = _shared_groups()[option]
    assert {name for name, f in flags.items() if option in f} >= takers
    assert all(group <= flags[name] for name in takers), option
    assert flags["list"] == {"-h", "--help"} and "--json" not in flags["report"] and "--corpus" not in flags["bench"]
