"""The rules page (`/rules/`): docs/rules.md served by the site, and the client's links to
its sections ("How to play", "How scores are checked")."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from frontend.rules_page import rules_file

LINK_TO_RULES = re.compile(r'href="/rules/#([\w-]+)"')


def rules_html(client: Client) -> str:
    response = client.get("/rules/")
    assert response.status_code == 200
    return response.content.decode()


def test_the_rules_page_is_the_document_with_its_sections() -> None:
    page = rules_html(Client())
    assert "<h1" in page and "The rules, for players and for programs" in page
    for section in ("how-to-play", "how-scores-are-checked", "scoring", "how-boards-rank"):
        assert f'<h2 id="{section}">' in page
        assert f'href="#{section}"' in page  # the page's own contents
    # The contract itself, not a summary: the deal's constants, the notation table, the
    # formula, the state JSON.
    assert "0x9E3779B97F4A7C15" in page and "0x94D049BB133111EB" in page
    assert "<td><code>t3-t5:4</code></td>" in page
    assert "100 \N{MULTIPLICATION SIGN} complete foundations at the end + 50 if won" in page
    assert "&quot;face_down&quot;: [2, 0]" in page


def test_links_to_the_repositorys_other_documents_stay_text() -> None:
    page = rules_html(Client())
    assert 'href="engine.md"' not in page and "engine.md" in page
    assert "shared/design" not in page


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/", "/play/1/", "/practice/", "/leaderboards/1/"])
def test_the_client_links_to_how_to_play_and_how_scores_are_checked(path: str) -> None:
    client = Client()
    page = client.get(path).content.decode()
    anchors = set(LINK_TO_RULES.findall(page))
    assert {"how-to-play", "how-scores-are-checked"} <= anchors
    rules = rules_html(client)
    for anchor in anchors:  # every link lands on a section of the page
        assert f'id="{anchor}"' in rules, anchor


def test_the_page_reads_the_rules_of_the_repository() -> None:
    assert rules_file().name == "rules.md" and rules_file().parent.name == "docs"
    assert "## How scores are checked" in rules_file().read_text(encoding="utf-8")
