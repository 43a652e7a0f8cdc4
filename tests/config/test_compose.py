"""docker-compose.yml cannot run here (no Docker); check that it fits the project instead:
its services and their order, what reaches `web`, and that its PostgreSQL connections fit."""

from __future__ import annotations

import asyncio
import importlib
import ipaddress
import json
import re
import shlex
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import environ
import pytest
import yaml
from django.urls import resolve

from config.env import DEV_SECRET_KEY, ENVIRONMENT_VARIABLES

ROOT = Path(__file__).resolve().parents[2]
COMPOSE_TEXT = (ROOT / "docker-compose.yml").read_text()
COMPOSE: dict[str, Any] = yaml.safe_load(COMPOSE_TEXT)
SERVICES: dict[str, dict[str, Any]] = COMPOSE["services"]
APP_SERVICES = [name for name, service in SERVICES.items() if "build" in service]
ONE_SHOT = ["migrate"]  # runs to completion before the others start
LONG_RUNNING = [name for name in SERVICES if name not in ONE_SHOT]
USERS_OF_THE_DATABASE = ["web", "worker", "hints", "beat"]
CELERY_WORKERS = ["worker", "hints"]
REQUIRED_APP_ENV = {"DATABASE_URL", "REDIS_URL", "SECRET_KEY", "DEBUG", "ALLOWED_HOSTS"}
CADDYFILE = ROOT / "deploy" / "Caddyfile"


def command_words(service: dict[str, Any]) -> list[str]:
    command = service.get("command", [])
    text = command if isinstance(command, str) else " ".join(shlex.quote(str(p)) for p in command)
    return shlex.split(text)


def option(words: list[str], name: str) -> str | None:
    """The value of ``name`` in a command line, written `--name value` or `--name=value`."""
    for index, word in enumerate(words):
        if word == name:
            return words[index + 1]
        if word.startswith(name + "="):
            return word.split("=", 1)[1]
    return None


def environment(service: dict[str, Any]) -> dict[str, str]:
    env = service.get("environment", {})
    if isinstance(env, list):
        env = dict(item.split("=", 1) for item in env)
    return {key: str(value) for key, value in env.items()}


def networks_of(name: str) -> set[str]:
    networks = SERVICES[name].get("networks", ["default"])
    return set(networks)


def interpolated(value: str, outside: dict[str, str]) -> str:
    """Compose's `${NAME}`, `${NAME:-default}` and `${NAME:?error}` with ``outside`` set."""

    def one(match: re.Match[str]) -> str:
        name, kind, default = match.group(1), match.group(2), match.group(3) or ""
        return outside.get(name) or (default if kind == "-" else "")

    return re.sub(r"\$\{(\w+)(?::([-?])([^}]*))?\}", one, value)


@pytest.mark.compose
def test_docker_compose_accepts_the_file_and_reads_it_as_these_tests_do() -> None:
    """`docker-compose config` checks the file against the Compose schema (conditions,
    networks, merge keys) and prints it resolved: the same services and environments."""
    resolved = subprocess.run(
        ["docker-compose", "--file", str(ROOT / "docker-compose.yml"), "config"],
        capture_output=True,
        text=True,
        check=True,
        env={"PATH": "/usr/bin:/bin", "SECRET_KEY": "from-outside"},
    )
    config = yaml.safe_load(resolved.stdout)
    assert set(config["services"]) == set(SERVICES)
    outside = {"SECRET_KEY": "from-outside"}
    for name in APP_SERVICES:
        env = {key: str(value) for key, value in config["services"][name]["environment"].items()}
        expected = {
            key: interpolated(value, outside) for key, value in environment(SERVICES[name]).items()
        }
        assert env == expected, name
    assert config["services"]["web"]["depends_on"]["migrate"] == {
        "condition": "service_completed_successfully"
    }


def test_the_stack_has_the_expected_services() -> None:
    assert set(SERVICES) == {
        "postgres",
        "redis",
        "migrate",
        "web",
        "proxy",
        "worker",
        "hints",
        "beat",
    }
    assert set(APP_SERVICES) == {"migrate", "web", "worker", "hints", "beat"}


