"""rank: learned rankers whose every score splits exactly into named parts, one per feature plus a base, trained
deterministically and saved as data (`learned`). The filings' page ranker and the precedents finder both rank with
it, so an analyst reads the same kind of "why this one" bar chart on either page."""
