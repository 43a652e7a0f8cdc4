"""`/api/v1/` lists the whole API: every group, and every route of the URLconf under it."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from core.api_root import site_routes

GROUPS = [
    "challenges",
    "practice",
    "archive",
    "attempts",
    "leaderboards",
    "streaks",
    "ratings",
    "players",
    "leagues",
    "rooms",
    "reminders",
    "auth",
    "reviews",
    "health",
    "schema",
    "docs",
    "admin",
]


def root(client: Client) -> dict[str, dict]:
    response = client.get("/api/v1/", HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    return response.json()["groups"]


def listed_urls(groups: dict[str, dict]) -> list[str]:
    return [endpoint["url"] for group in groups.values() for endpoint in group["endpoints"]]


def test_the_root_lists_every_group_with_a_description(client: Client) -> None:
    groups = root(client)
    assert list(groups) == GROUPS
    assert all(group["description"] and group["endpoints"] for group in groups.values())


def test_the_root_lists_every_route_under_the_api_once(client: Client) -> None:
    urls = listed_urls(root(client))
    in_urlconf = {
        "http://testserver/" + route.template
        for route in site_routes().values()
        if route.template.startswith("api/v1/") and route.name != "api-root"
    }
    assert len(urls) == len(set(urls))
    missing = sorted(in_urlconf - set(urls))
    assert not missing, f"routes of the URLconf the API root does not list: {missing}"


def test_the_root_gives_url_templates_and_methods(client: Client) -> None:
    groups = root(client)
    endpoints = {e["url"]: e["methods"] for g in groups.values() for e in g["endpoints"]}
    api = "http://testserver/api/v1/"
    assert endpoints["http://testserver/health/"] == ["GET"]
    assert endpoints["http://testserver/admin/"] == ["GET"]
    assert endpoints[api + "attempts/{attempt_id}/actions/"] == ["POST"]
    assert endpoints[api + "attempts/{attempt_id}/replay/"] == ["GET"]
    assert endpoints[api + "challenges/{challenge_id}/solution/"] == ["GET"]
    assert endpoints[api + "leaderboards/streaks/"] == ["GET"]
    assert endpoints[api + "leaderboards/players/{username}/"] == ["GET"]
    assert endpoints[api + "auth/tokens/"] == ["GET", "DELETE"]


@pytest.mark.django_db
def test_every_listed_url_is_served(client: Client) -> None:
    # The ones without a parameter answer (the parameterised ones are the games' tests').
    for url in listed_urls(root(client)):
        if "{" in url or url.endswith("/auth/logout/"):
            continue
        path = url.removeprefix("http://testserver")
        assert client.get(path).status_code in (200, 302, 401, 403, 405), path


def test_the_schema_describes_the_root_as_it_answers(client: Client) -> None:
    schema = json.loads(client.get("/api/v1/schema/?format=json").content)
    operation = schema["paths"]["/api/v1/"]["get"]
    assert "later issues" not in json.dumps(operation)
    assert "Every endpoint group" in operation["description"]
    body = schema["components"]["schemas"]["ApiRoot"]
    assert set(body["properties"]) == {"groups"}
