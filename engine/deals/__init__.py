"""deals: precedents for a deal a team is looking at, found among past deals treated as entities, not documents.

A deal universe (`model`): the bundled one grown from the data room's world by a seeded generator (`generator`, its
words in `prose`), or a user's own list (`dealfile`). It becomes a typed graph of deals, sectors, subsectors, regions,
origins, exit events and description snippets, walked by Personalized PageRank (`graph`). A question is read into cues
through a lexicon with public sources (`lexicon`, `lexicon.json`, `cues`); candidates come from dense search (vectors
kept in the cache, `vectors`), BM25 and the walk, with hard filters applied before anything is scored (`index`); each
candidate gets features a deal team reads (`features`) and is ranked by one of four rankers whose parts sum exactly to
each score (`rankers`), the learned one trained on questions written in reverse from the deals (`templates`, their
words in `phrasing`; `training`).
"""
