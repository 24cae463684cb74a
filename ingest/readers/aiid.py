"""The AI Incident Database's snapshot, `incidents.csv` (its licence: CC BY-SA 4.0).

Columns: incident_id, date, title, description, and the alleged deployer, developer and
harmed parties (JSON lists of entity ids). The item is the incident id; its address, the
incident's page; the organisation, the deployer. Every case keeps the licence.
"""

import csv
import datetime
import io
import json

from ingest.readers.entry import Entry, Listing, ReadError, short

FORMAT = "AIID incidents.csv"
ACCEPT = "text/csv, */*;q=0.5"
LICENCE = "CC BY-SA 4.0"
REQUIRED = ("incident_id", "date", "title", "description")
DEPLOYER = "Alleged deployer of AI system"


def address(source):
    return source.url


def _names(value):
    try:
        names = json.loads(value) if value else []
    except ValueError:
        names = [value]
    if not isinstance(names, list):
        names = [names]
    return [str(name).replace("-", " ").strip().title() for name in names if str(name).strip()]


def read(body, source):
    try:
        rows = list(csv.DictReader(io.StringIO(body.decode("utf-8-sig"))))
    except (UnicodeDecodeError, csv.Error) as error:
        raise ReadError(f"{FORMAT}: not a CSV file ({error})") from None
    if rows and (missing := [name for name in REQUIRED if name not in rows[0]]):
        raise ReadError(f"{FORMAT}: the column {missing[0]!r} is missing")
    entries = []
    for number, row in enumerate(rows, start=2):  # line 1 is the header
        try:
            day = datetime.date.fromisoformat(row["date"].strip())
        except ValueError:
            raise ReadError(f"{FORMAT}: line {number}: `date` is not a date") from None
        incident = row["incident_id"].strip()
        if not incident.isdigit():
            raise ReadError(f"{FORMAT}: line {number}: `incident_id` is not a number")
        deployers = _names(row.get(DEPLOYER, ""))
        harmed = _names(row.get("Alleged harmed or nearly harmed parties", ""))
        entries.append(
            Entry(
                item_id=incident,
                url=f"https://incidentdatabase.ai/cite/{incident}/",
                title=short(row["title"], 300),
                date=day,
                organisation=deployers[0] if deployers else "Unknown",
                summary=short(row["description"], 4000),
                impact_scope=", ".join(harmed) or None,
                source_kind="report",
                license=LICENCE,
            )
        )
    return Listing(entries, listed=len(rows))
