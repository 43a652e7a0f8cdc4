"""``python -m games.engine deal|replay`` (docs/rules.md, "The command line")."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import NoReturn

from .board import Board
from .deal import MAX_SEED
from .errors import LogFormatError
from .replay import parse_log, replay
from .state import board_state
from .variants import VARIANTS, Variant, get_variant

EXIT_REFUSED = 1
EXIT_USAGE = 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        # one line, exit status 2 (argparse would print the whole usage)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def parse_variant(text: str) -> Variant:
    try:
        return get_variant(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def parse_seed(text: str) -> int:
    # plain ASCII digits only: int() would also take "+5", " 5", "1_000" and other scripts' digits
    if not (text.isascii() and text.isdigit()):
        if text.startswith("-") and text[1:].isascii() and text[1:].isdigit():
            raise argparse.ArgumentTypeError(f"a seed is between 0 and {MAX_SEED}, not {text}")
        raise argparse.ArgumentTypeError(f"a seed is a whole number in digits 0-9, not {text!r}")
    seed = int(text)
    if not 0 <= seed <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"a seed is between 0 and {MAX_SEED}, not {seed}")
    return seed


def build_parser(prog: str = "python -m games.engine") -> argparse.ArgumentParser:
    parser = _Parser(prog=prog, description="Deal and replay Astrocyte and Spider games.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    variants = f"one of {', '.join(VARIANTS)}"
    deal = commands.add_parser("deal", help="print the starting state as JSON")
    deal.add_argument("variant", type=parse_variant, help=variants)
    deal.add_argument("seed", type=parse_seed, help="0 .. 2**64 - 1")
    rep = commands.add_parser("replay", help="replay a move log and print the result as JSON")
    rep.add_argument("variant", type=parse_variant, help=variants)
    rep.add_argument("seed", type=parse_seed, help="0 .. 2**64 - 1")
    rep.add_argument("file", nargs="?", help="the move log (standard input if absent)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "deal":
        print(json.dumps(board_state(Board.deal(args.variant, args.seed))))
        return 0
    try:
        if args.file is None or args.file == "-":
            text = sys.stdin.read()
        else:
            with open(args.file, encoding="utf-8") as handle:
                text = handle.read()
        actions = parse_log(text)
    except (OSError, UnicodeDecodeError, LogFormatError) as exc:
        parser.exit(EXIT_USAGE, f"{parser.prog}: error: cannot read the log: {exc}\n")
    result = replay(args.variant, args.seed, actions)
    print(json.dumps(result.as_dict()))
    return 0 if result.ok else EXIT_REFUSED
