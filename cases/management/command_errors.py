"""How the curators' commands (import_cases, export_cases, load_taxonomy) end when they cannot
do their work: one line each, never a traceback."""

from contextlib import contextmanager

from django.core.management.base import CommandError
from django.db import OperationalError


@contextmanager
def database_failure_said(consequence=""):
    """A database that fails (unreachable, restarted, out of space) ends the command with
    its first line: `the database failed: connection refused; nothing was loaded.`"""
    try:
        yield
    except OperationalError as error:
        first_line = str(error).strip().splitlines()[0]
        raise CommandError(f"the database failed: {first_line}{consequence}") from error


def problems_found(command, problems, nothing_done):
    """Write each problem, then end the command saying how many: `2 problems found; nothing
    was imported.`"""
    for problem in problems:
        command.stderr.write(str(problem))
    count = len(problems)
    raise CommandError(f"{count} problem{'s' if count != 1 else ''} found; {nothing_done}")
