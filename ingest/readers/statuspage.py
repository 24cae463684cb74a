"""Atlassian Statuspage v2: `/api/v2/incidents.json` below the status page's own address.

The page lists its latest 50 incidents, newest first, each with its updates (newest first),
its impact (none, minor, major, critical) and the components it touched. A draft gets the
incident's name, its first update's time as the date, the updates (oldest first) as the
symptoms, the last update as the summary, the postmortem as the summary when one is
published, the components as the impact's scope, the impact as severity, and the time
from start to resolution.

At a source's first run, `older()` also reads `history.atom` below the page (its incidents
older than the 50 of the API, title, date and updates only); a page without one is noted.
"""

import datetime
import html
import json
import re

import feedparser
from django.utils.html import strip_tags

from ingest.readers.entry import Entry, Listing, ReadError, iso_duration, parse_time, short

FORMAT = "Statuspage feed"
ACCEPT = "application/json"
SEVERITY = {"none": "low", "minor": "medium", "major": "high", "critical": "critical"}


def address(source):
    return source.url.rstrip("/") + "/api/v2/incidents.json"


def read(body, source):
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError) as error:
        raise ReadError(f"{FORMAT}: not JSON ({error})") from None
    if not isinstance(data, dict) or not isinstance(data.get("incidents"), list):
        raise ReadError(f"{FORMAT}: `incidents` is missing or not a list")
    page = data.get("page") if isinstance(data.get("page"), dict) else {}
    organisation = str(page.get("name") or "").strip() or source.name
    incidents = data["incidents"]
    entries = []
    for index, incident in enumerate(incidents):
        where = f"incidents[{index}]"
        if not isinstance(incident, dict):
            raise ReadError(f"{FORMAT}: `{where}` is not an object")
        impact = incident.get("impact") or "none"
        postmortem = (incident.get("postmortem_body") or "").strip()
        if not source.keeps_impact(impact) or (source.postmortem_only and not postmortem):
            continue
        entries.append(_entry(incident, where, organisation, source, postmortem))
    return Listing(entries, listed=len(incidents), left_out=len(incidents) - len(entries))


def _entry(incident, where, organisation, source, postmortem):
    for key in ("id", "name"):
        if not isinstance(incident.get(key), str) or not incident[key].strip():
            raise ReadError(f"{FORMAT}: `{where}.{key}` is missing")
    started = parse_time(
        incident.get("started_at") or incident.get("created_at"), f"{where}.started_at", FORMAT
    )
    resolved = None
    if incident.get("resolved_at"):
        resolved = parse_time(incident["resolved_at"], f"{where}.resolved_at", FORMAT)
    updates = incident.get("incident_updates") or []
    if not isinstance(updates, list):
        raise ReadError(f"{FORMAT}: `{where}.incident_updates` is not a list")
    lines = []
    for number, update in reversed(list(enumerate(updates))):
        if not isinstance(update, dict):
            raise ReadError(f"{FORMAT}: `{where}.incident_updates[{number}]` is not an object")
        when = parse_time(
            update.get("created_at"), f"{where}.incident_updates[{number}].created_at", FORMAT
        )
        body = " ".join(str(update.get("body") or "").split())
        status = str(update.get("status") or "update").capitalize()
        lines.append(f"{when:%Y-%m-%d %H:%M} UTC, {status}: {body}")
    latest = " ".join(str((updates[0] if updates else {}).get("body") or "").split())
    components = [
        str(component.get("name")).strip()
        for component in incident.get("components") or []
        if isinstance(component, dict) and component.get("name")
    ]
    url = incident.get("shortlink") or f"{source.url.rstrip('/')}/incidents/{incident['id']}"
    return Entry(
        item_id=incident["id"],
        url=url,
        title=short(incident["name"], 300),
        date=started.date(),
        organisation=organisation,
        summary=short(postmortem or latest or incident["name"], 4000),
        symptoms="\n".join(lines) or None,
        impact_scope=", ".join(components) or None,
        severity=SEVERITY.get(incident.get("impact"), "unknown"),
        resolved_after=iso_duration(started, resolved),
        source_kind="postmortem" if postmortem else "status-page",
    )


def older(source, fetch):
    """The incidents of `history.atom` (an Entry each). Impacts and postmortems are not in
    it: a source keeping only some impacts, or postmortems, takes none of them."""
    if source.min_impact != "none" or source.postmortem_only:
        return []
    answer = fetch(source.url.rstrip("/") + "/history.atom", accept="application/atom+xml")
    parsed = feedparser.parse(answer.body)
    if not parsed.entries:
        raise ReadError(f"{FORMAT}: history.atom lists no incident")
    organisation = re.sub(r"\s+Status\b.*$", "", parsed.feed.get("title") or "") or source.name
    entries = []
    for index, item in enumerate(parsed.entries):
        link = item.get("link") or ""
        moment = item.get("published_parsed")
        if "/incidents/" not in link or not item.get("title") or moment is None:
            raise ReadError(f"{FORMAT}: `history.atom entries[{index}]` lacks a link or date")
        updates = [
            " ".join(html.unescape(strip_tags(re.sub(r"<br\s*/?>", ", ", part))).split())
            for part in re.split(r"</p>", item.get("summary") or "")
            if strip_tags(part).strip()
        ]
        entries.append(
            Entry(
                item_id=link.rstrip("/").rsplit("/", 1)[1],
                url=link,
                title=short(item["title"], 300),
                date=datetime.date(*moment[:3]),
                organisation=organisation,
                summary=short(updates[0] if updates else item["title"], 4000),
                symptoms="\n".join(reversed(updates)) or None,
            )
        )
    return entries
