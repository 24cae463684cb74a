"""A markdown list of postmortems in danluu/post-mortems' form.

Under a heading that names a cause (`## Config Errors`), each paragraph is a link to a
postmortem and its one-line summary: `[Cloudflare](https://...). A bad config ...`. The item
is the link; the organisation, the link's text; the root cause, the heading's when it maps
to one of the library's; the date, one the address holds (2018/08, 2022-06-21), else the
day it was read ("reported").
"""

import datetime
import re

from django.utils import timezone

from ingest.readers.entry import Entry, Listing, ReadError, short

FORMAT = "Markdown list"
ACCEPT = "text/markdown, text/plain;q=0.9, */*;q=0.5"
ITEM = re.compile(r"^\[(?P<org>[^\]]+)\]\((?P<url>https?://[^)\s]+)\)\.?\s*(?P<summary>.*)$")
HEADING = re.compile(r"^#{2,3}\s+(.+?)\s*$")
# The list's causes that are the library's root causes (the others are for the reviewer).
CAUSES = {"config": "config-change", "hardware": "facility-failure", "power": "facility-failure"}
DATE_IN_URL = re.compile(r"(?<!\d)(20\d\d|19\d\d)[/-](\d\d)(?:[/-](\d\d))?(?!\d)")


def address(source):
    return source.url


def _cause(heading):
    heading = heading.lower()
    return next((cause for word, cause in CAUSES.items() if word in heading), "unknown")


def _date(url):
    for match in DATE_IN_URL.finditer(url):
        year, month, day = int(match[1]), int(match[2]), int(match[3] or 1)
        try:
            return datetime.date(year, month, day), "published"
        except ValueError:
            continue
    return timezone.now().date(), "reported"


def read(body, source):
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ReadError(f"{FORMAT}: not UTF-8 text (byte {error.start})") from None
    heading, entries, listed = "", [], 0
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if found := HEADING.match(line):
            heading = found[1]
            continue
        found = ITEM.match(line)
        if not found or heading.lower() in ("table of contents", "contributors"):
            continue
        listed += 1
        summary = found["summary"].strip()
        if not summary:
            raise ReadError(f"{FORMAT}: line {number}: the link to {found['url']} has no summary")
        day, kind = _date(found["url"])
        first_sentence = re.split(r"(?<=\.)\s", summary, maxsplit=1)[0]
        entries.append(
            Entry(
                item_id=found["url"],
                url=found["url"],
                title=short(f"{found['org']}: {first_sentence}", 300),
                date=day,
                date_kind=kind,
                organisation=found["org"],
                summary=short(summary, 4000),
                root_cause=_cause(heading),
                source_kind="postmortem",
            )
        )
    if listed == 0:
        raise ReadError(f"{FORMAT}: no `[Organisation](address). Summary` line found")
    return Listing(entries, listed=listed)
