"""Slack's status history API (`https://slack-status.com/api/v2.0.0/history`).

A list of incidents, outages and notices, each with `date_created`, `title`, `type`,
`status`, `services` and `notes` (newest first). Notices (maintenance) are left out.
"""

from ingest.readers.entry import (
    Entry,
    Listing,
    ReadError,
    iso_duration,
    json_list,
    parse_time,
    short,
)

FORMAT = "Slack status history"
ACCEPT = "application/json"
SEVERITY = {"outage": "high", "incident": "medium"}


def address(source):
    return source.url


def read(body, source):
    data = json_list(body, FORMAT)
    entries = []
    for index, issue in enumerate(data):
        where = f"[{index}]"
        if not isinstance(issue, dict):
            raise ReadError(f"{FORMAT}: `{where}` is not an object")
        if issue.get("type") not in SEVERITY:
            continue  # notices: planned maintenance
        entries.append(_entry(issue, where))
    return Listing(entries, listed=len(data), left_out=len(data) - len(entries))


def _entry(issue, where):
    if issue.get("id") is None or not str(issue.get("title") or "").strip():
        raise ReadError(f"{FORMAT}: `{where}.id` or `{where}.title` is missing")
    created = parse_time(issue.get("date_created"), f"{where}.date_created", FORMAT)
    notes = issue.get("notes") or []
    lines = []
    for number, note in reversed(list(enumerate(notes))):
        when = parse_time(note.get("date_created"), f"{where}.notes[{number}].date_created", FORMAT)
        lines.append(f"{when:%Y-%m-%d %H:%M} UTC: {' '.join(str(note.get('body') or '').split())}")
    resolved = None
    if issue.get("status") == "resolved" and issue.get("date_updated"):
        resolved = parse_time(issue["date_updated"], f"{where}.date_updated", FORMAT)
    summary = " ".join(str((notes[0] if notes else {}).get("body") or issue["title"]).split())
    return Entry(
        item_id=str(issue["id"]),
        url=str(issue.get("url") or f"https://slack-status.com/{created:%Y-%m}/{issue['id']}"),
        title=short(issue["title"], 300),
        date=created.date(),
        organisation="Slack",
        summary=short(summary, 4000),
        symptoms="\n".join(lines) or None,
        impact_scope=", ".join(map(str, issue.get("services") or [])) or None,
        severity=SEVERITY[issue["type"]],
        resolved_after=iso_duration(created, resolved),
    )
