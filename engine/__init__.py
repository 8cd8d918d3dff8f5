"""PathLens engine: corpora, retrievers, graph retrieval, metrics. Never imports Streamlit."""
