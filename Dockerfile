# Astrocyte Daily: one image for the web (ASGI), Celery worker and beat processes.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app

# Dependencies first, exactly as locked, so code changes reuse this layer.
COPY requirements.lock ./
RUN pip install --require-hashes -r requirements.lock

COPY . .
RUN pip install --no-deps -e . \
    && DEBUG=false SECRET_KEY=collectstatic-only python manage.py collectstatic --noinput \
    && useradd --create-home --uid 10001 astrocyte \
    && chown -R astrocyte /app

USER astrocyte
EXPOSE 8000

CMD ["uvicorn", "config.asgi:application", "--host", "0.0.0.0", "--port", "8000", \
     "--workers", "4", "--lifespan", "off", "--proxy-headers"]
