"""Import cases from exchange-format JSON files into the library.

Takes files holding one case, a JSON array of cases, or JSON Lines, and directories of
such files (searched recursively for *.json and *.jsonl). Every case is checked before
anything is written; then all are written in one transaction, or none is.
"""

from django.core.management.base import BaseCommand, CommandError

from cases.exchange.importer import CaseImport


class Command(BaseCommand):
    help = __doc__.strip().splitlines()[0]

    def add_arguments(self, parser):
        parser.add_argument("paths", nargs="+", metavar="PATH", help="case files or directories")
        parser.add_argument(
            "--dry-run", action="store_true", help="check and report, but write nothing"
        )
        parser.add_argument(
            "--strict-taxonomy",
            action="store_true",
            help="refuse taxonomy slugs that are not terms yet, instead of creating them",
        )
        parser.add_argument(
            "--keep-existing",
            action="store_true",
            help="add only cases whose id is not in the library; leave stored ones as they are",
        )

    def handle(self, *args, paths, dry_run, strict_taxonomy, keep_existing, verbosity, **options):
        run = CaseImport(paths, strict_taxonomy=strict_taxonomy, keep_existing=keep_existing)
        result = run.run(dry_run=dry_run)
        if not result.ok:
            for problem in result.problems:
                self.stderr.write(str(problem))
            count = len(result.problems)
            raise CommandError(
                f"{count} problem{'s' if count != 1 else ''} found; nothing was imported."
            )
        if result.new_terms:
            terms = ", ".join(
                f"{facet}:{slug} ({', '.join(ids)})"
                for (facet, slug), ids in result.new_terms.items()
            )
            verb = "would be created" if dry_run else "created"
            self.stderr.write(
                self.style.WARNING(
                    f"Warning: taxonomy terms {verb} with labels made from their slugs: {terms}"
                )
            )
        if verbosity >= 2:
            for label, ids in (
                ("created", result.created),
                ("updated", result.updated),
                ("unchanged", result.unchanged),
            ):
                for case_id in ids:
                    self.stdout.write(f"{case_id}: {label}")
        if verbosity >= 1:
            prefix = "Dry run, nothing written. " if dry_run else ""
            self.stdout.write(self.style.SUCCESS(prefix + result.summary()))
