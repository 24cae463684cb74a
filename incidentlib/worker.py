"""The worker: work done after a write's commit, outside any request (procrastinate).

A job is a row of PostgreSQL's `procrastinate_jobs`, written by `task.defer()` through
Django's own connection: inside `transaction.atomic()` it is committed with the write that
asked for it, or not at all, so no job is lost and none runs for a write that was undone.

- Tasks live in each app's `tasks.py` (found at start-up), declared with
  `@app.task(retry=RETRY)` from this module, so that every task fails the same way.
- `manage.py procrastinate worker` runs them (`make run` starts one beside the web server,
  incidentlib/devrun.py; compose.yaml runs the `worker` service, as many as wanted).
- Periodic jobs: `@app.periodic(cron=...)` on a task; the workers agree on who defers it.
- A job that fails is tried again JOB_RETRIES times, after JOB_BACKOFF seconds, then
  JOB_BACKOFF**2, ... (settings.py); then it stays failed: the admin lists it (Procrastinate:
  Jobs) and `incidentlib_jobs{status="failed"}` counts it (incidentlib/metrics.py).
"""

from django.conf import settings
from procrastinate import RetryStrategy
from procrastinate.contrib.django import app

RETRY = RetryStrategy(
    max_attempts=settings.INCIDENTLIB_JOB_RETRIES,
    exponential_wait=settings.INCIDENTLIB_JOB_BACKOFF,
)

__all__ = ["RETRY", "app"]
