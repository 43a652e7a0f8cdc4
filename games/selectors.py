"""Reads: what the admin, the API and the tasks ask of games' rows."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.conf import settings

from games import engine
from games.models import DailyChallenge, Deal


def schedule_for_days(today: dt.date, days: int) -> dict[str, Any]:
    """The dailies of ``days`` dates from ``today``, one slot a daily variant; gaps are None."""
    dates = [today + dt.timedelta(days=n) for n in range(days)]
    dailies = DailyChallenge.objects.filter(date__in=dates).select_related("deal")
    by_slot = {(daily.date, daily.variant): daily for daily in dailies}
    variants = list(settings.DAILY_VARIANTS)
    variants += sorted({variant for _, variant in by_slot} - set(variants))
    rows = [
        {"date": date, "slots": [{"variant": v, "daily": by_slot.get((date, v))} for v in variants]}
        for date in dates
    ]
    missing = sum(1 for date in dates for v in variants if (date, v) not in by_slot)
    return {"variants": variants, "rows": rows, "missing": missing}


def solution_steps(deal: Deal) -> list[dict[str, Any]]:
    """The deal and every position of its stored solution, from the engine's checked replay."""
    board = engine.Board.deal(deal.variant, deal.seed_int)
    steps = [_step(None, board)]
    for action in deal.solution or []:
        try:
            board.push_text(action)
        except engine.MoveError as error:
            steps.append(
                {"action": f"{action} (refused: {error.message})", "state": None, "columns": []}
            )
            break
        steps.append(_step(action, board))
    return steps


def _step(action: str | None, board: engine.Board) -> dict[str, Any]:
    state = engine.board_state(board)
    columns = [
        [(card, index < down) for index, card in enumerate(column)]
        for column, down in zip(state["tableau"], state["face_down"], strict=True)
    ]
    return {"action": action, "state": state, "columns": columns}
