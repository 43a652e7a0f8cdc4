"""Speed of the rules engine (issue 2, "Speed"); the figures are written up in docs/engine.md.

Run from the repository root::

    python -m bench.engine_bench            # table
    python -m bench.engine_bench --json     # the same figures as JSON
    python -m bench.engine_bench --profile  # plus a short cProfile of each workload

Every input is built from fixed seeds by seeded random walks over ``Board.legal_moves()``;
there is no network and no data file. Each figure is the median of ``--rounds`` timed
rounds (``time.perf_counter``), each round repeating the workload several times, after one
untimed warm-up round; the spread is the fastest and slowest round. ``gc.collect()`` runs
before every round; the collector stays enabled during the rounds (as in the service) unless
``--no-gc`` is given.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import hashlib
import io
import json
import os
import platform
import pstats
import random
import statistics
import sys
import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from games.engine import Board, Move, board_view, replay
from games.engine.cards import KING, RANK_MASK
from games.engine.moves import CELL, DEAL_CODE, FOUNDATION

VARIANT = "astrocyte"
LOG_DEAL_SEED = 20240601  # the deal the 1,000-action log is played on
LOG_WALK_SEED = 7  # the random walk that plays it
LOG_ACTIONS = 1000
LOG_UNDO_RATE = 0.03
POSITION_DEALS = range(100, 125)  # 25 deals ...
POSITIONS_PER_DEAL = 8  # ... 8 snapshots each: 200 positions
POSITION_WALK_SEED = 11
POSITION_MIN_ACTIONS = 20
POSITION_MAX_ACTIONS = 120
DIG = 8.0
DEAL_SEEDS = range(1000, 1500)

TARGET_REPLAY_MS = 3.0
TARGET_LEGAL_PER_S = 100_000
TARGET_PUSH_POP_PER_S = 300_000


# -- deterministic inputs -------------------------------------------------------------------


def _weight(
    move: Move,
    last: Move | None,
    columns: list[tuple[list[int], int]],
    free_cells: int,
    dig: float,
) -> float:
    """How much the walk likes ``move``: progress over shuffling cards back and forth.

    ``dig`` > 1 favours moves out of the shortest column (cells included), to empty it.
    """
    src = move.src
    if src == DEAL_CODE:
        return 0.2  # mostly when little else is left to do
    dst, count = move.dst, move.count
    if last is not None and last.src == dst and last.dst == src and last.count == count:
        return 0.02  # straight back
    if src >= FOUNDATION:
        return 0.05
    if src >= CELL:
        return 3.0 if dst < CELL else 0.1
    col, down = columns[src]
    card = col[-count]
    digging = dig > 1 and len(col) == min(len(c) for c, _ in columns if c)
    if dst >= CELL:
        if card & RANK_MASK == KING:
            return 0.02
        return (10.0 * dig if digging else 0.4) * free_cells / 4
    target = columns[dst][0]
    if not target:
        if count == len(col):
            return 0.05  # a whole column into an empty one changes nothing
        return 2.0 if card & RANK_MASK == KING else 0.7
    weight = 4.0 if target[-1] == card + 1 else 1.0  # same suit extends a run
    if down and len(col) - count == down:
        weight *= 4.0  # turns a card face up
    elif count == len(col):
        weight *= 3.0  # empties a column
    return weight * dig if digging else weight


def random_walk(
    board: Board,
    rng: random.Random,
    actions: int,
    undo_rate: float,
    log: list[str],
    dig: float = 1.0,
) -> None:
    """Play ``actions`` legal actions on ``board`` (undo included), appending their texts to log.

    Moves that reach a position not yet seen in this walk are strongly preferred, a move
    that would win is never chosen (nothing may follow the win), and when no move is left
    the walk undoes, so it always plays the full count.
    """
    seen: set[Hashable] = {board.position_key()}
    last: Move | None = None
    for _ in range(actions):
        moves = board.legal_moves()
        if len(board) and (not moves or rng.random() < undo_rate):
            board.pop()
            log.append("undo")
            last = None
            continue
        columns = list(board.iter_columns())
        free_cells = board_view(board)["cells"].count(None)
        weights: list[float] = []
        candidates: list[Move] = []
        for move in moves:
            weight = _weight(move, last, columns, free_cells, dig)
            board.push(move)
            won = board.is_won
            key = board.position_key()
            board.pop()
            if won:
                continue
            if key in seen:
                weight *= 0.05
            weights.append(weight)
            candidates.append(move)
        if not candidates:
            if not len(board):
                raise RuntimeError("the walk is stuck at the deal")
            board.pop()
            log.append("undo")
            last = None
            continue
        move = rng.choices(candidates, weights)[0]
        board.push(move)
        seen.add(board.position_key())
        log.append(str(move))
        last = move


def make_log() -> list[str]:
    """The 1,000-action Astrocyte log on ``LOG_DEAL_SEED``, every action legal."""
    log: list[str] = []
    random_walk(
        Board.deal(VARIANT, LOG_DEAL_SEED),
        random.Random(LOG_WALK_SEED),
        LOG_ACTIONS,
        LOG_UNDO_RATE,
        log,
    )
    return log


def make_positions() -> list[Board]:
    """200 mid-game positions: snapshots of walks of 20..120 actions from 25 deals.

    Walks on odd seeds dig (empty a column, filling cells), on even seeds they build runs.
    """
    rng = random.Random(POSITION_WALK_SEED)
    positions: list[Board] = []
    for seed in POSITION_DEALS:
        board = Board.deal(VARIANT, seed)
        marks = sorted(
            rng.sample(range(POSITION_MIN_ACTIONS, POSITION_MAX_ACTIONS + 1), POSITIONS_PER_DEAL)
        )
        done = 0
        log: list[str] = []
        for mark in marks:
            random_walk(board, rng, mark - done, LOG_UNDO_RATE, log, DIG if seed % 2 else 1.0)
            done = mark
            positions.append(board.copy())
    return positions


def describe_positions(positions: Sequence[Board]) -> dict[str, Any]:
    """What kind of positions these are (so a reader can judge the mix)."""
    with_cells = with_empty = with_deals = with_home = 0
    for board in positions:
        state = board_view(board)
        with_cells += any(state["cells"])
        with_empty += any(not col for col in state["tableau"])
        with_deals += board.deals_left < 5
        with_home += any(state["foundations"])
    moves = [len(board.legal_moves()) for board in positions]
    return {
        "positions": len(positions),
        "with_cell_cards": with_cells,
        "with_empty_column": with_empty,
        "with_deals_done": with_deals,
        "with_foundation_cards": with_home,
        "legal_moves_mean": statistics.fmean(moves),
        "legal_moves_min": min(moves),
        "legal_moves_max": max(moves),
        "push_pop_pairs": sum(moves),
    }


# -- timing ---------------------------------------------------------------------------------


@dataclass
class Figure:
    name: str
    unit: str
    median: float
    low: float
    high: float
    target: str
    ok: bool | None
    per_round: int  # items done in one timed round


def time_rounds(work: Callable[[], int], rounds: int, keep_gc: bool) -> tuple[list[float], int]:
    """Seconds of each timed round (after one warm-up round) and the items a round does."""
    items = work()  # warm-up: caches, interned moves, first allocations
    times: list[float] = []
    was_enabled = gc.isenabled()
    try:
        for _ in range(rounds):
            gc.collect()
            if not keep_gc:
                gc.disable()
            start = time.perf_counter()
            work()
            times.append(time.perf_counter() - start)
            gc.enable()
    finally:
        if was_enabled:
            gc.enable()
    return times, items


def rate_figure(name: str, times: list[float], items: int, target: float | None) -> Figure:
    rates = [items / t for t in times]
    median = statistics.median(rates)
    return Figure(
        name,
        "per s",
        median,
        min(rates),
        max(rates),
        f">= {target:,.0f}" if target else "-",
        None if target is None else median >= target,
        items,
    )


def ms_figure(name: str, times: list[float], items: int, target: float | None) -> Figure:
    each = [1000 * t / items for t in times]
    median = statistics.median(each)
    return Figure(
        name,
        "ms each",
        median,
        min(each),
        max(each),
        f"<= {target:g} ms" if target else "-",
        None if target is None else median <= target,
        items,
    )


def workloads(
    log: list[str], text: str, positions: list[Board], quick: bool
) -> dict[str, Callable[[], int]]:
    """The timed work, by name; each returns how many items it processed."""
    scale = 1 if quick else 4
    replays = 5 * scale
    legal_passes = 10 * scale
    push_passes = 5 * scale
    with_moves = [(board, board.legal_moves()) for board in positions]

    def replay_list() -> int:
        for _ in range(replays):
            replay(VARIANT, LOG_DEAL_SEED, log)
        return replays

    def replay_text() -> int:
        for _ in range(replays):
            replay(VARIANT, LOG_DEAL_SEED, text)
        return replays

    def legal_moves() -> int:
        for _ in range(legal_passes):
            for board in positions:
                board.legal_moves()
        return legal_passes * len(positions)

    def push_pop() -> int:
        pairs = 0
        for _ in range(push_passes):
            for board, moves in with_moves:
                push = board.push
                pop = board.pop
                for move in moves:
                    push(move)
                    pop()
                pairs += len(moves)
        return pairs

    def deal() -> int:
        for seed in DEAL_SEEDS:
            Board.deal(VARIANT, seed)
        return len(DEAL_SEEDS)

    def view() -> int:
        for _ in range(scale):
            for board in positions:
                board_view(board)
        return scale * len(positions)

    return {
        "replay_list": replay_list,
        "replay_text": replay_text,
        "legal_moves": legal_moves,
        "push_pop": push_pop,
        "deal": deal,
        "board_view": view,
    }


TITLES = {
    "replay_list": ("checked replay, 1,000 actions (list)", TARGET_REPLAY_MS),
    "replay_text": ("checked replay, 1,000 actions (text)", TARGET_REPLAY_MS),
    "legal_moves": ("legal_moves(), mid-game positions", TARGET_LEGAL_PER_S),
    "push_pop": ("push(m) + pop() pairs", TARGET_PUSH_POP_PER_S),
    "deal": ("Board.deal(astrocyte, seed)", None),
    "board_view": ("board_view(board)", None),
}


def machine() -> dict[str, Any]:
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
        "cpu": cpu,
        "nproc": len(os.sched_getaffinity(0)),
        "platform": platform.platform(),
    }


def profile(work: Callable[[], int], top: int) -> str:
    profiler = cProfile.Profile()
    profiler.enable()
    work()
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).strip_dirs().sort_stats("tottime").print_stats(top)
    lines = out.getvalue().splitlines()
    start = next((i for i, line in enumerate(lines) if "ncalls" in line), 0)
    return "\n".join(line for line in lines[start:] if line.strip())


# -- the command ----------------------------------------------------------------------------


def run(rounds: int, keep_gc: bool, quick: bool) -> dict[str, Any]:
    load_before = os.getloadavg()
    log = make_log()
    text = " ".join(log)
    # the first replay in this process, with Move.parse's text cache still empty
    start = time.perf_counter()
    result = replay(VARIANT, LOG_DEAL_SEED, log)
    cold_ms = 1000 * (time.perf_counter() - start)
    if not result.ok or result.actions != LOG_ACTIONS or result.applied != LOG_ACTIONS:
        raise SystemExit(f"the benchmark log does not replay: {result.error}")
    if replay(VARIANT, LOG_DEAL_SEED, text).board != result.board:
        raise SystemExit("the text form of the log replays differently")
    positions = make_positions()
    figures: list[Figure] = []
    for name, work in workloads(log, text, positions, quick).items():
        title, target = TITLES[name]
        times, items = time_rounds(work, rounds, keep_gc)
        maker = ms_figure if name.startswith("replay") else rate_figure
        figures.append(maker(title, times, items, target))
    return {
        "machine": machine(),
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "rounds": rounds,
        "gc": "enabled during rounds" if keep_gc else "disabled during rounds",
        "log": {
            "deal_seed": LOG_DEAL_SEED,
            "walk_seed": LOG_WALK_SEED,
            "actions": len(log),
            "undos": log.count("undo"),
            "deals": log.count("deal"),
            "groups": sum(1 for a in log if ":" in a),
            "cell_moves": sum(1 for a in log if "c" in a),
            "foundations_at_end": sum(1 for f in board_view(result.board)["foundations"] if f),
            "sha256": hashlib.sha256(text.encode()).hexdigest()[:16],
            "first_replay_ms_cold_cache": round(cold_ms, 3),
        },
        "positions": describe_positions(positions),
        "figures": [asdict(f) for f in figures],
    }


def table(report: dict[str, Any]) -> str:
    m = report["machine"]
    lines = [
        f"Python {m['python']} ({m['implementation']}), {m['nproc']} CPUs, {m['cpu']}",
        f"median of {report['rounds']} rounds, gc {report['gc']}; load average "
        f"{report['load_average_before'][0]} before, {report['load_average_after'][0]} after",
        "",
        f"{'figure':<38} {'median':>12} {'spread (min..max)':>24} {'target':>12}  ok",
    ]
    for f in report["figures"]:
        fmt = "{:,.3f}" if f["unit"] == "ms each" else "{:,.0f}"
        spread = f"{fmt.format(f['low'])}..{fmt.format(f['high'])}"
        ok = "-" if f["ok"] is None else ("yes" if f["ok"] else "NO")
        value = fmt.format(f["median"]) + (" ms" if f["unit"] == "ms each" else "/s")
        lines.append(f"{f['name']:<38} {value:>12} {spread:>24} {f['target']:>12}  {ok}")
    log, pos = report["log"], report["positions"]
    lines += [
        "",
        f"log: {log['actions']} actions on astrocyte {log['deal_seed']} ({log['undos']} undo, "
        f"{log['deals']} deal, {log['groups']} group moves, {log['cell_moves']} cell moves), "
        f"sha256 {log['sha256']}; "
        f"first replay in the process {log['first_replay_ms_cold_cache']} ms",
        f"positions: {pos['positions']} ({pos['with_cell_cards']} with cell cards, "
        f"{pos['with_empty_column']} with an empty column, {pos['with_deals_done']} after a deal, "
        f"{pos['with_foundation_cards']} with a run home); legal moves "
        f"{pos['legal_moves_mean']:.1f} on average "
        f"({pos['legal_moves_min']}..{pos['legal_moves_max']})",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.engine_bench",
        description="Time the rules engine on fixed, seeded Astrocyte inputs.",
    )
    parser.add_argument("--rounds", type=int, default=7, help="timed rounds per figure (7)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--no-gc", action="store_true", help="disable the collector while timing")
    parser.add_argument("--quick", action="store_true", help="a quarter of the work per round")
    parser.add_argument("--profile", action="store_true", help="also cProfile each workload")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    report = run(args.rounds, not args.no_gc, args.quick)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(table(report))
    if args.profile:
        log = make_log()
        for name, work in workloads(log, " ".join(log), make_positions(), True).items():
            print(f"\n== {TITLES[name][0]}: cProfile, top functions by own time", file=sys.stderr)
            print(profile(work, 8), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
