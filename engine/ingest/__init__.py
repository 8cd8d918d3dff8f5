"""Ingest: documents and corpora in. PDF, DOCX, HTML, text and JSON-lines files become page-cited passages
(`documents`, cut by `passage`), gathered into a corpus with its labeled questions (`corpus`); `worldgen` grows
the bundled data room to any size. Imports only the engine's base modules (errors, text).
"""
