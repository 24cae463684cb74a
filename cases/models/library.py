"""The library's state: its generation, raised by every write, that caches are kept under."""

import datetime
from dataclasses import dataclass, field

from django.db import connections, models, router
from django.db.models import Q
from django.utils.translation import gettext_lazy as _


@dataclass(frozen=True)
class LibraryState:
    """The library as a request sees it: its generation, when it last changed, and whether
    the request's own transaction has written to the database (its changes are not yet
    anybody else's, nor under any generation: nothing may be cached or served from a cache)."""

    generation: int
    changed_at: datetime.datetime | None
    writing: bool
    shape: int = 0
    shape_changed_at: datetime.datetime | None = None
    # When the server read from started: transaction ids, which a list's rows are checked
    # by, are given again after a restored backup.
    server_started_at: datetime.datetime | None = None
    # The snapshot the state was read in (pg_current_snapshot): a search's page kept in the
    # cache is checked against the texts changed since (cases/text_changes.py). Not part of
    # the state: two reads of an unchanged library are equal.
    snapshot: str | None = field(default=None, compare=False)
    # How many times the worker has pruned those changes (cases/text_changes.py).
    text_prunes: int = field(default=0, compare=False)

    @property
    def version(self):
        """The generation with the time it was given: unique even if a restored backup gives
        the sequence's numbers again (the cache may hold pages of the lost ones)."""
        return f"{self.generation}.{_microseconds(self.changed_at)}"

    @property
    def shape_version(self):
        """The shape (Library.shape) with the time it was given, as `version`, and when the
        server started."""
        changed, started = map(_microseconds, (self.shape_changed_at, self.server_started_at))
        return f"{self.shape}.{changed}.{started}"


def _microseconds(moment):
    """A moment as a whole number of microseconds (0 for none)."""
    return int(moment.timestamp() * 1_000_000) if moment else 0


class LibraryManager(models.Manager):
    def state(self):
        """The LibraryState, in one query; generation 0 before the first write."""
        with connections[self.db].cursor() as cursor:
            cursor.execute(
                f"""
                SELECT library.generation, library.changed_at,
                       pg_current_xact_id_if_assigned() IS NOT NULL,
                       library.shape, library.shape_changed_at, pg_postmaster_start_time(),
                       pg_current_snapshot()::text,
                       (SELECT epoch FROM cases_textchange_pruned)
                  FROM (SELECT 1) AS one
                  LEFT JOIN {self.model._meta.db_table} AS library ON true
                """
            )
            generation, changed_at, writing, shape, shape_changed, started, snapshot, prunes = (
                cursor.fetchone()
            )
        return LibraryState(
            generation or 0,
            changed_at,
            writing,
            shape or 0,
            shape_changed,
            started,
            snapshot,
            prunes or 0,
        )

    def raise_generation(self):
        """A new generation at once, for a write the database's triggers do not see (a case's
        sentence vectors, meaning/embedding.py, change what searches find)."""
        with connections[router.db_for_write(self.model)].cursor() as cursor:
            cursor.execute("SELECT cases_raise_generation()")


class Library(models.Model):
    """The library's generation: one row, written by the database only (cases/migrations/).

    Every committed change to a case, its lists, a term or an organisation gives it a new
    generation, never given before, and sets `changed_at`. Cached pages and counts are kept
    under the generation (cases/caching.py): a write makes them unreachable at once.
    """

    generation = models.BigIntegerField(_("generation"))
    changed_at = models.DateTimeField(_("changed at"))
    # Raised only by the writes that change which cases a list holds, their order and the
    # counts (cases/migrations/0028_library_shape.py).
    shape = models.BigIntegerField(_("shape"), db_default=0)
    shape_changed_at = models.DateTimeField(_("shape changed at"), null=True)

    objects = LibraryManager()

    class Meta:
        verbose_name = _("library state")
        constraints = [models.CheckConstraint(condition=Q(id=1), name="library_one_row")]

    def __str__(self):
        return f"generation {self.generation}"
