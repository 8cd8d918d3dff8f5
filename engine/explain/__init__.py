"""Explain: answers made readable. The evidence graph's HTML (`render`), the self-contained evidence report
(`report`), plain JSON of answers (`jsonout`) and the glossary of every word the pages show (`glossary`).
Imports `build` and the layers below.
"""
