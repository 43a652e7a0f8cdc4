"""``python -m games.solver VARIANT SEED [--seconds S] [--max-nodes N] [--improve-nodes N]``
(docs/rules.md, "The command line"); ``python -m games.solver decide …`` is ``decide_cli.py``.

By default it searches as the pipeline's verification does: at most ``DEFAULT_MAX_NODES``
positions to prove the deal (the default of SOLVER_NODES), then a shorter line after the
proof (``DEFAULT_IMPROVE_NODES``, the default of SOLVER_IMPROVE_NODES), so that anyone
re-checking a day gets the par players saw (a day that opened on a fresh install was
proven with a smaller budget: its revealed ``improve_nodes`` says which). Prints
``{"status", "moves", "nodes", "seconds", "par", "peak_memory_mb"}`` as one JSON line.
Exit status 0 when solved, 1 when unsolvable or unknown, 2 for a usage error (one line, as
the engine's command).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence

from games.engine.cli import EXIT_REFUSED, EXIT_USAGE, _Parser, parse_seed, parse_variant
from games.engine.variants import VARIANTS

from .api import DEFAULT_IMPROVE_NODES, DEFAULT_MAX_NODES, solve


def parse_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"seconds is a number, not {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"seconds is a positive number, not {text!r}")
    return value


def parse_positive(text: str) -> int:
    try:
        value = int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a whole number, not {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"a positive whole number, not {text!r}")
    return value


def parse_non_negative(text: str) -> int:
    try:
        value = int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a whole number, not {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"a whole number from 0 up, not {text!r}")
    return value


def build_parser(prog: str = "python -m games.solver") -> argparse.ArgumentParser:
    parser = _Parser(prog=prog, description="Find a winning line for a deal.")
    parser.add_argument("variant", type=parse_variant, help=f"one of {', '.join(VARIANTS)}")
    parser.add_argument("seed", type=parse_seed, help="0 .. 2**64 - 1")
    parser.add_argument("--seconds", type=parse_seconds, default=60.0, help="time limit (60)")
    parser.add_argument(
        "--max-nodes",
        type=parse_non_negative,
        default=DEFAULT_MAX_NODES,
        help="positions searched at most to prove the deal, as the pipeline does "
        f"(SOLVER_NODES, {DEFAULT_MAX_NODES:,}); 0: the time limit alone",
    )
    parser.add_argument(
        "--max-memory-mb", type=parse_positive, default=1024, help="memory limit in MiB (1024)"
    )
    parser.add_argument(
        "--improve-nodes",
        type=parse_non_negative,
        default=DEFAULT_IMPROVE_NODES,
        help="positions searched for a shorter line once proven, as the pipeline does "
        f"(SOLVER_IMPROVE_NODES, {DEFAULT_IMPROVE_NODES:,}); 0 prints the first line",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["decide"]:
        from .decide_cli import main as decide_main  # the complete search, loaded when asked

        return decide_main(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    result = solve(
        (args.variant, args.seed),
        seconds=args.seconds,
        max_nodes=args.max_nodes or None,
        max_memory_mb=args.max_memory_mb,
        improve_nodes=args.improve_nodes,
    )
    print(json.dumps(result.as_dict()))
    return 0 if result.solved else EXIT_REFUSED


__all__ = ["EXIT_USAGE", "build_parser", "main"]
