"""What a new server process does once before its first request, so that its first answers
are not slower than the next: each of the project's templates compiled (Django's cached
loader then keeps it) and the URLs resolved. gunicorn loads the app in its master before it
forks the workers (gunicorn.conf.py, preload_app), so this is done once for all of them.

At 100,000 cases the first answer of a case page after a write took 100-134 ms in a worker
that had not yet made one (the goal is 100) and 50-65 ms in one that had; compiling its
templates was the larger part of the difference.
"""

from pathlib import Path

from django.template import engines
from django.urls import get_resolver

TEMPLATE_SUFFIXES = (".html", ".txt", ".xml")


def project_templates(engine):
    """The names of the templates of the engine's own folders (DIRS: the project's, not the
    apps')."""
    for folder in map(Path, engine.dirs):
        for path in sorted(folder.rglob("*")):
            if path.suffix in TEMPLATE_SUFFIXES:
                yield path.relative_to(folder).as_posix()


def warm_up():
    """Compile the project's templates and resolve the URLs; returns the templates' names."""
    get_resolver().url_patterns  # noqa: B018  (imports every view module)
    names = []
    for engine in engines.all():
        for name in project_templates(engine):
            engine.get_template(name)
            names.append(name)
    return names
