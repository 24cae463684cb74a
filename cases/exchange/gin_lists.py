"""The import's GIN indexes, kept up to date by a second connection while the import writes.

A row written into a table with a GIN index (the cases' search vectors, title vectors and
term ids) goes first into the index's pending list, a cheap append; when the list passes
`gin_pending_list_limit` (4 MB), the writer itself merges it into the index, an entry of
the tree at a time. For an import that merging was about a third of the time PostgreSQL
spent writing the case rows (a case's search vector holds some 470 words).

So the import's transaction raises its own limit (`WRITE_SETTINGS`), so that it only
appends, and `Merger` merges the lists as they grow, with `gin_clean_pending_list()`, in a
thread and over a connection of its own: on the other core, while the import goes on. That
function needs the rights of the indexes' owner (as VACUUM does): a role without them
imports as before, its writes merging the lists themselves (`may_merge`). A
GIN entry carries no transaction, so the merge needs no access to the import's rows; if
the import is rolled back, its entries are left to VACUUM, as any rolled-back write's are.
At its end the import waits for a last merge, so that no search after it reads a long
pending list. A small import, whose pending lists stay short, keeps the usual limit and merges
them once, at its end, over its own connection (`threaded=False`).
"""

from django.contrib.postgres.indexes import GinIndex
from django.db import DEFAULT_DB_ALIAS, connections

from cases.exchange.connection_thread import ConnectionThread
from cases.models import Case

# The pending list an import's transaction may leave for the Merger (settings of the
# transaction only): never reached in practice, the merges keep it far below.
WRITE_SETTINGS = {"gin_pending_list_limit": "2GB"}
# Memory of a merge (the Merger's session only).
MERGE_MEMORY = "256MB"


def gin_indexes():
    return [index.name for index in Case._meta.indexes if isinstance(index, GinIndex)]


def may_merge(cursor):
    """Whether the role of this connection has the rights of the GIN indexes' owner, which
    gin_clean_pending_list() needs (a superuser has them)."""
    cursor.execute(
        "SELECT coalesce(bool_and(pg_has_role(relowner, 'USAGE')), false) FROM pg_class "
        "WHERE oid = ANY(%s::regclass[])",
        [gin_indexes()],
    )
    return cursor.fetchone()[0]


class Merger:
    """Merges the cases' GIN pending lists in a thread, whenever asked and not yet busy.
    Use it as a context manager; leaving it waits for a last merge. Does nothing when not
    `enabled`. Not `threaded` (a small import), it starts no thread: leaving it merges the
    lists once, over the calling thread's connection."""

    def __init__(self, enabled=True, *, threaded=True):
        self.enabled = enabled
        self.threaded = threaded

    def __enter__(self):
        # No thread, nor connection, unless it merges as the import goes.
        self.thread = ConnectionThread("gin-merge") if self.enabled and self.threaded else None
        self.running = None
        return self

    def merge(self):
        """Start a merge, unless one is under way (it takes what was appended since)."""
        if self.thread is not None and (self.running is None or self.running.done()):
            self.running = self.thread.submit(self._merge)

    def __exit__(self, exc_type, *_exc):
        if self.thread is None:
            if exc_type is None and self.enabled:
                with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
                    # For the rest of the import's transaction only.
                    cursor.execute(
                        "SELECT set_config('maintenance_work_mem', %s, true)", [MERGE_MEMORY]
                    )
                    _clean_pending_lists(cursor)
            return
        try:
            if self.running is not None:
                self.running.result()
            if exc_type is None:
                self.thread.submit(self._merge).result()
        finally:
            self.thread.close()

    def _merge(self):
        connection = connections[DEFAULT_DB_ALIAS]
        with connection.cursor() as cursor:
            cursor.execute("SELECT set_config('maintenance_work_mem', %s, false)", [MERGE_MEMORY])
            _clean_pending_lists(cursor)


def _clean_pending_lists(cursor):
    for name in gin_indexes():
        cursor.execute("SELECT gin_clean_pending_list(%s::regclass)", [name])
