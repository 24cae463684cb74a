"""The worker's jobs for followed sources (incidentlib/worker.py).

- `poll_due_sources`, every minute: defers `poll_source` for each source that is due, at
  most one job queued per source (procrastinate's queueing lock).
- `poll_source(source_id)`: one run (ingest/polling.py). A run that ends in an error has
  recorded it on the source; the job then fails, and is retried with the worker's backoff.
"""

from procrastinate.exceptions import AlreadyEnqueued

from incidentlib.worker import RETRY, app
from ingest import polling
from ingest.models import FollowedSource


class PollFailed(Exception):
    pass


@app.task(name="ingest.poll_source", queue="ingest", retry=RETRY)
def poll_source(source_id):
    source = FollowedSource.objects.filter(pk=source_id).first()
    if source is None:
        return "no such source (unfollowed since)"
    outcome = polling.poll(source)
    if outcome.error:
        raise PollFailed(outcome.summary())
    return outcome.summary()


def defer_poll(source):
    """Queue a run of `source` (unless one is queued already); whether one was queued."""
    try:
        poll_source.configure(queueing_lock=f"ingest-source-{source.pk}").defer(source_id=source.pk)
    except AlreadyEnqueued:
        return False
    return True


@app.periodic(cron="* * * * *", periodic_id="ingest-due-sources")
@app.task(name="ingest.poll_due_sources", queue="ingest", pass_context=False)
def poll_due_sources(timestamp):
    return sum(defer_poll(source) for source in polling.due_sources())
