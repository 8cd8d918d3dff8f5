from engine.ingest.corpus import Corpus
from engine.ingest.passage import Passage
from engine.indexing.index import Index


def index_of(*texts):
    return Index(Corpus("t", tuple(Passage(f"p{i}", "d", "", t) for i, t in enumerate(texts))))


def rules(index, builder="regex"):
    return {(a.entity, a.alias, a.rule, a.passage_id) for a in index.aliases(builder).rows}


def test_defined_term_with_straight_and_curly_quotes():
    idx = index_of('NorthRiver Capital Partners IV, L.P. (the "Fund") was formed.',
                   "Cedar Point Holdings (the “Borrower”) signed.")
    found = rules(idx)
    # the name before the term read as an entity's key, its legal form folded ("…, L.P." is the fund)
    assert ("northriver capital partners iv", "fund", "defined term", "p0") in found
    assert ("fund", "northriver capital partners iv", "defined term", "p0") in found
    assert ("cedar point holdings", "borrower", "defined term", "p1") in found


def test_nested_names_are_prefixes():
    idx = index_of("NorthRiver Capital Partners IV closed.", "NorthRiver hired staff.")
    assert ("northriver capital partners iv", "northriver", "nested name", "p0") in rules(idx)


def test_acronyms_count_hyphenated_parts():
    idx = index_of("Fee-Related Earnings rose.", "FRE margin was 41%.")
    found = rules(idx)
    assert ("fee related earnings", "fre", "acronym", "p0") in found
    assert ("fre", "fee related earnings", "acronym", "p0") in found


def test_corporate_suffix_stripped():
    idx = index_of("Stonebridge Asset Management Limited reported.", "Stonebridge Asset Management grew.")
    assert ("stonebridge asset management limited", "stonebridge asset management", "corporate suffix", "p0") in rules(idx)
    # a legal form the key folds is one entity, not two joined by an alias
    idx = index_of("Stonebridge Asset Management Inc. reported.", "Stonebridge Asset Management grew.")
    assert "stonebridge asset management" in idx.graph("regex").entities and not rules(idx)


def test_no_alias_to_entities_outside_the_graph():
    idx = index_of('Calder Bank (the "Agent") signed.')
    keys = set(idx.graph("regex").entities)
    assert all(a.alias in keys and a.entity in keys for a in idx.aliases("regex").rows)


def test_alias_maps_are_built_once_and_shared_by_every_retriever(core_index):
    table = core_index.aliases("regex")
    expect: dict[str, list[str]] = {}
    for row in table.rows:
        if row.alias not in expect.setdefault(row.entity, []):
            expect[row.entity].append(row.alias)
    assert table.by_entity == {k: tuple(v) for k, v in expect.items()}
    assert table.rules == {(r.entity, r.alias): r.rule for r in table.rows}
    a, b = core_index.retriever("bct-regex"), core_index.retriever("bct-regex")
    assert a is not b and a.seeder._aliases is b.seeder._aliases is table and a.seeder._entity_index is b.seeder._entity_index
