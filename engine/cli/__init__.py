"""`python -m engine`: everything the pages run, as tables or `--json`.

Bad input exits with status 2 and one line on stderr naming the problem.
"""

from __future__ import annotations

import sys
from typing import Sequence

from ..errors import NoSeedError, PathLensError
from .ask import cmd_filings, cmd_graph, cmd_list, cmd_query, cmd_report
from .build import cmd_build
from .deals import cmd_deals, cmd_precedents, cmd_precedents_eval, cmd_train_precedents
from .measure import cmd_bench, cmd_demo, cmd_eval, cmd_perf, cmd_scope_eval, cmd_sweep, cmd_train_ranker
from .options import parser
from .page import cmd_page

COMMANDS = {"list": cmd_list, "query": cmd_query, "report": cmd_report, "eval": cmd_eval, "graph": cmd_graph, "filings": cmd_filings,
            "bench": cmd_bench, "sweep": cmd_sweep, "perf": cmd_perf, "build": cmd_build, "demo": cmd_demo, "page": cmd_page,
            "train-ranker": cmd_train_ranker, "precedents": cmd_precedents, "deals": cmd_deals,
            "train-precedents": cmd_train_precedents, "precedents-eval": cmd_precedents_eval, "scope-eval": cmd_scope_eval}


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = parser().parse_args(argv)
        COMMANDS[args.command or "list"](args)
        return 0
    except NoSeedError as e:
        print(f"no hits: {e}", file=sys.stderr)
        return 2
    except PathLensError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
