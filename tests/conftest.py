import copy
import json
import os
from pathlib import Path

import pytest
from django.core.management import call_command

from cases.exchange.format import case_to_exchange
from cases.models import Case, Organisation, Term

from .ingest_server import served  # noqa: F401  (the followed sources' local server)

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
SEED = Path(__file__).resolve().parent / "data" / "seed-IL-0137.json"


@pytest.fixture(autouse=True)
def empty_cache():
    """Each test starts with empty caches (a shared Redis keeps entries across runs)."""
    from django.core.cache import caches

    for cache in caches.all(initialized_only=False):
        cache.clear()


@pytest.fixture(autouse=True)
def similar_cases_period_holds(monkeypatch):
    """A case page is made again when its similar cases' period turns (cases/caching.py,
    SIMILAR_CASES_MAX_AGE): the period does not turn during a test, so that a test that asks
    for a page twice gets it from the cache the second time whenever it runs."""
    from cases import caching

    now = caching.clock()
    monkeypatch.setattr(caching, "clock", lambda: now)


def seed_case():
    """The real case IL-0137, as the shared data holds it."""
    return json.loads(SEED.read_text(encoding="utf-8"))


def make_case(case_id="T-1", **changes):
    """A valid exchange case built from the seed, with its id and any top-level fields changed."""
    case = copy.deepcopy(seed_case())
    case["id"] = case_id
    case.update(changes)
    return case


def url_of_test_database():
    """DATABASE_URL for a subprocess that must see the test database, not the development one."""
    from urllib.parse import urlsplit, urlunsplit

    from django.db import connection

    url = urlsplit(os.environ["DATABASE_URL"])
    return urlunsplit(url._replace(path="/" + connection.settings_dict["NAME"]))


def write_json(path, value):
    path.write_text(json.dumps(value, ensure_ascii=False, indent=2), encoding="utf-8")
    return path


def import_cases(*paths, **options):
    call_command("import_cases", *map(str, paths), verbosity=0, **options)


def exported(case_id):
    return case_to_exchange(Case.objects.for_page().get(id=case_id))


def library_state():
    """Everything an import can change, to show that a failed one changed nothing."""
    return (
        [case_to_exchange(c) for c in Case.objects.for_page().order_by("id")],
        list(Organisation.objects.values_list("slug", "name").order_by("slug")),
        list(Term.objects.values_list("facet", "slug", "label_en").order_by("facet", "slug")),
    )


@pytest.fixture
def seeded(db, tmp_path):
    """The library holding just the seed case IL-0137."""
    import_cases(write_json(tmp_path / "seed.json", seed_case()))
    return Case.objects.get(id="IL-0137")


# The admin: editors and reviewers, and the change form as a browser posts it --------------

STAFF_PASSWORD = "a long enough test password"


def reviewer_group():
    """The Reviewer group migration 0002 makes (with what ingest's 0002 gives it).

    A transactional test (the live server's, a subprocess's) ends by emptying every table;
    the tests after it get the group back, made from the migration's own list.
    """
    import importlib

    from django.contrib.auth.models import Group, Permission

    migration = importlib.import_module("cases.migrations.0001_squashed_0025_imported_change")
    group, created = Group.objects.get_or_create(name="Reviewer")
    if created:
        codenames = [
            "review_case" if action == "review" else f"{action}_{model}"
            for model, actions in migration.REVIEWER_PERMISSIONS.items()
            for action in actions
        ]
        group.permissions.add(
            *Permission.objects.filter(content_type__app_label="cases", codename__in=codenames)
        )
        followed = importlib.import_module("ingest.migrations.0002_reviewer_permissions")
        group.permissions.add(
            *Permission.objects.filter(
                content_type__app_label="ingest",
                codename__in=[
                    f"{action}_{model}"
                    for model, actions in followed.REVIEWER_PERMISSIONS.items()
                    for action in actions
                ],
            )
        )
    return group


def make_staff(username, *, reviewer=False):
    """A staff account: a reviewer (the Reviewer group), else an editor with the same rights
    to edit cases but not `cases.review_case`."""
    from django.contrib.auth.models import User

    user = User.objects.create_user(username, password=STAFF_PASSWORD, is_staff=True)
    group = reviewer_group()
    if reviewer:
        user.groups.add(group)
    else:
        user.user_permissions.add(*group.permissions.exclude(codename="review_case"))
    return user


@pytest.fixture
def reviewer(db):
    return make_staff("rita", reviewer=True)


@pytest.fixture
def editor(db):
    return make_staff("ed")


def logged_in(client, user):
    client.force_login(user)
    return client


def change_url(case_id):
    return f"/admin/cases/case/{case_id}/change/"


def posted_form(response):
    """The change form of an admin response as a browser would post it back unchanged."""
    from django import forms

    data = {}

    def add(form):
        for field in form:
            value = field.value()
            if isinstance(field.field, forms.BooleanField):
                if value:
                    data[field.html_name] = "on"
            elif isinstance(value, list | tuple):
                data[field.html_name] = [str(v) for v in value]
            else:
                data[field.html_name] = "" if value is None else str(value)
            if field.field.show_hidden_initial:
                data[field.html_initial_name] = data.get(field.html_name, "")

    add(response.context["adminform"].form)
    for inline in response.context["inline_admin_formsets"]:
        add(inline.formset.management_form)
        for form in inline.formset.forms:
            add(form)
    return data


def open_case(client, case_id):
    """GET the case's change form; return what saving it unchanged would post."""
    response = client.get(change_url(case_id))
    assert response.status_code == 200, response.status_code
    return posted_form(response)


# The worker (incidentlib/worker.py) ------------------------------------------------------


def run_worker(queues=None):
    """Run a real procrastinate worker until no job is due, then return (`wait=False`).

    It reads the queue over a connection of its own, as a deployed worker does, and runs
    each job in a thread with its own Django connection. So a test that uses it must commit
    what the jobs are to see: mark it `@pytest.mark.django_db(transaction=True)` (or use the
    `transactional_db` fixture). A job deferred inside the plain `db` fixture's transaction
    is invisible to the worker, and a job's writes would be invisible to the test.

        @pytest.mark.django_db(transaction=True)
        def test_something():
            write_that_defers_a_job()
            run_worker()
            assert what_the_job_did()

    A job retried later (a failure's backoff) is not due yet: the worker leaves it. Make it
    due with `make_retries_due()` and call `run_worker()` again.
    """
    import asyncio
    import threading

    from asgiref.sync import sync_to_async
    from django.db import connections
    from procrastinate.contrib.django import app

    async def work():
        async with app.open_async():
            await app.run_worker_async(
                queues=queues, wait=False, install_signal_handlers=False, listen_notify=False
            )
        # The jobs ran in this one thread, whose connections a worker keeps: closed, so that
        # the test database can be dropped at the end.
        await sync_to_async(connections.close_all, thread_sensitive=True)()

    # In a thread of its own: the caller may be running an event loop (Playwright's does).
    failures = []

    def run():
        try:
            asyncio.run(work())
        except BaseException as error:  # given back to the caller
            failures.append(error)

    with app.replace_connector(app.connector.get_worker_connector()):
        thread = threading.Thread(target=run)
        thread.start()
        thread.join()
    if failures:
        raise failures[0]


def make_retries_due():
    """Jobs waiting for a retry (a failure's backoff) become due now, as time would make them."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE procrastinate_jobs SET scheduled_at = now() "
            "WHERE status = 'todo' AND scheduled_at > now()"
        )
