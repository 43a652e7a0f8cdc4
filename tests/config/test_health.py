"""The service's own pages answer as a visitor or a monitoring probe expects."""

from __future__ import annotations

import json

import pytest
from django.conf import settings
from django.test import Client


@pytest.mark.django_db
def test_health_reports_database_and_services(client: Client) -> None:
    response = client.get("/health/")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["database"]["status"] == "ok"
    # what the layer really is, as the settings make it: Redis exactly when REDIS_URL is set
    assert body["channel_layer"]["kind"] == ("redis" if settings.REDIS_URL else "in-memory")
    assert body["celery"]["eager"] is (not settings.REDIS_URL)


def test_the_layer_kind_is_read_from_the_layer_object() -> None:
    from channels.layers import InMemoryChannelLayer

    from core.live.channel_layer import PubSubChannelLayer
    from core.service_views import channel_layer_kind

    assert channel_layer_kind(InMemoryChannelLayer()) == "in-memory"
    assert channel_layer_kind(PubSubChannelLayer(hosts=["redis://127.0.0.1:1/0"])) == "redis"
    assert channel_layer_kind(None) == "none"


@pytest.mark.django_db
def test_health_is_503_when_the_database_fails(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    from core import service_views as views

    monkeypatch.setattr(views, "_database_status", lambda: "error: OperationalError")
    response = client.get("/health/")
    assert response.status_code == 503
    assert response.json()["status"] == "error"


def test_openapi_schema_describes_the_api(client: Client) -> None:
    response = client.get("/api/v1/schema/?format=json")
    assert response.status_code == 200
    schema = json.loads(response.content)
    assert schema["info"]["title"] == "Astrocyte Daily API"
    assert "/api/v1/" in schema["paths"]


def test_api_docs_page_serves_swagger_ui_locally(client: Client) -> None:
    response = client.get("/api/v1/docs/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "swagger-ui" in page
    assert "/static/drf_spectacular_sidecar/" in page  # no CDN needed


def test_unknown_api_path_answers_in_the_error_shape(client: Client) -> None:
    response = client.get("/api/v1/no-such-thing/")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_a_post_to_an_unknown_api_path_is_a_404_in_the_error_shape_not_a_csrf_page() -> None:
    # A browser's post carries its cookies; an id the URL patterns refuse must still say 404.
    client = Client(enforce_csrf_checks=True)
    client.cookies["csrftoken"] = "x" * 32

    response = client.post(
        "/api/v1/attempts/null,null/actions/", {}, content_type="application/json"
    )

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


@pytest.mark.django_db
def test_admin_redirects_to_its_login_page(client: Client) -> None:
    response = client.get("/admin/")
    assert response.status_code == 302
    assert response["Location"].startswith("/admin/login/")
    assert client.get("/admin/login/").status_code == 200


def test_home_page_lists_today_and_links_the_api_docs(client: Client) -> None:
    response = client.get("/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "Today's deals" in page
    assert 'href="/api/v1/docs/"' in page