@pytest.mark.parametrize("name", sorted(LONG_RUNNING))
def test_every_long_running_service_has_an_image_or_build_and_a_healthcheck(name: str) -> None:
    service = SERVICES[name]
    assert "image" in service or "build" in service
    test = service["healthcheck"]["test"]
    assert test and test[0] in ("CMD", "CMD-SHELL")


@pytest.mark.parametrize("name", sorted(SERVICES))
def test_depends_on_waits_for_healthy_services_or_a_completed_migrate(name: str) -> None:
    depends_on = SERVICES[name].get("depends_on", {})
    assert isinstance(depends_on, dict), "use the long form with conditions"
    for dependency, spec in depends_on.items():
        assert dependency in SERVICES
        if dependency in ONE_SHOT:
            assert spec["condition"] == "service_completed_successfully"
        else:
            assert "healthcheck" in SERVICES[dependency]
            assert spec["condition"] == "service_healthy"


def test_migrations_run_once_in_a_one_shot_service_before_anything_uses_the_database() -> None:
    migrate = SERVICES["migrate"]
    assert command_words(migrate) == ["python", "manage.py", "migrate", "--noinput"]
    assert migrate.get("restart", "no") == "no"
    assert "healthcheck" not in migrate  # it exits; nothing waits for it to be healthy
    assert migrate["depends_on"] == {"postgres": {"condition": "service_healthy"}}
    for name in USERS_OF_THE_DATABASE:
        assert SERVICES[name]["depends_on"]["migrate"] == {
            "condition": "service_completed_successfully"
        }, name
    for name in SERVICES:
        if name != "migrate":
            assert "migrate" not in command_words(SERVICES[name]), f"{name} migrates"


def test_web_serves_the_asgi_application() -> None:
    words = command_words(SERVICES["web"])
    assert words[0] == "uvicorn"
    target = next(word for word in words if ":" in word and "." in word.split(":")[0])
    module_name, attribute = target.split(":")
    assert (module_name, attribute) == ("config.asgi", "application")
    module = importlib.import_module(module_name)
    assert callable(getattr(module, attribute))


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
    assert database["HOST"] in SERVICES[name]["depends_on"]
    if name not in ONE_SHOT:
        assert redis.hostname in SERVICES[name]["depends_on"]


# --- the way in: the proxy ------------------------------------------------------------


def test_only_the_proxy_publishes_ports() -> None:
    publishing = [name for name, service in SERVICES.items() if service.get("ports")]
    assert publishing == ["proxy"]
    assert any(str(port).endswith(":80") for port in SERVICES["proxy"]["ports"])


def test_the_proxy_is_caddy_with_the_repository_s_caddyfile_and_waits_for_web() -> None:
    proxy = SERVICES["proxy"]
    assert proxy["image"].split(":")[0] == "caddy"
    assert "./deploy/Caddyfile:/etc/caddy/Caddyfile:ro" in proxy["volumes"]
    assert proxy["depends_on"] == {"web": {"condition": "service_healthy"}}
    assert "environment" not in proxy or set(environment(proxy)) <= {"SITE_ADDRESS"}


def test_the_proxy_and_web_share_a_network_of_their_own() -> None:
    """What reaches `web` from the edge network is the proxy (or another web replica): the
    only addresses whose forwarded headers `web` believes."""
    on_edge = sorted(name for name in SERVICES if "edge" in networks_of(name))
    assert on_edge == ["proxy", "web"]
    assert networks_of("proxy") == {"edge"}  # the proxy reaches no database, no Redis
    assert networks_of("web") == {"default", "edge"}


def edge_subnet() -> ipaddress.IPv4Network:
    (config,) = COMPOSE["networks"]["edge"]["ipam"]["config"]
    return ipaddress.IPv4Network(config["subnet"])


