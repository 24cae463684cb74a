"""Create a reviewer: a staff account in the Reviewer group, who may approve cases in the admin.

The password is asked for twice at the terminal, or read from the environment variable
INCIDENTLIB_REVIEWER_PASSWORD (for scripts). An existing account is made a reviewer and
keeps its password; an inactive one is made active again.
"""

import getpass
import os
import sys

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

PASSWORD_VARIABLE = "INCIDENTLIB_REVIEWER_PASSWORD"
REVIEWER_GROUP = "Reviewer"


class Command(BaseCommand):
    help = __doc__.strip().splitlines()[0]

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--email", default="", help="the reviewer's email address")
        parser.add_argument(
            "--dry-run", action="store_true", help="say what would be done, change nothing"
        )

    def handle(self, *args, username, email, dry_run, verbosity, **options):
        User = get_user_model()
        try:
            # The user model's own rules: its username validator and length.
            username = User._meta.get_field(User.USERNAME_FIELD).clean(username, None)
        except ValidationError as error:
            raise CommandError("The username was refused: " + " ".join(error.messages)) from None
        group = Group.objects.filter(name=REVIEWER_GROUP).first()
        if group is None:
            raise CommandError(
                f"There is no {REVIEWER_GROUP} group: run `manage.py migrate` first."
            )
        user = User.objects.filter(**{User.USERNAME_FIELD: username}).first()
        if dry_run:
            if user is None:
                would = f"create the reviewer {username}"
            elif not user.is_active:
                would = f"make {username} active again and a reviewer"
            else:
                would = f"make {username} a reviewer"
            self.stdout.write(f"Dry run, nothing written. Would {would}.")
            return
        if user is None:
            password = self.new_password(User(**{User.USERNAME_FIELD: username, "email": email}))
        with transaction.atomic():
            if user is None:
                user = User.objects.create_user(username, email=email, password=password)
                done = f"Created the reviewer {username}."
            elif not user.is_active:
                done = (
                    f"{username} had an inactive account, now active again and a reviewer; "
                    "password unchanged."
                )
            else:
                done = f"{username} already had an account, now a reviewer; password unchanged."
            user.is_staff = user.is_active = True
            if email:
                user.email = email
            user.save()
            user.groups.add(group)
        if verbosity >= 1:
            self.stdout.write(self.style.SUCCESS(done))

    def new_password(self, user):
        password = os.environ.get(PASSWORD_VARIABLE)
        if password is None:
            if not sys.stdin.isatty():
                raise CommandError(
                    f"No password: set {PASSWORD_VARIABLE} or run the command in a terminal."
                )
            password = getpass.getpass("Password: ")
            if password != getpass.getpass("Password (again): "):
                raise CommandError("The two passwords differ.")
        try:
            validate_password(password, user)
        except ValidationError as error:
            raise CommandError("The password was refused: " + " ".join(error.messages)) from None
        return password
