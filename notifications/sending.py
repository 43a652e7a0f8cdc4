"""Sending the due reminders: run by the Celery beat task (notifications/tasks.py; in the
embedded run, the server's own beat), never by a request.

For each batch of reminders: those in the player's quiet hours (in their own time zone)
wait for a later run; those already sent today are dropped; the rest are claimed, one
``ReminderSent`` row each (a unique player, kind and date: two runs never both send one),
then pushed to every subscription of the player, in parallel. A claim no push service took
(it failed, timed out, refused) is given back, so a later run sends it; a subscription a
push service says is gone (404, 410) is deleted. One failing push service or kind costs
the others nothing."""

from __future__ import annotations

import datetime as dt
import itertools
import logging
import uuid
import zoneinfo
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor

from django.db import close_old_connections
from django.utils import timezone

from notifications import vapid
from notifications.delivery import Outcome, Pusher
from notifications.kinds import Kind
from notifications.models import PushSubscription, ReminderSent, ReminderSettings
from notifications.reminders import FINDERS, Reminder

log = logging.getLogger(__name__)

BATCH = 500
KEEP_SENT_ROWS = dt.timedelta(days=2)
PUSH_THREADS = 16  # pushes in flight at once: the time is the push services' round trips


def in_quiet_hours(choice: ReminderSettings | None, now: dt.datetime) -> bool:
    """Whether ``now`` falls in the player's quiet hours, read in their own time zone (a
    span across midnight, 22:00 to 07:00, included)."""
    if choice is None or choice.quiet_from is None or choice.quiet_until is None:
        return False
    try:
        zone = zoneinfo.ZoneInfo(choice.time_zone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        zone = zoneinfo.ZoneInfo("UTC")
    local = now.astimezone(zone).time()
    start, end = choice.quiet_from, choice.quiet_until
    if start <= end:
        return start <= local < end
    return local >= start or local < end


def batches(reminders: Iterable[Reminder]) -> Iterator[list[Reminder]]:
    iterator = iter(reminders)
    while batch := list(itertools.islice(iterator, BATCH)):
        yield batch


def send_batch(
    batch: list[Reminder], now: dt.datetime, pusher: Pusher, pool: ThreadPoolExecutor
) -> Counter[str]:
    counts: Counter[str] = Counter()
    unique = {(r.player_id, r.kind, r.day): r for r in reversed(batch)}  # the first of each
    players = {player_id for player_id, _, _ in unique}
    choices = ReminderSettings.objects.in_bulk(list(players))
    due = []
    for reminder in unique.values():
        if in_quiet_hours(choices.get(reminder.player_id), now):
            counts["quiet"] += 1
        else:
            due.append(reminder)
    if not due:
        return counts
    run = uuid.uuid4().hex
    ReminderSent.objects.bulk_create(
        [ReminderSent(player_id=r.player_id, kind=r.kind, day=r.day, run=run) for r in due],
        ignore_conflicts=True,
    )
    claimed = set(ReminderSent.objects.filter(run=run).values_list("player_id", "kind", "day"))
    mine = [r for r in due if (r.player_id, r.kind.value, r.day) in claimed]
    counts["already_sent"] += len(due) - len(mine)
    subscriptions: dict[int, list[PushSubscription]] = defaultdict(list)
    for subscription in PushSubscription.objects.filter(player_id__in={r.player_id for r in mine}):
        subscriptions[subscription.player_id].append(subscription)
    jobs = [(r, s) for r in mine for s in subscriptions[r.player_id]]
    outcomes = list(pool.map(lambda job: pusher.push(job[1], job[0].message), jobs))
    taken: set[tuple[int, Kind, dt.date]] = set()
    gone = []
    for (reminder, subscription), outcome in zip(jobs, outcomes, strict=True):
        counts[f"pushes_{outcome.value}"] += 1
        if outcome is Outcome.DELIVERED:
            taken.add((reminder.player_id, reminder.kind, reminder.day))
        elif outcome is Outcome.GONE:
            gone.append(subscription.pk)
    not_taken = [r for r in mine if (r.player_id, r.kind, r.day) not in taken]
    for reminder in not_taken:
        # Given back: none of the player's browsers got it (a later run tries again).
        ReminderSent.objects.filter(
            player_id=reminder.player_id, kind=reminder.kind, day=reminder.day, run=run
        ).delete()
    if gone:
        PushSubscription.objects.filter(pk__in=gone).delete()
    counts["sent"] += len(mine) - len(not_taken)
    counts["given_back"] += len(not_taken)
    counts["subscriptions_deleted"] += len(gone)
    return counts


def send_reminders_of(
    reminders: Iterable[Reminder], now: dt.datetime | None = None, pusher: Pusher | None = None
) -> Counter[str]:
    """Send ``reminders`` (any kinds), batch by batch."""
    now = now or timezone.now()
    own = pusher is None
    pusher = pusher or Pusher()
    counts: Counter[str] = Counter()
    try:
        with ThreadPoolExecutor(PUSH_THREADS, thread_name_prefix="push") as pool:
            for batch in batches(reminders):
                counts.update(send_batch(batch, now, pusher, pool))
    finally:
        if own:
            pusher.close()
    return counts


def send_reminders(
    now: dt.datetime | None = None,
    finders: dict[Kind, Callable[[dt.datetime], Iterable[Reminder]]] | None = None,
) -> dict[str, dict[str, int]]:
    """Every kind's due reminders, sent; what happened, by kind. Without a VAPID key
    nothing is sent (docs/operations.md says how to set one)."""
    if not vapid.configured():
        log.info("reminders: no VAPID key, nothing sent")
        return {}
    now = now or timezone.now()
    # The once-a-day rows of days gone by are no longer asked about.
    ReminderSent.objects.filter(day__lt=now.date() - KEEP_SENT_ROWS).delete()
    done: dict[str, dict[str, int]] = {}
    pusher = Pusher()
    try:
        for kind, finder in (finders or FINDERS).items():
            try:
                counts = send_reminders_of(finder(now), now, pusher)
            except Exception:
                # One kind's failure (a bad row, a query) costs the other kinds nothing.
                log.exception("reminders of kind %s not sent", kind.value)
                close_old_connections()
                continue
            done[kind.value] = {name: count for name, count in counts.items() if count}
            if done[kind.value]:
                log.info("reminders %s: %s", kind.value, done[kind.value])
    finally:
        pusher.close()
    return done
