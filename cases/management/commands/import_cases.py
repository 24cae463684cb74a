"""Import cases from exchange-format JSON files into the library.

Takes files holding one case, a JSON array of cases, or JSON Lines, and directories of
such files (searched recursively for *.json and *.jsonl). Every case is checked before
anything is written; then all are written in one transaction, or none is. On a terminal,
a progress bar shows how far each pass over the files is (none with -v 0).
"""

from django.core.management.base import BaseCommand, no_translations

from cases.exchange.importer import CaseImport
from cases.management.curator_messages import database_failure_said, how_many, problems_found

# A new taxonomy term is listed with this many of the cases that use it, then "and N more";
# and this many new terms at most, then "and N more terms" (the admin lists them all, under
# "needs a label").
IDS_PER_NEW_TERM = 3
NEW_TERMS_LISTED = 20


def _and_more(listed, count, noun=""):
    """The items listed, then how many more of `count` were not ("and 1,204 more")."""
    more = f" and {count - len(listed):,} more{noun}" if count > len(listed) else ""
    return ", ".join(listed) + more


def new_terms_warning(new_terms, *, dry_run):
    listed = list(new_terms.items())[:NEW_TERMS_LISTED]
    terms = _and_more(
        [
            f"{facet}:{slug} ({_and_more(ids[:IDS_PER_NEW_TERM], len(ids))})"
            for (facet, slug), ids in listed
        ],
        len(new_terms),
        " terms",
    )
    verb = "would be created" if dry_run else "created"
    return (
        f"Warning: {how_many(len(new_terms), 'taxonomy term')} {verb} with labels made from "
        "their slugs: " + terms
    )


def progress_bars(stream):
    """Progress bars on `stream` (tqdm): of the bytes checked, then of the cases written."""
    from tqdm import tqdm

    def bar(description, total, unit):
        return tqdm(
            total=total,
            desc=description,
            unit=unit,
            unit_scale=unit == "B",
            unit_divisor=1024,
            file=stream,
            leave=False,
            dynamic_ncols=True,
            mininterval=0.5,
        )

    return bar


class Command(BaseCommand):
    help = __doc__.strip().splitlines()[0]

    def add_arguments(self, parser):
        parser.add_argument("paths", nargs="+", metavar="PATH", help="case files or directories")
        parser.add_argument(
            "--dry-run",
            action="store_true",
            help="check and write in a transaction that is rolled back: report, write nothing",
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
        parser.add_argument(
            "--replace-newer",
            action="store_true",
            help="replace a stored case even when it was changed after the file's updated_at",
        )

    # Messages for the curator's terminal, in English whatever language a caller left on.
    @no_translations
    def handle(
        self,
        *args,
        paths,
        dry_run,
        strict_taxonomy,
        keep_existing,
        replace_newer,
        verbosity,
        **options,
    ):
        # The bar goes to the real stream under Django's wrapper (which would end each of
        # its updates with a newline), and only to a terminal.
        stream = getattr(self.stderr, "_out", self.stderr)
        on_terminal = verbosity >= 1 and hasattr(stream, "isatty") and stream.isatty()
        run = CaseImport(
            paths,
            strict_taxonomy=strict_taxonomy,
            keep_existing=keep_existing,
            replace_newer=replace_newer,
            progress=progress_bars(stream) if on_terminal else None,
        )
        with database_failure_said("; nothing was imported."):
            result = run.run(dry_run=dry_run)
        if not result.ok:
            problems_found(self, result.problems, "nothing was imported.")
        if result.new_terms:
            self.stderr.write(
                self.style.WARNING(new_terms_warning(result.new_terms, dry_run=dry_run))
            )
        # What became of reviews: the import's own decision, said whatever the verbosity.
        for case_id, review in result.reviews.items():
            self.stderr.write(self.style.WARNING(f"{case_id}: {review.said(dry_run=dry_run)}"))
        if verbosity >= 2:
            for label, ids in (
                ("created", result.created),
                ("updated", result.updated),
                ("unchanged", result.unchanged),
                ("already in the library, left as it is", result.kept),
            ):
                for case_id in ids:
                    changes = result.changes.get(case_id)
                    said = f": {', '.join(changes)}" if changes else ""
                    self.stdout.write(f"{case_id}: {label}{said}")
        if verbosity >= 1:
            prefix = "Dry run, nothing written. " if dry_run else ""
            self.stdout.write(self.style.SUCCESS(prefix + result.summary(dry_run=dry_run)))
