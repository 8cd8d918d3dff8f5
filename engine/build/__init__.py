"""Build: an index of a corpus, its components built once, from the cache when they are there (`index`), and
builds that run in the background with progress, shared between sessions (`build`). Imports every layer below.
"""
