# Astrocyte Daily: one image for the web (ASGI), migrate, Celery worker and beat processes.
#
# Three stages: `build` installs the runtime lock (requirements.lock: no test tool, linter or
# type stub; those are in requirements-dev.lock, for scripts/dev.py) into a virtual
# environment and collects the static files; `native` compiles the engine's and the
# solver's hot modules with mypyc (a C compiler and mypy, requirements-native.lock: only the
# built extensions leave it; games/engine/native.py); the final stage is a fresh slim Python
# with that environment, the extensions and the code copied in, run as an unprivileged user.
# Every dependency installs from a wheel (PyPI's, hash-checked); only `native` has a compiler.

FROM python:3.11-slim AS build

ENV PYTHONDONTWRITEBYTECODE=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    VIRTUAL_ENV=/opt/venv \
    PATH=/opt/venv/bin:$PATH

RUN python -m venv /opt/venv
WORKDIR /app

# Dependencies first, exactly as locked, so code changes reuse this layer.
COPY requirements.lock ./
# Wheels only (no compiler here), but for http-ece (pywebpush's): pure Python, published
# only as a source archive, built by pip from that archive (its hash is in the lock).
RUN pip install --require-hashes --only-binary=:all: --no-binary=http-ece -r requirements.lock

COPY . .
RUN pip install --no-deps -e . \
    && DEBUG=false SECRET_KEY=collectstatic-only python manage.py collectstatic --noinput


FROM python:3.11-slim AS native

ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

RUN apt-get update \
    && apt-get install -y --no-install-recommends gcc libc6-dev \
    && rm -rf /var/lib/apt/lists/*
RUN python -m venv /opt/tools
WORKDIR /app
COPY requirements-native.lock ./
RUN /opt/tools/bin/pip install --require-hashes --only-binary=:all: -r requirements-native.lock
# The digest of these sources goes with the build: the server uses it only while the code
# it runs is the code it was compiled from.
COPY games ./games
COPY scripts/build_native.py ./scripts/
RUN /opt/tools/bin/python scripts/build_native.py --out /opt/native


FROM python:3.11-slim AS runtime

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    VIRTUAL_ENV=/opt/venv \
    PATH=/opt/venv/bin:$PATH

RUN useradd --create-home --uid 10001 astrocyte
WORKDIR /app

# The environment and the code (with its collected static files), owned by root and only
# readable by the server: a compromised process cannot rewrite the application.
COPY --from=build /opt/venv /opt/venv
COPY --from=native /opt/native /opt/venv/astrocyte-native
COPY --from=build /app /app

USER 10001:10001
EXPOSE 8000

CMD ["uvicorn", "config.asgi:application", "--host", "0.0.0.0", "--port", "8000", \
     "--workers", "4", "--lifespan", "off", "--proxy-headers"]
