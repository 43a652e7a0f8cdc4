"""docker-compose.yml cannot run here (no Docker); check that it fits the project instead."""

from __future__ import annotations

import importlib
import re
import shlex
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import environ
import pytest
import yaml
from django.urls import resolve

from config.env import DEV_SECRET_KEY, ENVIRONMENT_VARIABLES

ROOT = Path(__file__).resolve().parents[2]
COMPOSE: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
SERVICES: dict[str, dict[str, Any]] = COMPOSE["services"]
APP_SERVICES = [name for name, service in SERVICES.items() if "build" in service]
REQUIRED_APP_ENV = {"DATABASE_URL", "REDIS_URL", "SECRET_KEY", "DEBUG", "ALLOWED_HOSTS"}


def command_words(service: dict[str, Any]) -> list[str]:
    command = service.get("command", [])
    text = command if isinstance(command, str) else " ".join(str(part) for part in command)
    return shlex.split(text)


def environment(service: dict[str, Any]) -> dict[str, str]:
    env = service.get("environment", {})
    if isinstance(env, list):
        env = dict(item.split("=", 1) for item in env)
    return {key: str(value) for key, value in env.items()}


def test_the_stack_has_the_expected_services() -> None:
    assert set(SERVICES) == {"postgres", "redis", "web", "worker", "hints", "beat"}
    assert set(APP_SERVICES) == {"web", "worker", "hints", "beat"}


@pytest.mark.parametrize("name", sorted(SERVICES))
def test_every_service_has_an_image_or_build_and_a_healthcheck(name: str) -> None:
    service = SERVICES[name]
    assert "image" in service or "build" in service
    test = service["healthcheck"]["test"]
    assert test and test[0] in ("CMD", "CMD-SHELL")


@pytest.mark.parametrize("name", sorted(SERVICES))
def test_depends_on_names_healthy_services(name: str) -> None:
    depends_on = SERVICES[name].get("depends_on", {})
    assert isinstance(depends_on, dict), "use the long form with conditions"
    for dependency, spec in depends_on.items():
        assert dependency in SERVICES
        assert "healthcheck" in SERVICES[dependency]
        assert spec["condition"] == "service_healthy"


def test_web_serves_the_asgi_application() -> None:
    words = command_words(SERVICES["web"])
    assert "uvicorn" in words
    target = next(word for word in words if ":" in word and "." in word.split(":")[0])
    module_name, attribute = target.split(":")
    assert (module_name, attribute) == ("config.asgi", "application")
    module = importlib.import_module(module_name)
    assert callable(getattr(module, attribute))
    assert "migrate" in words


def test_web_healthcheck_probes_the_health_endpoint() -> None:
    probe = " ".join(SERVICES["web"]["healthcheck"]["test"])
    path = re.search(r"http://127\.0\.0\.1:8000(/[^'\"\s]*)", probe)
    assert path is not None
    assert resolve(path.group(1)).url_name == "health"


@pytest.mark.parametrize(
    ("name", "subcommand"), [("worker", "worker"), ("hints", "worker"), ("beat", "beat")]
)
def test_celery_services_run_the_project_app(name: str, subcommand: str) -> None:
    words = command_words(SERVICES[name])
    assert words[0] == "celery"
    app_module = words[words.index("-A") + 1]
    module = importlib.import_module(f"{app_module}.celery")
    assert module.app.main == "astrocyte"
    assert subcommand in words


def test_hint_searches_have_workers_of_their_own() -> None:
    queue = environment(SERVICES["hints"])["HINT_QUEUE"]
    words = command_words(SERVICES["hints"])
    assert words[words.index("-Q") + 1] == queue
    assert "-Q" not in command_words(SERVICES["worker"])  # the default queue: verifications


def test_exactly_one_beat() -> None:
    beats = [name for name in APP_SERVICES if "beat" in command_words(SERVICES[name])]
    assert beats == ["beat"]
    assert SERVICES["beat"].get("deploy", {}).get("replicas", 1) == 1


@pytest.mark.parametrize("name", sorted(APP_SERVICES))
def test_app_environment_is_what_settings_read(name: str) -> None:
    env = environment(SERVICES[name])
    assert set(env) <= set(ENVIRONMENT_VARIABLES), "compose sets a variable settings ignore"
    assert set(env) >= REQUIRED_APP_ENV
    assert env["DEBUG"] == "false"
    assert env["SECRET_KEY"] != DEV_SECRET_KEY
    assert env["SECRET_KEY"].startswith("${SECRET_KEY:?"), "the secret must come from outside"


@pytest.mark.parametrize("name", sorted(APP_SERVICES))
def test_app_urls_point_at_the_compose_services(name: str) -> None:
    env = environment(SERVICES[name])
    database = environ.Env.db_url_config(env["DATABASE_URL"])
    assert database["ENGINE"] == "django.db.backends.postgresql"
    assert database["HOST"] in SERVICES
    postgres_env = environment(SERVICES[database["HOST"]])
    assert database["NAME"] == postgres_env["POSTGRES_DB"]
    assert database["USER"] == postgres_env["POSTGRES_USER"]
    redis = urlsplit(env["REDIS_URL"])
    assert redis.scheme == "redis"
    assert redis.hostname in SERVICES
    for dependency in (database["HOST"], redis.hostname):
        assert dependency in SERVICES[name]["depends_on"]


def test_dockerfile_installs_the_lock_and_collects_static() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "FROM python:3.11-slim" in dockerfile
    assert "--require-hashes -r requirements.lock" in dockerfile
    assert "collectstatic" in dockerfile


def test_web_trusts_forwarded_headers_only_from_configured_proxies_and_stops_in_time() -> None:
    web = SERVICES["web"]
    words = command_words(web)
    assert "--proxy-headers" in words
    assert int(words[words.index("--ws-max-size") + 1]) <= 64 * 1024
    assert int(words[words.index("--timeout-graceful-shutdown") + 1]) <= 30
    assert environment(web)["FORWARDED_ALLOW_IPS"] == "${FORWARDED_ALLOW_IPS:-}"  # none
    grace = str(web["stop_grace_period"]).removesuffix("s")
    assert int(grace) > int(words[words.index("--timeout-graceful-shutdown") + 1])


def test_with_no_proxy_configured_a_forged_forwarded_for_is_ignored() -> None:
    """What uvicorn does with FORWARDED_ALLOW_IPS empty: the address stays the connection's."""
    import asyncio

    from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

    seen: list[Any] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        seen.append(scope["client"])

    scope = {
        "type": "http",
        "client": ("127.0.0.1", 5000),
        "headers": [(b"x-forwarded-for", b"203.0.113.9")],
    }
    asyncio.run(ProxyHeadersMiddleware(app, trusted_hosts="")(scope, None, None))  # type: ignore[arg-type]
    asyncio.run(ProxyHeadersMiddleware(app, trusted_hosts="127.0.0.1")(dict(scope), None, None))  # type: ignore[arg-type]
    assert seen[0] == ("127.0.0.1", 5000)
    assert seen[1][0] == "203.0.113.9"  # (only a configured proxy is believed)
