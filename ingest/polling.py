"""Polling a followed source: fetch, read, and draft what is new or changed.

One run of one source, `poll(source)`:

1. The source's row is locked (`SELECT ... FOR UPDATE SKIP LOCKED`): a second worker polling
   it at the same time does nothing. (The unique (source, item id) constraint stands behind.)
2. Its address is fetched (ingest/fetching.py) with the previous answer's ETag and
   Last-Modified: a 304, or a body of the same hash as last time, ends the run there, with
   no work per item.
3. Its reader (ingest/readers/) turns the body into entries. A source that lists more than
   10% fewer items than at its last read is flagged (`shrunk`); nothing is deleted, ever.
4. Each entry, by its item id: new, a draft is made; its hash unchanged, nothing; dismissed,
   nothing; changed, its draft is updated if nobody edited it since, else the item is
   flagged "changed at the source" with the difference and the reviewer's text kept.
   Drafts go through the import's checks and writes (ingest/drafting.py); one that fails
   them is refused, alone, with its problem.

Steps 2 to 4 run in a savepoint: an error (a time-out, a 500, a body too big, a malformed
feed) drafts nothing, is recorded on the source with its message, and the next run is put
off (twice the interval per error in a row, at most a day). The caller (the worker's task)
then raises, so that the job is retried with the worker's backoff.
"""

import hashlib
import logging
from dataclasses import dataclass, field

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from cases.models import Case
from ingest import drafting
from ingest.fetching import FetchError, fetch
from ingest.models import FollowedSource, Item, ItemState
from ingest.readers import ReadError, reader

logger = logging.getLogger(__name__)

# A read listing fewer than this share of the items of the last one is flagged.
SHRINK_RATIO = 0.9


@dataclass
class Outcome:
    source: str
    drafted: list = field(default_factory=list)  # case ids
    updated: list = field(default_factory=list)
    flagged: list = field(default_factory=list)  # item ids changed after an edit
    refused: list = field(default_factory=list)  # (item id, problem)
    skipped: int = 0
    not_modified: bool = False
    busy: bool = False
    error: str = ""
    notes: list = field(default_factory=list)

    def summary(self):
        if self.busy:
            return f"{self.source}: another worker is polling it; nothing done"
        if self.error:
            return f"{self.source}: error: {self.error}"
        if self.not_modified:
            return f"{self.source}: not modified since the last run; nothing read"
        line = (
            f"{self.source}: {len(self.drafted)} drafted, {len(self.updated)} updated, "
            f"{self.skipped} skipped, {len(self.flagged)} changed after an edit, "
            f"{len(self.refused)} refused"
        )
        return "; ".join([line, *self.notes])


def due_sources(now=None):
    return FollowedSource.objects.filter(active=True, next_poll_at__lte=now or timezone.now())


def poll(source):
    """Poll one source now (whether due or not); its Outcome, recorded on it."""
    now = timezone.now()
    name = source.name
    with transaction.atomic():
        locked = FollowedSource.objects.select_for_update(skip_locked=True).filter(pk=source.pk)
        source = locked.first()
        if source is None:
            return Outcome(name, busy=True)
        outcome = Outcome(source.name)
        try:
            with transaction.atomic():
                _run(source, outcome, now)
        except (FetchError, ReadError) as error:
            outcome = Outcome(source.name, error=str(error))
        except Exception as error:  # a bug, or the database: recorded all the same
            logger.exception("polling %s failed", source.name)
            outcome = Outcome(source.name, error=f"unexpected error: {error}")
        _record(source, outcome, now)
    return outcome


def _record(source, outcome, now):
    source.last_run_at = now
    source.last_outcome = outcome.summary()[:300]
    source.runs = F("runs") + 1
    if outcome.error:
        source.last_error = outcome.error
        source.last_error_at = now
        source.errors_in_a_row += 1
        source.errors = F("errors") + 1
    else:
        source.errors_in_a_row = 0
        source.drafted = F("drafted") + len(outcome.drafted)
        source.updated = F("updated") + len(outcome.updated)
        source.skipped = F("skipped") + outcome.skipped
        source.flagged = F("flagged") + len(outcome.flagged)
        source.refused = F("refused") + len(outcome.refused)
    source.schedule_next(now, failed=bool(outcome.error))
    source.save()
    source.refresh_from_db()


