"""What a reader gives: one incident as read, in the library's terms, and its hash."""

import datetime
import hashlib
import json
from dataclasses import asdict, dataclass, field


class ReadError(Exception):
    """What a source sent cannot be read; the message names the format and the place:
    "Statuspage feed: `incidents[3].started_at` is not a date"."""


@dataclass
class Entry:
    item_id: str
    url: str  # the incident's own address, kept as a source of the case
    title: str
    date: datetime.date
    organisation: str
    summary: str
    date_kind: str = "occurred"
    symptoms: str | None = None  # the updates' text, oldest first
    impact_scope: str | None = None  # affected components or products
    impact_region: str | None = None
    severity: str = "unknown"
    root_cause: str = "unknown"
    resolved_after: str | None = None  # an ISO 8601 duration
    source_kind: str = "status-page"  # the case's source kind (cases.models.SOURCE_KIND_LABELS)
    license: str | None = None  # the item's own, else the followed source's

    def read(self):
        """What was read, as JSON values: kept on the item, compared, hashed."""
        value = asdict(self)
        value["date"] = self.date.isoformat()
        return value

    def content_hash(self):
        text = json.dumps(self.read(), sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(text.encode()).hexdigest()


@dataclass
class Listing:
    entries: list  # the entries kept (the source's filters applied)
    listed: int  # how many items the source listed, kept or not (the shrink check)
    left_out: int = 0  # listed but not kept by the source's filters
    notes: list = field(default_factory=list)


def parse_time(value, where, what):
    """An aware datetime in UTC from an ISO 8601 text, or ReadError naming `where`."""
    if not isinstance(value, str):
        raise ReadError(f"{what}: `{where}` is not a date")
    try:
        moment = datetime.datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        raise ReadError(f"{what}: `{where}` is not a date ({value[:40]!r})") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.UTC)
    return moment.astimezone(datetime.UTC)


def iso_duration(start, end):
    """PT2H15M for the time from start to end; None when either is missing or end is first."""
    if not start or not end or end <= start:
        return None
    minutes = int((end - start).total_seconds() // 60)
    days, minutes = divmod(minutes, 24 * 60)
    hours, minutes = divmod(minutes, 60)
    text = "P" + (f"{days}D" if days else "")
    if hours or minutes or not days:
        text += (
            "T" + (f"{hours}H" if hours else "") + (f"{minutes}M" if minutes or not hours else "")
        )
    return text


def short(text, limit):
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def json_list(body, format_name):
    """The body read as a JSON list of incidents, or a ReadError naming the format."""
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError) as error:
        raise ReadError(f"{format_name}: not JSON ({error})") from None
    if not isinstance(data, list):
        raise ReadError(f"{format_name}: not a list of incidents")
    return data
