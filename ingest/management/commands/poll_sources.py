"""Poll followed sources in this process: those that are due, or the one named.

    manage.py poll_sources [--source NAME] [--once]

Prints, for each source, what it drafted, updated, skipped and refused. With --once it polls
once and ends (for cron), with status 1 if a source's run ended in an error; without it, it
goes on polling what is due, every minute, until stopped (the worker does the same by itself).
"""

import time

from django.core.management.base import BaseCommand, CommandError, no_translations

from cases.management.curator_messages import database_failure_said
from ingest import polling
from ingest.models import FollowedSource


class Command(BaseCommand):
    help = __doc__.strip().splitlines()[0]

    def add_arguments(self, parser):
        parser.add_argument("--source", help="poll this source now, whether due or not")
        parser.add_argument("--once", action="store_true", help="poll once, then end")

    @no_translations
    def handle(self, *args, source, once, **options):
        with database_failure_said():
            if source is not None:
                named = FollowedSource.objects.filter(name=source).first()
                if named is None:
                    known = ", ".join(FollowedSource.objects.values_list("name", flat=True))
                    raise CommandError(
                        f"--source: no source is named {source!r} (followed: {known or 'none'})"
                    )
            while True:
                sources = [named] if source is not None else list(polling.due_sources())
                failed = self.poll(sources)
                if once or source is not None:
                    break
                time.sleep(60)
        if failed:
            raise CommandError(f"{failed} of {len(sources)} sources ended in an error")

    def poll(self, sources):
        if not sources:
            self.stdout.write("No source is due.")
        failed = 0
        for source in sources:
            outcome = polling.poll(source)
            write = self.stderr.write if outcome.error else self.stdout.write
            write(outcome.summary())
            for item_id, problem in outcome.refused:
                self.stderr.write(f"  refused {item_id}: {problem}")
            failed += bool(outcome.error)
        return failed
