"""What the dashboard's pages share: the page frame (sidebar, corpus picker, glossary), URL state,
index building with progress, tables and downloads. Pages stay thin: they turn widgets into engine
configs and render what the engine returns. This package imports Streamlit; the engine never does."""
