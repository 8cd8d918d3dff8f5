"""Store: what is computed once and kept. The MiniLM encoder run under ONNX Runtime (`dense`), the HNSW index for
dense search at scale (`ann`), and the on-disk cache every built component goes through (`cache`). Imports
`graph` (extractor versions key the cache) and the base modules.
"""