def _run(source, outcome, now):
    read = reader(source.kind)
    answer = fetch(
        read.address(source), etag=source.etag, last_modified=source.last_modified,
        accept=read.ACCEPT,
    )  # fmt: skip
    if answer.status == 304:
        outcome.not_modified = True
        return
    source.etag, source.last_modified = answer.etag[:500], answer.last_modified[:100]
    body_hash = hashlib.sha256(answer.body).hexdigest()
    if body_hash == source.read_hash:
        outcome.notes.append("the same content as last time; nothing read")
        return
    listing = read.read(answer.body, source)
    if source.items_listed and listing.listed < SHRINK_RATIO * source.items_listed:
        source.shrunk = (
            f"{now:%Y-%m-%d %H:%M} UTC: listed {listing.listed} items, {source.items_listed} "
            "at the run before: more than 10% vanished. Nothing was deleted; check the source."
        )
        outcome.notes.append("listed far fewer items than before (flagged)")
    if not source.items_listed and hasattr(read, "older"):
        # The first run: the source's older incidents too, where it has them.
        try:
            older = read.older(source, fetch)
        except (FetchError, ReadError) as error:
            outcome.notes.append(f"older incidents not read ({error})")
        else:
            listed = {entry.item_id for entry in listing.entries}
            listing.entries += [entry for entry in older if entry.item_id not in listed]
    source.items_listed = listing.listed
    outcome.skipped += listing.left_out
    entries = list({entry.item_id: entry for entry in reversed(listing.entries)}.values())[::-1]
    # Only when every item is done: the next run reads the same body again for the rest.
    if _draft(source, entries, outcome, now):
        source.read_hash = body_hash


def _draft(source, entries, outcome, now):
    """Draft or update what is new or changed, at most INGEST_MAX_ITEMS of them; whether
    every entry is done (the others are left for the next run, which finds these unchanged)."""
    known = {
        item.item_id: item for item in source.items.filter(item_id__in=[e.item_id for e in entries])
    }
    cases = dict(
        Case.objects.filter(id__in=[i.case_id for i in known.values() if i.case_id]).values_list(
            "id", "version"
        )
    )
    reviewed = set(
        Case.objects.filter(id__in=list(cases), reviewed_at__isnull=False).values_list(
            "id", flat=True
        )
    )
    to_write = []  # (item, entry)
    changed_items = []
    for entry in entries:
        item = known.get(entry.item_id)
        digest = entry.content_hash()
        if item is None:
            item = Item(
                source=source, item_id=entry.item_id, url=entry.url[:2000], title=entry.title,
                content_hash=digest, fetched_at=now, read=entry.read(), state=ItemState.REFUSED,
            )  # fmt: skip
            to_write.append((item, entry))
            continue
        if item.state == ItemState.DISMISSED or item.content_hash == digest:
            outcome.skipped += 1
            continue
        if item.state == ItemState.DRAFTED and item.case_id is None:
            # Its draft was deleted by a reviewer: a dismissal.
            item.state = ItemState.DISMISSED
            changed_items.append(item)
            outcome.skipped += 1
            continue
        if item.state == ItemState.DRAFTED and (
            cases.get(item.case_id) != item.case_version or item.case_id in reviewed
        ):
            item.changed_at_source = drafting.difference(item.read, entry.read())
            item.content_hash, item.fetched_at = digest, now
            changed_items.append(item)
            outcome.flagged.append(item.item_id)
            continue
        item.content_hash, item.fetched_at, item.read = digest, now, entry.read()
        item.url, item.title = entry.url[:2000], entry.title
        to_write.append((item, entry))
    limit = settings.INGEST_MAX_ITEMS
    left = len(to_write) - limit
    if left > 0:
        to_write = to_write[:limit]
        outcome.notes.append(f"{left} items left for the next run (INGEST_MAX_ITEMS)")
    Item.objects.bulk_update(
        changed_items, ["state", "changed_at_source", "content_hash", "fetched_at"]
    )
    new = [item for item, _entry in to_write if item.pk is None]
    Item.objects.bulk_create(new)
    if to_write:
        drafting.ensure_terms()
    _write_drafts(source, to_write, outcome, now)
    return left <= 0


def _write_drafts(source, to_write, outcome, now):
    organisations = {}
    ready = []  # (item, case, was drafted before)
    for item, entry in to_write:
        if entry.organisation not in organisations:
            organisations[entry.organisation] = drafting.organisation_of(entry.organisation)
        case_id = item.case_id or drafting.case_id_for(item)
        case = drafting.exchange_case(
            entry, source, case_id, now, organisations[entry.organisation]
        )
        problems = drafting.problems_of(case)
        if problems:
            _refuse(item, problems, outcome)
        else:
            ready.append((item, case, item.case_id is not None))
    if drafting.write([case for _item, case, _was in ready]):
        # One refused the whole run (the import writes all or nothing): each alone.
        kept = []
        for item, case, was in ready:
            problems = drafting.write([case])
            if problems:
                _refuse(item, problems, outcome)
            else:
                kept.append((item, case, was))
        ready = kept
    versions = dict(
        Case.objects.filter(id__in=[case["id"] for _i, case, _w in ready]).values_list(
            "id", "version"
        )
    )
    for item, case, was_drafted in ready:
        item.case_id, item.case_version = case["id"], versions[case["id"]]
        item.state, item.problem = ItemState.DRAFTED, ""
        (outcome.updated if was_drafted else outcome.drafted).append(case["id"])
    Item.objects.bulk_update(
        [item for item, _entry in to_write],
        [
            "case",
            "case_version",
            "state",
            "problem",
            "content_hash",
            "fetched_at",
            "read",
            "url",
            "title",
        ],
    )


def _refuse(item, problems, outcome):
    item.state = ItemState.REFUSED
    item.problem = "; ".join(problems)[:2000]
    outcome.refused.append((item.item_id, item.problem))
