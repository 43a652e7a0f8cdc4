"""``python -m games.solver decide VARIANT SEED [--log ACTIONS] [--nodes N]`` (docs/rules.md,
"The command line").

Decides the deal, or the position after the log: prints one JSON line,
``{"verdict": "winnable", "line": [...]}`` (the actions from that position, replayed to a
win), ``{"verdict": "unwinnable", "nodes": n, "rules": [...]}`` (the complete search was
exhausted) or ``{"verdict": "unknown", "nodes": n}`` (the budget ran out). The budget is in
positions, so the answer is the same on any machine. Exit status 0 when decided (winnable
or unwinnable), 1 when unknown, 2 for a usage error or a log the engine refuses (one line,
naming the refused action's index).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence

from games.engine import Board, LogFormatError, parse_log, replay_on
from games.engine.cli import EXIT_REFUSED, EXIT_USAGE, _Parser, parse_seed, parse_variant
from games.engine.variants import VARIANTS

from .cli import parse_positive
from .decide import DEFAULT_DECIDE_NODES, decide

PROG = "python -m games.solver decide"


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    parser = _Parser(
        prog=prog, description="Decide a deal, or the position after a log: winnable or not."
    )
    parser.add_argument("variant", type=parse_variant, help=f"one of {', '.join(VARIANTS)}")
    parser.add_argument("seed", type=parse_seed, help="0 .. 2**64 - 1")
    parser.add_argument(
        "--log", default="", help="actions played from the deal (text or a JSON list)"
    )
    parser.add_argument(
        "--nodes",
        type=parse_positive,
        default=DEFAULT_DECIDE_NODES,
        help=f"positions each phase searches at most ({DEFAULT_DECIDE_NODES:,})",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        actions = parse_log(args.log)
    except LogFormatError as exc:
        parser.error(f"cannot read the log: {exc}")
    played = replay_on(Board.deal(args.variant, args.seed), actions)
    if played.error is not None:
        parser.error(f"the log is refused at {played.error}")
    decision = decide(played.board, args.nodes)
    print(json.dumps(decision.as_dict()))
    return EXIT_REFUSED if decision.verdict == "unknown" else 0


__all__ = ["EXIT_USAGE", "build_parser", "main"]
