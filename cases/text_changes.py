"""Whether a search's page, kept in the cache, is still true after the texts changed since it
was read (cases/migrations/0029_text_changes.py keeps each change's vectors from before it).

A search whose order only its words' matches, the titles' matches and the shape decide (its
cases many enough to be ordered by their title's match, then their date, not by a score; an
English search, which no sentence vector changes; ordered by relevance or by the date) shows,
for the same shape, the same cases and counts as long as every case changed since matches each
of its words, and its title the title's words, as it did before. `searched()` notes those
words for the page (the list, cases/listing/query.py, chooses the searches checked so); the
cache keeps them with the page and the snapshot it was read in, and checks them on each read
(`stale_sql`), in one query with the rows the page shows, which a change to one of them fails
on its own. Any other search is kept under the generation, as before.

The worker drops the changes older than KEEP_SECONDS (`prune`): a page read before the
newest change dropped cannot be checked any more, and is made again.
"""

from dataclasses import dataclass

from django.db import connection as default_connection

from cases.models import Case

# How long the changes of texts are kept (seconds): a search's page older than that is made
# again at its next read after the worker's prune.
KEEP_SECONDS = 1800


@dataclass(frozen=True)
class SearchedWords:
    """The tsqueries (as SQL literals) a search's page depends on: one for each of its words,
    those it leaves out included, and the one a title's match is read by."""

    words: tuple
    title: str


def searched(request, words, title):
    """Note, for the cache of the request's page (cases/caching.py), the tsqueries its search
    depends on (SQL literals; cases/listing/query.py chooses the searches checked so)."""
    if request is not None:
        request._searched_words = SearchedWords(tuple(words), title)


def stale_sql(searched_words):
    """SQL of a boolean, given %(snapshot)s: whether a text changed since the snapshot (or one
    no longer known) may change the page of these words."""
    table = Case._meta.db_table
    differs = " OR ".join(
        [
            f"(changed.title_before @@ {searched_words.title}) IS DISTINCT FROM "
            f"(c.title_vector @@ {searched_words.title})",
            *(
                f"(changed.search_before @@ {word}) IS DISTINCT FROM (c.search_vector @@ {word})"
                for word in searched_words.words
            ),
        ]
    )
    return f"""(
        EXISTS (SELECT 1 FROM cases_textchange_pruned
                 WHERE through >= pg_snapshot_xmin(%(snapshot)s::pg_snapshot))
        OR EXISTS (
            SELECT 1
              FROM (SELECT DISTINCT ON (case_id) case_id, title_before, search_before
                      FROM cases_textchange
                     WHERE xid >= pg_snapshot_xmin(%(snapshot)s::pg_snapshot)
                       AND NOT pg_visible_in_snapshot(xid, %(snapshot)s::pg_snapshot)
                     ORDER BY case_id, id) AS changed
              JOIN {table} AS c ON c.id = changed.case_id
             WHERE {differs}
        )
    )"""


def prune(keep_seconds=KEEP_SECONDS):
    """Drop the changes older than `keep_seconds`, noting the newest transaction dropped;
    returns how many."""
    with default_connection.cursor() as cursor:
        cursor.execute(
            """
            WITH dropped AS (
                DELETE FROM cases_textchange
                 WHERE changed_at < clock_timestamp() - make_interval(secs => %s)
                RETURNING xid
            ), newest AS (
                SELECT max(xid) AS through, count(*) AS n FROM dropped
            ), noted AS (
                INSERT INTO cases_textchange_pruned (id, through)
                SELECT 1, through FROM newest WHERE through IS NOT NULL
                ON CONFLICT (id) DO UPDATE
                    SET through = GREATEST(cases_textchange_pruned.through, EXCLUDED.through)
            )
            SELECT n FROM newest
            """,
            [keep_seconds],
        )
        return cursor.fetchone()[0]
