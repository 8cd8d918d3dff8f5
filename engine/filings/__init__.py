"""Filings: what a filing's own pages say about its structure, and what an analyst's question means by
it. Who filed it, for which period and on which form, its statements, Items, notes, table rows and
cross-references (`structure`); those as typed nodes of the walk's graph with a weight per edge type
(`graph`); analysts' words for statements and line items (`lexicon`, with `lexicon.json`); and a
question's company, period, form and statement (`scope`). Imports `ingest`, `graph` and the base modules.
"""
