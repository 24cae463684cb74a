"""Follow a source: the worker then polls it on its schedule and drafts what it publishes.

    manage.py follow_source KIND URL --name NAME [--licence L] [--every MINUTES]

KIND is one of statuspage, gcp, slack, feed, markdown, aiid, article. Following a name that
is already followed changes that source (its address, licence, schedule, filters).
"""

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, no_translations

from cases.management.curator_messages import database_failure_said
from ingest.models import FollowedSource, Impact, Kind, Language


class Command(BaseCommand):
    help = __doc__.strip().splitlines()[0]

    def add_arguments(self, parser):
        parser.add_argument("kind", choices=Kind.values)
        parser.add_argument("url")
        parser.add_argument("--name", required=True, help="a short name: letters, digits, -")
        parser.add_argument("--licence", default="", help="kept on every case drafted from it")
        parser.add_argument("--every", type=int, default=60, help="minutes between looks")
        parser.add_argument("--language", choices=Language.values, default=Language.ENGLISH)
        parser.add_argument(
            "--min-impact", choices=Impact.values, default=Impact.NONE,
            help="status pages: keep incidents of at least this impact",
        )  # fmt: skip
        parser.add_argument(
            "--postmortem-only", action="store_true",
            help="status pages: keep only incidents with a published postmortem",
        )  # fmt: skip
        parser.add_argument(
            "--words", default="", help="feeds: keep entries holding one of these (a,b,c)"
        )

    @no_translations
    def handle(self, *args, kind, url, name, licence, every, language, min_impact,
               postmortem_only, words, **options):  # fmt: skip
        with database_failure_said("; nothing was changed."):
            source = FollowedSource.objects.filter(name=name).first() or FollowedSource()
            created = source.pk is None
            for field, value in {
                "name": name, "kind": kind, "url": url, "licence": licence,
                "every_minutes": every, "language": language, "min_impact": min_impact,
                "postmortem_only": postmortem_only, "words": words,
            }.items():  # fmt: skip
                setattr(source, field, value)
            try:
                source.full_clean()
            except ValidationError as error:
                raise CommandError(_one_line(error)) from None
            source.save()
        verb = "Following" if created else "Changed"
        self.stdout.write(
            self.style.SUCCESS(
                f"{verb} {name} ({source.get_kind_display()}, {url}), every {every} minutes: "
                "the worker polls it when due (`manage.py poll_sources --source "
                f"{name} --once` polls it now)."
            )
        )


def _one_line(error):
    option = {"every_minutes": "--every", "url": "URL", "kind": "KIND"}
    parts = []
    for field, messages in error.message_dict.items():
        label = option.get(field, f"--{field.replace('_', '-')}")
        parts.append(f"{label}: {' '.join(messages)}")
    return "; ".join(parts) + "; nothing was changed."
