"""Whether a search's page, kept in the cache, is still true after the texts changed since it
was read (cases/migrations/0029_text_changes.py keeps each change's vectors from before it).

A search's page shows, for the same shape, the same cases, order and counts as long as no
case changed since could move it:
- a search of many cases (ordered by their title's match, then their date, not by a score)
  is unchanged while every case changed since matches each of its words, and its title the
  title's words, as it did before;
- a search of few cases is ordered by a score: it is unchanged while no case changed since
  is among the cases it finds, before the change or after (their scores may have moved), and
  every one matches each of its words as before (their counts, which weigh the words, and
  which cases come first as having every word);
- where the sentence vectors choose cases (a Korean search finds cases lacking Korean
  through them) or weigh in the score, while no vector written since could change which
  cases they name (meaning/nearest.py's `moved`: a vector of a case they named, or one as
  similar to the search as the least they named).

`searched()` notes those words for the page (the list, cases/listing/query.py, chooses the
searches checked so); the cache keeps them with the page and the snapshot it was read in, and
checks them on each read (`stale_sql`), in one query with the rows the page shows, which a
change to one of them fails on its own. Any other search is kept under the generation, as
before.

The worker drops the changes older than KEEP_SECONDS (`prune`) and counts its prunes
(migration 0030): a page read before a prune cannot be checked any more, and is made again.
"""

from dataclasses import dataclass

from django.db import connection as default_connection

from cases.models import Case
from meaning import nearest
from meaning.models import CaseMeaning

# How long the changes of texts are kept (seconds): a search's page older than that is made
# again at its next read after the worker's prune.
KEEP_SECONDS = 1800
# Changes a read checks at most: a page that more have followed is made again, so that its
# check (each change's vectors read and matched) stays cheap under a stream of writes.
MAX_CHECKED = 200


@dataclass(frozen=True)
class SearchedWords:
    """The tsqueries (as SQL literals) a search's page depends on: one for each of its words,
    those it leaves out included, and the one a title's match is read by; for a search
    ordered by a score, the one of the cases it finds (`found`: a change to any of them may
    move the order); what its sentence vectors depend on, where they choose its cases or
    weigh in its order (`meaning`, meaning/nearest.py's MeaningGuard; None where they do
    not)."""

    words: tuple
    title: str
    found: str | None = None
    meaning: nearest.MeaningGuard | None = None


def searched(request, words, title, *, found=None, meaning=None):
    """Note, for the cache of the request's page (cases/caching.py), what its search depends
    on (SearchedWords; cases/listing/query.py chooses the searches checked so)."""
    if request is not None:
        request._searched_words = SearchedWords(tuple(words), title, found, meaning)


def _sql(literal):
    """A literal made by compose_sql, within SQL run with parameters (`%` doubled)."""
    return literal.replace("%", "%%")


def stale_sql(searched_words):
    """SQL of a boolean, given %(snapshot)s and %(epoch)s (the page's snapshot and prunes):
    whether a text changed since the snapshot may change the page of these words, or a prune
    since has dropped changes it would be checked against.

    Every change the snapshot did not see counts, not only a case's first: the page's own
    queries ran after the snapshot, and may have seen any of them. Past MAX_CHECKED of them,
    the page is made again instead of checked."""
    table = Case._meta.db_table
    title = _sql(searched_words.title)
    differs = [
        f"(changed.title_before @@ {title}) IS DISTINCT FROM (c.title_vector @@ {title})",
        *(
            f"(changed.search_before @@ {word}) IS DISTINCT FROM (c.search_vector @@ {word})"
            for word in map(_sql, searched_words.words)
        ),
    ]
    if searched_words.found is not None:  # a case found, before or after, may move the order
        found = _sql(searched_words.found)
        differs.append(f"(changed.search_before @@ {found}) OR (c.search_vector @@ {found})")
    differs = " OR ".join(differs)
    unseen = """
        changed.xid >= pg_snapshot_xmin(%(snapshot)s::pg_snapshot)
        AND NOT pg_visible_in_snapshot(changed.xid, %(snapshot)s::pg_snapshot)"""
    return f"""(
        coalesce((SELECT epoch FROM cases_textchange_pruned), 0) <> %(epoch)s
        OR (SELECT count(*) FROM (SELECT 1 FROM cases_textchange AS changed WHERE {unseen}
                                  LIMIT {MAX_CHECKED + 1}) AS n) > {MAX_CHECKED}
        OR EXISTS (
            SELECT 1
              FROM cases_textchange AS changed
              JOIN {table} AS c ON c.id = changed.case_id
             WHERE {unseen} AND ({differs})
        )
    )"""


# The generation of the last vector written (meaning/models.py), read with the check.
VECTORS_SQL = f"coalesce((SELECT max(generation) FROM {CaseMeaning._meta.db_table}), 0)"


def vectors_moved(searched_words, generation_now):
    """Whether vectors written since the page was read may change it: only when the page
    used them and some have been written since (VECTORS_SQL, read with the check)."""
    guard = searched_words.meaning
    if guard is None or generation_now == guard.generation:
        return False
    return nearest.moved(guard, generation_now)


def prune(keep_seconds=KEEP_SECONDS):
    """Drop the changes older than `keep_seconds`, counting the prune (the pages read before
    it are made again); returns how many."""
    with default_connection.cursor() as cursor:
        cursor.execute(
            """
            WITH dropped AS (
                DELETE FROM cases_textchange
                 WHERE changed_at < clock_timestamp() - make_interval(secs => %s)
                RETURNING xid
            ), counted AS (
                SELECT count(*) AS n FROM dropped
            ), noted AS (
                INSERT INTO cases_textchange_pruned (id, epoch)
                SELECT 1, 1 FROM counted WHERE n > 0
                ON CONFLICT (id) DO UPDATE SET epoch = cases_textchange_pruned.epoch + 1
            )
            SELECT n FROM counted
            """,
            [keep_seconds],
        )
        return cursor.fetchone()[0]
