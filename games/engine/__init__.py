"""The rules of Astrocyte Solitaire and Spider (1, 2, 4 suits): Python, no Django.

docs/rules.md (format version 1) is the contract this package implements. The hot modules
run compiled when the build is current (``native.py``); the source is the same.
"""

from . import native

native.enable(__name__, __path__)  # the compiled build of the hot modules, when current

from .board import Board, Played
from .deal import MAX_SEED, check_seed, shuffled_pack, splitmix64
from .errors import IllegalMoveError, InvalidMoveError, LogFormatError, MoveError
from .moves import DEAL, UNDO, Move
from .replay import ReplayResult, parse_log, replay, replay_on
from .scoring import Score, cards_turned_up, face_down_dealt, score, score_breakdown
from .state import StateError, board_from_state, board_state, board_view, state_json
from .variants import ASTROCYTE, SPIDER1, SPIDER2, SPIDER4, VARIANTS, Variant, get_variant

RULES_VERSION = 1

__all__ = [
    "ASTROCYTE",
    "DEAL",
    "MAX_SEED",
    "RULES_VERSION",
    "SPIDER1",
    "SPIDER2",
    "SPIDER4",
    "UNDO",
    "VARIANTS",
    "Board",
    "IllegalMoveError",
    "InvalidMoveError",
    "LogFormatError",
    "Move",
    "MoveError",
    "Played",
    "ReplayResult",
    "Score",
    "StateError",
    "Variant",
    "board_from_state",
    "board_state",
    "board_view",
    "cards_turned_up",
    "check_seed",
    "face_down_dealt",
    "get_variant",
    "parse_log",
    "replay",
    "replay_on",
    "score",
    "score_breakdown",
    "shuffled_pack",
    "splitmix64",
    "state_json",
]
