"""The embedded run's start-up preparation: no worker, progress printed as it goes."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.utils import timezone

from games.models import DailyChallenge, Deal
from tests.games.conftest import QUICK_VARIANT

pytestmark = pytest.mark.django_db


def test_start_up_preparation_makes_today_playable_and_says_how_it_goes(settings: object) -> None:
    settings.DAILY_VARIANTS = [QUICK_VARIANT]  # type: ignore[attr-defined]
    settings.PRACTICE_VARIANTS = [QUICK_VARIANT]  # type: ignore[attr-defined]
    out = io.StringIO()
    call_command("dailies_prepare", "--days", "1", "--practice", "1", "--seconds", "20", stdout=out)
    text = out.getvalue()
    daily = DailyChallenge.objects.get(date=timezone.now().date(), variant=QUICK_VARIANT)
    assert daily.deal.status == Deal.Status.VERIFIED
    assert f"verifying deal {daily.deal_id} ({QUICK_VARIANT}, daily)" in text
    assert f"deal {daily.deal_id}: verified in" in text
    assert "dailies prepared: scheduled 1, still missing 0" in text
    assert Deal.objects.filter(pool=Deal.Pool.PRACTICE, status=Deal.Status.VERIFIED).count() >= 1
    assert str(daily.deal.seed_int) not in text
