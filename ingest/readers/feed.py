"""Any Atom or RSS feed (feedparser): an engineering blog's postmortems, Korean ones too.

Each entry is an item (its id, else its link); the source's words (postmortem, 회고, 장애)
keep only entries whose title, summary or tags hold one of them. The organisation is the
feed's title; the date, the entry's publication.
"""

import datetime
import html

import feedparser
from django.utils.html import strip_tags

from ingest.readers.entry import Entry, Listing, ReadError, short

FORMAT = "Atom/RSS feed"
ACCEPT = "application/atom+xml, application/rss+xml, application/xml;q=0.9, */*;q=0.5"


def address(source):
    return source.url


def _text(value):
    return " ".join(html.unescape(strip_tags(value or "")).split())


def read(body, source):
    parsed = feedparser.parse(body)
    if parsed.bozo and not parsed.entries:
        raise ReadError(f"{FORMAT}: not a feed ({parsed.bozo_exception})")
    if not parsed.version and not parsed.entries:
        raise ReadError(f"{FORMAT}: not an Atom or RSS feed")
    organisation = _text(parsed.feed.get("title")) or source.name
    words = source.keyword_list()
    entries = []
    for index, item in enumerate(parsed.entries):
        title, summary = _text(item.get("title")), _text(item.get("summary"))
        tags = " ".join(tag.get("term") or "" for tag in item.get("tags") or [])
        if words and not any(word in f"{title} {summary} {tags}".lower() for word in words):
            continue
        link = item.get("link") or ""
        item_id = item.get("id") or link
        if not item_id or not title:
            raise ReadError(f"{FORMAT}: `entries[{index}]` has no id, link or title")
        moment = item.get("published_parsed") or item.get("updated_parsed")
        if moment is None:
            raise ReadError(f"{FORMAT}: `entries[{index}].published` is not a date")
        entries.append(
            Entry(
                item_id=item_id,
                url=link or item_id,
                title=short(title, 300),
                date=datetime.date(*moment[:3]),
                date_kind="published",
                organisation=organisation,
                summary=short(summary or title, 4000),
                source_kind="postmortem" if words else "blog",
            )
        )
    return Listing(entries, listed=len(parsed.entries), left_out=len(parsed.entries) - len(entries))
