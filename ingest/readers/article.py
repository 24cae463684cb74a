"""One article, by its address (a postmortem on a blog): its title, date and main text,
extracted by trafilatura. Polled again, it is updated only if the article changed."""

import datetime
from urllib.parse import urlsplit

import trafilatura
from django.utils import timezone

from ingest.readers.entry import Entry, Listing, ReadError, short

FORMAT = "Article"
ACCEPT = "text/html, application/xhtml+xml;q=0.9, */*;q=0.5"


def address(source):
    return source.url


def read(body, source):
    document = trafilatura.bare_extraction(
        body.decode("utf-8", "replace"), url=source.url, with_metadata=True
    )
    if document is None or not (document.text or "").strip():
        raise ReadError(f"{FORMAT}: no main text found in {source.url}")
    title = (document.title or "").strip()
    if not title:
        raise ReadError(f"{FORMAT}: no title found in {source.url}")
    try:
        day, kind = datetime.date.fromisoformat((document.date or "")[:10]), "published"
    except ValueError:
        day, kind = timezone.now().date(), "reported"
    organisation = (document.sitename or urlsplit(source.url).hostname or source.name).strip()
    # The text without the headline and the date the page repeats above it.
    repeated = {title, (document.date or "")[:10]}
    paragraphs = [
        line.strip() for line in document.text.splitlines() if line.strip() not in ("", *repeated)
    ]
    if not paragraphs:
        raise ReadError(f"{FORMAT}: no main text found in {source.url}")
    return Listing(
        [
            Entry(
                item_id=source.url,
                url=source.url,
                title=short(title, 300),
                date=day,
                date_kind=kind,
                organisation=organisation,
                summary=short(paragraphs[0], 4000),
                symptoms="\n".join(paragraphs[1:])[:20000] or None,
                source_kind="postmortem",
            )
        ],
        listed=1,
    )
