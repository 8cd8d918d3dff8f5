"""Graph: the entity–passage graph. Entities from the regex or spaCy extractor, filtered (`entities`); the
bipartite graph with substring adjacency (`entity_graph`); BCT's alias table (`aliases`); the Personalized
PageRank kernels (`ppr`). Imports `ingest` and the base modules.
"""
