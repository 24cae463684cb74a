"""Create or update taxonomy terms from a JSON file (cases/exchange/taxonomy.py says its shape)."""

from django.core.management.base import BaseCommand, no_translations

from cases.exchange.taxonomy import load_taxonomy
from cases.management.curator_messages import database_failure_said, problems_found


class Command(BaseCommand):
    help = __doc__.strip()

    def add_arguments(self, parser):
        parser.add_argument("path", metavar="FILE")
        parser.add_argument("--dry-run", action="store_true", help="check, but write nothing")

    # Messages for the curator's terminal, in English whatever language a caller left on.
    @no_translations
    def handle(self, *args, path, dry_run, **options):
        with database_failure_said("; nothing was loaded."):
            result = load_taxonomy(path, dry_run=dry_run)
        if result.problems:
            problems_found(self, result.problems, "nothing was loaded.")
        prefix = "Dry run, nothing written. " if dry_run else ""
        self.stdout.write(self.style.SUCCESS(prefix + result.summary()))
