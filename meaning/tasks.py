"""The worker's jobs of meaning: vectors made after the write, never in it.

`embed_cases` is deferred in the transaction of every write of a case (apps.py: Django's
`post_save`, and an import's `cases_written`), so that none is lost; it brings every stale
vector up to date, whichever write made it stale, and a job finding nothing stale costs one
query. The `lock` runs one such job at a time across the workers. Every minute the periodic
job does the same, for writes that neither signal sees (an UPDATE of many cases at once).
"""

from incidentlib.worker import RETRY, app
from meaning.embedding import embed_stale

LOCK = "meaning-embed"


@app.task(retry=RETRY, lock=LOCK, name="meaning.embed_cases")
def embed_cases():
    return embed_stale()


@app.periodic(cron="* * * * *", periodic_id="meaning-embed")
@app.task(retry=RETRY, lock=LOCK, name="meaning.embed_cases_periodically")
def embed_cases_periodically(timestamp):
    return embed_stale()


def defer_embedding(**_):
    """Defer `embed_cases` (in the current transaction, if any)."""
    embed_cases.defer()
