"""Pace statistics of a game, as lichess reads move times: a person's pace varies, with long
pauses where a decision is hard; a program's is even.

The times are the server's (``Attempt.action_times``: seconds since the start, one per
action, equal for the actions of one post), so a client cannot forge them; what is weighed
is the time between posts. Two statistics, over games long enough to say anything:

- the **variation** of those times (standard deviation over mean, the coefficient of
  variation): a steady clock or a fixed delay gives a few per cent; people give well over
  half;
- the **longest pause** against the median time: every person stops to think now and then
  (a deal, a full board); a program paced at random never does.

The bounds are set far from what people do and are not fitted to real players' data (we
have none yet): they catch a careless program, not a careful one, and weigh low.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

MIN_POSTS = 40  # fewer gaps say nothing
EVEN_VARIATION = 0.15  # a coefficient of variation under this is a clock's
LONGEST_PAUSE_TIMES_MEDIAN = 2.5  # never a pause this much longer than the usual gap…
PAUSE_MIN_POSTS = 100  # …over at least this many posts


def post_gaps(action_times: Sequence[float]) -> list[float]:
    """The seconds between one post and the next (a post's actions share its time)."""
    posts = sorted({float(t) for t in action_times})
    return [later - earlier for earlier, later in zip([0.0, *posts], posts, strict=False)]


def pace_evidence(action_times: Sequence[float]) -> str | None:
    """Why the game's pace looks like a program's, or None."""
    gaps = post_gaps(action_times)
    if len(gaps) < MIN_POSTS:
        return None
    mean = statistics.fmean(gaps)
    median = statistics.median(gaps)
    if mean <= 0 or median <= 0:
        return None
    variation = statistics.pstdev(gaps) / mean
    reasons = []
    if variation < EVEN_VARIATION:
        reasons.append(
            f"the {len(gaps)} gaps between its posts varied by {variation:.0%} "
            f"(standard deviation over mean; people vary far more than {EVEN_VARIATION:.0%})"
        )
    longest = max(gaps)
    if len(gaps) >= PAUSE_MIN_POSTS and longest < LONGEST_PAUSE_TIMES_MEDIAN * median:
        reasons.append(
            f"in {len(gaps)} posts it never paused: the longest gap, {longest:.1f} s, is "
            f"under {LONGEST_PAUSE_TIMES_MEDIAN:g} times the median {median:.1f} s"
        )
    return "; ".join(reasons) or None