def test_web_trusts_forwarded_headers_from_the_proxy_s_network_only() -> None:
    web = SERVICES["web"]
    assert "--proxy-headers" in command_words(web)
    trusted = environment(web)["FORWARDED_ALLOW_IPS"]
    assert ipaddress.IPv4Network(trusted) == edge_subnet()
    assert edge_subnet().is_private
    for name in APP_SERVICES:
        if name != "web":
            assert "FORWARDED_ALLOW_IPS" not in environment(SERVICES[name]), name


def client_address_seen(trusted_hosts: str, connection: str, forwarded_for: str) -> str:
    """The client address uvicorn's --proxy-headers gives the application."""
    from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

    seen: list[Any] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        seen.append(scope["client"])

    scope = {
        "type": "http",
        "client": (connection, 5000),
        "headers": [(b"x-forwarded-for", forwarded_for.encode())],
    }
    middleware = ProxyHeadersMiddleware(app, trusted_hosts=trusted_hosts)
    asyncio.run(middleware(scope, None, None))  # type: ignore[arg-type]
    return str(seen[0][0])


def test_the_proxy_s_forwarded_for_is_believed_and_anyone_else_s_is_not() -> None:
    trusted = environment(SERVICES["web"])["FORWARDED_ALLOW_IPS"]
    proxy_address = str(edge_subnet()[2])
    client = "203.0.113.9"
    assert client_address_seen(trusted, proxy_address, client) == client
    for elsewhere in ("172.18.0.5", "10.0.0.7", "127.0.0.1"):  # the other network, the host
        assert client_address_seen(trusted, elsewhere, client) == elsewhere


def test_with_no_proxy_configured_a_forged_forwarded_for_is_ignored() -> None:
    """FORWARDED_ALLOW_IPS empty (its default outside compose): the connection's address."""
    assert client_address_seen("", "127.0.0.1", "203.0.113.9") == "127.0.0.1"
    assert client_address_seen("127.0.0.1", "127.0.0.1", "203.0.113.9") == "203.0.113.9"


def test_web_stops_in_time_and_bounds_its_frames() -> None:
    web = SERVICES["web"]
    words = command_words(web)
    assert int(option(words, "--ws-max-size") or 0) <= 64 * 1024
    assert option(words, "--ws-per-message-deflate") == "false"
    graceful = int(option(words, "--timeout-graceful-shutdown") or 0)
    assert 0 < graceful <= 30
    grace = str(web["stop_grace_period"]).removesuffix("s")
    assert int(grace) > graceful


@pytest.mark.caddy
def test_the_caddyfile_balances_over_every_web_replica() -> None:
    """Caddy's own reading of deploy/Caddyfile (as the caddy:2 image reads it)."""
    adapted = subprocess.run(
        ["caddy", "adapt", "--adapter", "caddyfile", "--config", str(CADDYFILE)],
        capture_output=True,
        text=True,
        check=True,
        env={"PATH": "/usr/bin:/bin", "HOME": "/nonexistent"},
    )
    config = json.loads(adapted.stdout)
    (server,) = config["apps"]["http"]["servers"].values()
    assert server["listen"] == [":80"]
    metrics, route = server["routes"]
    # The operators' metrics are not served to the public (404 at the proxy).
    assert metrics["match"] == [{"path": ["/metrics", "/metrics/*"]}]
    assert metrics["handle"] == [{"handler": "static_response", "status_code": 404}]
    (proxy,) = route["handle"]
    assert proxy["handler"] == "reverse_proxy"
    web_port = option(command_words(SERVICES["web"]), "--port")
    # Every replica of the `web` service, looked up again within seconds.
    assert proxy["dynamic_upstreams"] == {
        "source": "a",
        "name": "web",
        "port": web_port,
        "refresh": 5_000_000_000,
    }
    assert proxy["load_balancing"]["selection_policy"] == {"policy": "least_conn"}
    assert proxy["health_checks"]["passive"]["fail_duration"] > 0
    # No client is trusted to say who it is: Caddy sets X-Forwarded-For itself.
    assert "trusted_proxies" not in proxy and "trusted_proxies" not in server
    assert "headers" not in proxy
    # The compose health check reads the admin API.
    assert config["admin"]["listen"] == "localhost:2019"
    assert "http://127.0.0.1:2019/" in " ".join(SERVICES["proxy"]["healthcheck"]["test"])


