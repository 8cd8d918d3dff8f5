"""PathLens engine: corpora, retrievers, graph retrieval, explanations, metrics. Never imports Streamlit.

Sub-packages by layer, each importing only the layers below it (tests/test_layout.py checks):
ingest → graph → filings → store → retrieve → indexing → explain → evaluate, then the command line (`cli`). Beneath them
all, the base modules every layer may use: `errors` (the one PathLensError boundary), `text` (tokens and
name keys), `heap` (memory settling), `catalog` (every retriever and parameter) and `jobs` (background work
a page watches).
"""
