"""The readers: one module per kind of source, each turning what its source sends into
`Entry`s (ingest/readers/entry.py), or a ReadError naming the place that is wrong.

Each module has `address(source)`, the address to fetch (a status page's API below its own
address), `ACCEPT`, and `read(body, source)` giving a Listing.
"""

from importlib import import_module

from ingest.readers.entry import Entry, Listing, ReadError

__all__ = ["Entry", "Listing", "ReadError", "reader"]


def reader(kind):
    """The reader module of a source kind (a FollowedSource.kind)."""
    return import_module(f"ingest.readers.{kind}")