# --- PostgreSQL's connections ----------------------------------------------------------

SUPERUSER_RESERVED_CONNECTIONS = 3  # PostgreSQL's default; the compose file keeps it


def pool_size(name: str) -> int:
    return int(environment(SERVICES[name])["DATABASE_POOL_MAX_SIZE"])


def max_connections() -> int:
    words = command_words(SERVICES["postgres"])
    assert words[0] == "postgres"
    settings = dict(words[i + 1].split("=", 1) for i, word in enumerate(words) if word == "-c")
    assert "superuser_reserved_connections" not in settings
    return int(settings["max_connections"])


def suggested_replicas() -> dict[str, int]:
    """The replicas of the header's `docker compose up … --scale` line (1 where unnamed)."""
    line = next(line for line in COMPOSE_TEXT.splitlines() if "docker compose up" in line)
    scaled = {name: int(count) for name, count in re.findall(r"--scale (\w+)=(\d+)", line)}
    return {name: scaled.get(name, 1) for name in APP_SERVICES}


def processes(name: str) -> int:
    """Processes of one replica that open PostgreSQL connections (a uvicorn supervisor or a
    Celery parent is counted, though they do not query)."""
    words = command_words(SERVICES[name])
    if words[0] == "uvicorn":
        return int(option(words, "--workers") or 1)
    if words[0] == "celery" and "worker" in words:
        # Prefork children run one task at a time each (no threads, no gevent).
        assert option(words, "--pool") is None and option(words, "-P") is None
        return int(option(words, "--concurrency") or 0) + 1
    return 1


def connections_at_most(replicas: dict[str, int]) -> dict[str, int]:
    return {name: replicas[name] * processes(name) * pool_size(name) for name in APP_SERVICES}


def test_the_suggested_scale_fits_postgresql_s_max_connections() -> None:
    replicas = suggested_replicas()
    assert replicas["web"] > 1 and replicas["beat"] == 1
    used = connections_at_most(replicas)
    total = sum(used.values())
    assert total + SUPERUSER_RESERVED_CONNECTIONS <= max_connections(), used
    # ...with what the header says, so that the figures an operator reads are the real ones.
    assert re.search(rf"total {total}\b", COMPOSE_TEXT), f"the header's total is not {total}"
    assert re.search(rf"max_connections={max_connections()}\b", COMPOSE_TEXT.split("\n\n")[0])
    # Room left for an operator's psql and pg_dump.
    assert max_connections() - total - SUPERUSER_RESERVED_CONNECTIONS >= 10


@pytest.mark.parametrize("doc", ["README.md", "docs/operations.md"])
def test_the_docs_suggest_the_scale_the_connections_are_sized_for(doc: str) -> None:
    header = next(line for line in COMPOSE_TEXT.splitlines() if "docker compose up" in line)
    suggested = re.findall(r"--scale \w+=\d+", header)
    text = (ROOT / doc).read_text()
    lines = [
        line for line in text.splitlines() if "docker compose up" in line and "--scale" in line
    ]
    assert lines, f"{doc} suggests no scale"
    for line in lines:
        assert re.findall(r"--scale \w+=\d+", line) == suggested, line


def test_a_web_process_has_a_connection_for_every_request_thread() -> None:
    web_threads = ENVIRONMENT_VARIABLES["WEB_THREADS"].default
    assert "WEB_THREADS" not in environment(SERVICES["web"])
    assert pool_size("web") > web_threads  # and some for the WebSocket consumers' reads


@pytest.mark.parametrize("name", sorted(APP_SERVICES))
def test_every_process_has_a_bounded_pool(name: str) -> None:
    assert 1 <= pool_size(name) <= ENVIRONMENT_VARIABLES["DATABASE_POOL_MAX_SIZE"].default
