# incidentlib in production: gunicorn behind your TLS proxy, PostgreSQL from DATABASE_URL.
#   docker build -t incidentlib .
#   docker run -e DATABASE_URL=postgres://... -e SECRET_KEY=... -e ALLOWED_HOSTS=incidents.example.com -p 8000:8000 incidentlib
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

RUN useradd --create-home --uid 10001 incidentlib
WORKDIR /app

# Pinned dependencies first, so that code changes reuse this layer.
COPY requirements.lock ./
RUN pip install --no-deps -r requirements.lock

COPY . .
# The Korean translations are committed compiled (locale/ko/LC_MESSAGES/django.mo).
RUN pip install --no-deps . \
    && python manage.py collectstatic --no-input

# The uid of the user made above: numeric, so that the runtime need not look the name up.
USER 10001
# 8000: the app (behind the proxy); 9464: its Prometheus metrics (METRICS_ADDRESS), never public.
EXPOSE 8000 9464
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import os, sys, urllib.request as u; host = os.environ.get('ALLOWED_HOSTS', 'localhost').split(',')[0].strip(); sys.exit(u.urlopen(u.Request('http://127.0.0.1:8000/healthz', headers={'Host': host}), timeout=4).status != 200)"]

# gunicorn.conf.py: workers (WEB_CONCURRENCY), timeouts, JSON logs, metrics. With several app
# servers, run migrate once before them instead (compose.yaml's `migrate` service).
CMD ["sh", "-c", "python manage.py migrate --no-input && exec gunicorn incidentlib.wsgi"]
