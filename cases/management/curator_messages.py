"""How the curators' commands (import_cases, export_cases, load_taxonomy) say things: counts
in words, and, when they cannot do their work, one line each, never a traceback."""

from contextlib import contextmanager

from django.core.management.base import CommandError
from django.db import OperationalError, ProgrammingError

from incidentlib.database_errors import first_line


@contextmanager
def database_failure_said(consequence=""):
    """A database that fails (unreachable, restarted, out of space) ends the command with
    its first line: `the database failed: connection refused; nothing was loaded.`; one
    without the library's tables (a new database) says to migrate it."""
    try:
        yield
    except OperationalError as error:
        raise CommandError(f"the database failed: {first_line(error)}{consequence}") from error
    except ProgrammingError as error:
        if getattr(error.__cause__, "sqlstate", None) != UNDEFINED_TABLE:
            raise
        raise CommandError(
            f"the database has no library in it yet ({first_line(error)}): run "
            f"`manage.py migrate` first{consequence}"
        ) from error


# PostgreSQL's code for a table that does not exist.
UNDEFINED_TABLE = "42P01"


def how_many(count, noun, plural=None):
    """`1 case`, `1,204 cases`: a count with its noun, singular or plural."""
    return f"{count:,} {noun if count == 1 else plural or noun + 's'}"


def problems_found(command, problems, nothing_done):
    """Write each problem, then end the command saying how many: `2 problems found; nothing
    was imported.`"""
    for problem in problems:
        command.stderr.write(str(problem))
    raise CommandError(f"{how_many(len(problems), 'problem')} found; {nothing_done}")
