"""Load the demo library (fixtures/): the taxonomy and the demo cases.

Terms and cases already in the library are left as they are, so that running it again
(every `make run` does) changes nothing, and edits made in the admin survive a restart; a
term that an import made with a label from its slug gets the labels of fixtures/taxonomy.json.
"""

from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, no_translations

from cases.exchange.taxonomy import load_taxonomy

FIXTURES = Path(settings.BASE_DIR) / "fixtures"


class Command(BaseCommand):
    help = __doc__.strip().splitlines()[0]

    # Messages for the curator's terminal, in English whatever language a caller left on.
    @no_translations
    def handle(self, *args, verbosity, **options):
        result = load_taxonomy(FIXTURES / "taxonomy.json", keep_existing=True)
        if result.problems:
            raise CommandError("\n".join(map(str, result.problems)))
        self.stdout.write(self.style.SUCCESS(result.summary()))
        call_command(
            "import_cases",
            str(FIXTURES / "cases"),
            keep_existing=True,
            verbosity=verbosity,
            stdout=self.stdout,
            stderr=self.stderr,
        )
