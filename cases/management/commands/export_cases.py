"""Export cases as a JSON array in the exchange format: all of them, or those named."""

import os
import tempfile
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from cases.exchange.format import case_to_exchange, cases_json
from cases.models import Case


class Command(BaseCommand):
    help = __doc__.strip()

    def add_arguments(self, parser):
        parser.add_argument("ids", nargs="*", metavar="ID", help="case ids (default: every case)")
        parser.add_argument(
            "--output", "-o", metavar="FILE", help="write to FILE instead of stdout"
        )

    def handle(self, *args, ids, output, **options):
        cases = Case.objects.for_page().order_by("id")
        if ids:
            cases = cases.filter(id__in=ids)
        values = [case_to_exchange(case) for case in cases]
        missing = sorted(set(ids) - {value["id"] for value in values})
        if missing:
            raise CommandError(f"No case with id {', '.join(missing)}; nothing was written.")
        if output:
            write_atomically(Path(output), values)
            self.stderr.write(self.style.SUCCESS(f"Exported {len(values)} cases to {output}."))
        else:
            self.stdout.write(cases_json(values), ending="")


def write_atomically(path, values):
    """Write the file whole or not at all: a failed export leaves no half-written file."""
    if not path.parent.is_dir():
        raise CommandError(f"{path}: the folder {path.parent} does not exist.")
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(cases_json(values))
        # mkstemp makes the file private (0600); give it the mode a plain open() would.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
