"""The worker's jobs of the cases: their similar cases kept (cases/discover/kept.py), and the
changes of their texts that searches' pages are checked against pruned (cases/text_changes.py).

`keep_similar_cases` is deferred in the transaction of every write of a case (apps.py:
Django's `post_save`, and an import's `cases_written`), so that none is lost; it makes again
every list a write made stale, whichever write did. Every minute the periodic job does the
same, for writes that neither signal sees (an UPDATE in SQL), and makes again the oldest
lists, so that none is older than SIMILAR_CASES_MAX_AGE. The `lock` runs one such job at a
time across the workers.
"""

from cases import text_changes
from cases.discover.kept import refresh
from incidentlib.worker import RETRY, app

LOCK = "cases-similar"


@app.task(retry=RETRY, lock=LOCK, name="cases.keep_similar_cases")
def keep_similar_cases():
    return refresh()


@app.periodic(cron="* * * * *", periodic_id="cases-similar")
@app.task(retry=RETRY, lock=LOCK, name="cases.keep_similar_cases_periodically")
def keep_similar_cases_periodically(timestamp):
    return refresh()


def defer_keeping(**_):
    """Defer `keep_similar_cases` (in the current transaction, if any)."""
    keep_similar_cases.defer()


@app.periodic(cron="*/5 * * * *", periodic_id="cases-text-changes")
@app.task(retry=RETRY, name="cases.prune_text_changes")
def prune_text_changes(timestamp):
    """Every five minutes, the changes of texts older than KEEP_SECONDS dropped."""
    return text_changes.prune()
