"""Reading cases out of the library in one consistent snapshot, a chunk at a time.

A case is read in several queries (its row, then each of its lists). Under PostgreSQL's
default READ COMMITTED each query sees what was committed when it started, so an import
committing in between would give a case whose row comes from one version and whose
lists come from another. `snapshot()` runs all of them in one REPEATABLE READ, READ ONLY
transaction: every query of the export sees the library as it was at its first query.

`export_cases` and `/api/cases.jsonl` read through it, and so do the case page,
`/cases/<id>.json` and the pages of `/api/cases/` (`read_in_one_snapshot`). The download
streams: its view has returned before the first line is made, so the snapshot is opened by
the generator that makes the lines, and is closed when the generator is (the response's
close() at the end of the request, or when the client goes away).
"""

import datetime
import json
from contextlib import contextmanager
from functools import wraps

from django.db import connections, router, transaction

from cases.models import Case

# Cases fetched (with their lists, in a fixed number of queries) per step of an export.
CHUNK_SIZE = 200
# A sync time is given this much earlier than the database says: room for the app servers'
# clocks (which time each write, `changed_at`) to run a little behind the database's.
SYNC_MARGIN = datetime.timedelta(seconds=5)


@contextmanager
def snapshot(using=None):
    """One REPEATABLE READ, READ ONLY transaction around the block, on `using` or else the
    database the router names for reading cases (a request's replica, or the primary).

    Inside a transaction already (a caller's, or a test's) the block joins it: its snapshot
    is the one the caller chose, and the isolation of a started transaction cannot change.
    """
    using = using or router.db_for_read(Case)
    connection = connections[using]
    if connection.in_atomic_block:
        # No savepoint (it only reads), nor atomic(savepoint=False), which would mark the
        # caller's transaction for rollback when an Http404 leaves the block.
        yield
        return
    # The health check (CONN_HEALTH_CHECKS) runs a query of its own on the first cursor of
    # a request: made here, before the transaction, it cannot come before SET TRANSACTION.
    connection.ensure_connection()
    connection.close_if_health_check_failed()
    with transaction.atomic(using=using), connection.cursor() as cursor:
        cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        yield


def sync_time(using=None):
    """The time a copy made from a snapshot taken after this call is complete up to, on
    `using` or else the database the router names for reading cases, as `snapshot()`.

    Every write that such a snapshot does not show has a `changed_at` at or after it: the
    write either starts later, or is in a transaction already open now, and a transaction
    times its writes after it begins. So a copy that asks next for `updated_since` this
    time misses nothing (it may get a few cases twice). Call it before `snapshot()`.
    Reading other sessions' `xact_start` needs the same database role as they have (or
    pg_read_all_stats), as an app's own connections do.
    """
    with connections[using or router.db_for_read(Case)].cursor() as cursor:
        cursor.execute(
            """
            SELECT least(statement_timestamp(), min(xact_start))
              FROM pg_stat_activity
             WHERE datname = current_database() AND pid <> pg_backend_pid()
            """
        )
        (moment,) = cursor.fetchone()
    return moment - SYNC_MARGIN


def read_in_one_snapshot(view):
    """A view whose queries all read one snapshot (a case page: the case, then its lists).

    The response must be made inside the view (render(), not a lazy TemplateResponse).
    """

    @wraps(view)
    def answer(request, *args, **kwargs):
        with snapshot():
            return view(request, *args, **kwargs)

    return answer


def iter_cases(cases, to_exchange):
    """`to_exchange(case)` for each case of the queryset, fetched CHUNK_SIZE at a time.

    Call it inside `snapshot()`: each chunk is a few queries.
    """
    for case in cases.iterator(chunk_size=CHUNK_SIZE):
        yield to_exchange(case)


def json_lines_pieces(values):
    """JSON Lines: each case on a line of its own (json escapes every line break inside a
    string; U+2028 and the like are not line breaks to a reader of JSON Lines)."""
    for value in values:
        yield json.dumps(value, ensure_ascii=False) + "\n"


def json_array_pieces(values):
    """The text of `cases_json(values)` (cases/exchange/format.py), a case at a time."""
    empty = True
    for value in values:
        yield "[\n" if empty else ",\n"
        # Only "\n" is a line break here: JSON escapes it inside strings, but not U+2028 and
        # the like, which textwrap.indent would also take for line breaks.
        yield "  " + json.dumps(value, ensure_ascii=False, indent=2).replace("\n", "\n  ")
        empty = False
    yield "[]\n" if empty else "\n]\n"
