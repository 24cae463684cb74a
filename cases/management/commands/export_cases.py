"""Export cases in the exchange format: all of them, or those named.

A JSON array, or JSON Lines (one case a line) with `--format jsonl` or an `--output` whose name
ends in .jsonl: import_cases reads a .jsonl file as JSON Lines.

Every case is read from one snapshot of the library (cases/exchange/export.py), so that an
import running meanwhile gives each case whole as before it or whole as after it, never a
mix; cases are read and written a chunk at a time, so that the export holds only a chunk
in memory, and a file is written whole or not at all.
"""

import os
import stat
import sys
import tempfile
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from cases.exchange.export import iter_cases, json_array_pieces, json_lines_pieces, snapshot
from cases.exchange.file_search import file_suffix
from cases.exchange.format import case_to_exchange
from cases.management.curator_messages import database_failure_said, how_many
from cases.models import Case

FORMATS = {"json": json_array_pieces, "jsonl": json_lines_pieces}


class Command(BaseCommand):
    help = __doc__.strip().split("\n", 1)[0]

    def add_arguments(self, parser):
        parser.add_argument("ids", nargs="*", metavar="ID", help="case ids (default: every case)")
        parser.add_argument(
            "--output", "-o", metavar="FILE", help="write to FILE instead of stdout"
        )
        parser.add_argument(
            "--format",
            choices=FORMATS,
            help="json (an array) or jsonl (a case a line); default: jsonl for a FILE named "
            "*.jsonl, else json",
        )

    def handle(self, *args, ids, output, format, **options):
        target = Path(output) if output else None
        if format is None:
            format = "jsonl" if target and file_suffix(target) == ".jsonl" else "json"
        self.pieces = FORMATS[format]
        self.verbosity = options["verbosity"]
        try:
            if target and not target.parent.is_dir():
                raise CommandError(f"{target}: the folder {target.parent} does not exist.")
            if target and target.is_dir():
                raise CommandError(f"{target} is a folder: give the name of a file to write.")
            with database_failure_said():
                self.export(ids, target)
        except OSError as error:
            raise CommandError(
                f"{target or 'the output'}: cannot be written: {error.strerror}; "
                + ("nothing was written." if target else "it may be incomplete.")
            ) from error

    def export(self, ids, target):
        with snapshot():
            cases = Case.objects.for_page().order_by("id")
            if ids:
                cases = cases.filter(id__in=ids)
                found = Case.objects.filter(id__in=ids).values_list("id", flat=True)
                missing = sorted(set(ids) - set(found))
                if missing:
                    raise CommandError(
                        f"No case with id {', '.join(missing)}; nothing was written."
                    )
            values = counted(iter_cases(cases, case_to_exchange), counter := [0])
            pieces = self.pieces(values)
            if target:
                write_atomically(target, pieces)
                if self.verbosity:
                    self.stderr.write(
                        self.style.SUCCESS(f"Exported {how_many(counter[0], 'case')} to {target}.")
                    )
                return
            try:
                for piece in pieces:
                    self.stdout.write(piece, ending="")
                self.stdout.flush()
            except BrokenPipeError:
                # The reader stopped (`| head`): no traceback, and none at exit either.
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def counted(values, counter):
    """The values, counted in `counter[0]` as they pass."""
    for value in values:
        counter[0] += 1
        yield value


def _mode_for(path):
    """The mode of the file written: the one it replaces keeps its own (a private export of
    drafts stays private), a new one gets what a plain open() would give it (mkstemp's file
    is private, 0600)."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def write_atomically(path, pieces):
    """Write the pieces to the file whole or not at all: a failed export leaves no
    half-written file. A symbolic link is followed: the file it names is replaced, and the
    link stays."""
    path = Path(os.path.realpath(path))
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            for piece in pieces:
                stream.write(piece)
        os.chmod(temporary, _mode_for(path))
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
