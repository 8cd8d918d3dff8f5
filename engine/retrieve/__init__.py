"""Retrieve: the retriever protocol, its one answer shape and every retriever. BM25, TF-IDF, dense and RRF
(`retrievers`); seeding a walk from a question, entity and passage seeds (`seeding`); the ppr, bct and hybrid
graph retrievers (`graph_retriever`) and the exact explanation of a walk (`graph_explain`). Imports `graph` and
the layers below.
"""
