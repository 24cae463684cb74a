"""Google Cloud's status history, `incidents.json`: every incident, newest first.

Each has `begin`, `end`, `external_desc`, its `updates` (newest first), `severity` (low,
medium, high), `status_impact` and `affected_products`. A draft gets the description as its
title, the first update as its summary (the last one when it ends with a summary), the
updates as symptoms, the products as the impact's scope and the locations as its region.
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

FORMAT = "Google Cloud incidents.json"
ACCEPT = "application/json"
STATUS_PAGE = "https://status.cloud.google.com/"
SEVERITY = {"low": "low", "medium": "medium", "high": "high"}


def address(source):
    return source.url


def read(body, source):
    data = json_list(body, FORMAT)
    entries = [_entry(incident, f"[{index}]") for index, incident in enumerate(data)]
    return Listing(entries, listed=len(data))


def _entry(incident, where):
    if not isinstance(incident, dict):
        raise ReadError(f"{FORMAT}: `{where}` is not an object")
    for key in ("id", "external_desc"):
        if not isinstance(incident.get(key), str) or not incident[key].strip():
            raise ReadError(f"{FORMAT}: `{where}.{key}` is missing")
    begin = parse_time(incident.get("begin"), f"{where}.begin", FORMAT)
    end = parse_time(incident["end"], f"{where}.end", FORMAT) if incident.get("end") else None
    updates = incident.get("updates") or []
    if not isinstance(updates, list):
        raise ReadError(f"{FORMAT}: `{where}.updates` is not a list")
    lines = []
    for number, update in reversed(list(enumerate(updates))):
        when = parse_time(update.get("when") or update.get("created"),
                          f"{where}.updates[{number}].when", FORMAT)  # fmt: skip
        text = " ".join(str(update.get("text") or "").replace("*", "").split())
        lines.append(f"{when:%Y-%m-%d %H:%M} UTC, {update.get('status') or 'update'}: {text}")
    products = [p.get("title") for p in incident.get("affected_products") or [] if p.get("title")]
    locations = [
        place.get("title")
        for place in incident.get("previously_affected_locations")
        or incident.get("currently_affected_locations")
        or []
        if place.get("title")
    ]
    latest = (updates[0] if updates else {}).get("text") or incident["external_desc"]
    return Entry(
        item_id=incident["id"],
        url=STATUS_PAGE + str(incident.get("uri") or f"incidents/{incident['id']}"),
        title=short(incident["external_desc"], 300),
        date=begin.date(),
        organisation="Google Cloud",
        summary=short(" ".join(latest.replace("*", "").split()), 4000),
        symptoms="\n".join(lines) or None,
        impact_scope=", ".join(products) or None,
        impact_region=", ".join(locations) or None,
        severity=SEVERITY.get(incident.get("severity"), "unknown"),
        resolved_after=iso_duration(begin, end),
    )
