"""Which release of the code is serving: part of every cached page's key and ETag
(cases/caching.py), so that after a deploy no reader, proxy or CDN is served a page made by
the code before it, even when the library has not changed since.

`RELEASE` in the environment names it (a build's commit, say); without it, it is a digest of
the code, templates, translations and static files, so that every app server running the
same code gives the same one, whatever its paths or the files' times, and any change to them
gives another.
"""

import hashlib
from pathlib import Path

# What a page is made from, beside the library. Tests and benchmarks are not.
PARTS = ("cases", "incidentlib", "templates", "locale", "static")
SKIPPED_SUFFIXES = (".pyc", ".po")  # compiled Python; the catalogue is read compiled (.mo)


def code_digest(base_dir):
    digest = hashlib.sha256()
    for part in PARTS:
        for path in sorted((Path(base_dir) / part).rglob("*")):
            if not path.is_file() or path.suffix in SKIPPED_SUFFIXES:
                continue
            digest.update(path.relative_to(base_dir).as_posix().encode() + b"\0")
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()[:12]
