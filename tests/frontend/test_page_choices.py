"""The choices a page offers come from the deployment's settings, not from every variant the
engine knows: practice offers the variants of the practice pool, streaks the daily variants
(no other variant has a streak). Plain Django test client: no browser needed."""

from __future__ import annotations

import re
from typing import Any

import pytest


def _variant_options(html: str) -> list[str]:
    select = re.search(r'<select id="variant">(.*?)</select>', html, re.S)
    assert select is not None, "the page has no variant chooser"
    return [value for value in re.findall(r'<option value="([^"]*)"', select.group(1)) if value]


@pytest.mark.django_db
def test_practice_offers_the_variants_of_the_practice_pool(client: Any, settings: Any) -> None:
    settings.PRACTICE_VARIANTS = ["spider1", "astrocyte"]

    page = client.get("/practice/")

    assert page.status_code == 200
    assert _variant_options(page.content.decode()) == ["spider1", "astrocyte"]
    assert "Spider (1 suit)" in page.content.decode()
    # no blank choice: the menu starts on a variant (the page then picks the last one used)
    select = re.search(r'<select id="variant">(.*?)</select>', page.content.decode(), re.S)
    assert select is not None and 'value=""' not in select.group(1)


@pytest.mark.django_db
def test_streaks_offer_only_the_daily_variants(client: Any, settings: Any) -> None:
    settings.DAILY_VARIANTS = ["astrocyte", "spider2"]

    page = client.get("/leaderboards/streaks/")

    assert page.status_code == 200
    assert _variant_options(page.content.decode()) == ["astrocyte", "spider2"]
