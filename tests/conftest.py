import asyncio
import copy
import json
import os
import shutil
import subprocess
import tempfile
from contextlib import contextmanager
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from cases.exchange.format import case_to_exchange
from cases.models import Case, Organisation, Term

from .ingest_server import served  # noqa: F401  (the followed sources' local server)

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
SEED = Path(__file__).resolve().parent / "data" / "seed-IL-0137.json"
# A production key as Django's deployment check wants it: 50 characters, not all alike.
GOOD_KEY = "a-production-key-that-is-long-and-random-enough-1234567890"


def own_redis_database_for_each_worker():
    """pytest-xdist's workers share one Redis, and each empties its cache before every test
    (`empty_cache`, Redis's FLUSHDB): so worker gwN uses REDIS_URL's database number plus N,
    its subprocesses too (REDIS_URL=redis://127.0.0.1:6379/1 with `-n 2`: databases 1 and 2)."""
    from urllib.parse import urlsplit, urlunsplit

    from django.conf import settings
    from django.test.signals import setting_changed

    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    url = os.environ.get("REDIS_URL", "")
    if not worker.startswith("gw") or not url.startswith(("redis://", "rediss://")):
        return
    parts = urlsplit(url)
    number = int(parts.path.strip("/") or 0) + int(worker[2:])
    url = urlunsplit(parts._replace(path=f"/{number}"))
    os.environ["REDIS_URL"] = settings.REDIS_URL = url
    settings.CACHES["default"]["LOCATION"] = url
    setting_changed.send(sender=None, setting="CACHES", value=settings.CACHES, enter=True)


own_redis_database_for_each_worker()


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


@pytest.fixture(autouse=True)
def own_sentence_vectors(monkeypatch):
    """Each test reads the sentence vectors of its own database: the process's copy of them
    (meaning/nearest.py) would otherwise hold the cases of the tests before it."""
    from meaning import nearest

    monkeypatch.setattr(nearest, "_index", nearest.Index())


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


def press(client, case_id, button, **changes):
    """Post the case's change form with these changes and `button` pressed (`_approve`)."""
    data = open_case(client, case_id)
    data.update(changes)
    data[button] = "yes"
    return client.post(change_url(case_id), data)


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


# The browser tests: Debian's Chromium driven by Playwright, never a downloaded browser ------

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# Screenshots and PDFs the browser tests leave to be looked at: a folder of this run's own,
# made afresh (so that no test reads a file an earlier run left), shared by the run's
# pytest-xdist workers through the environment they inherit, and named at the run's end.
if "INCIDENTLIB_TEST_SCREENSHOTS" not in os.environ:
    os.environ["INCIDENTLIB_TEST_SCREENSHOTS"] = tempfile.mkdtemp(prefix="incidentlib-screenshots-")
SCREENSHOTS = Path(os.environ["INCIDENTLIB_TEST_SCREENSHOTS"])


def pytest_terminal_summary(terminalreporter):
    if any(SCREENSHOTS.iterdir()):
        terminalreporter.write_line(f"Screenshots and printed pages: {SCREENSHOTS}")


def on_ci(environ=os.environ):
    return environ.get("CI", "").lower() not in ("", "0", "false")


def chromium(path=CHROMIUM, environ=os.environ):
    """The browser to drive: skipped without it, except on CI, where it must be there."""
    if path.exists():
        return path
    reason = f"needs Debian's chromium at {path}"
    if on_ci(environ):
        pytest.fail(f"CI is set: the browser test {reason} (.ci/run installs it)")
    pytest.skip(reason)


def needs_chromium(test):
    """A browser test: committed data for the live server; skipped before the live server
    starts without Chromium, unless on CI, where `chromium()` fails it."""
    test = pytest.mark.browser(test)
    test = pytest.mark.django_db(transaction=True)(test)
    return pytest.mark.skipif(
        not CHROMIUM.exists() and not on_ci(), reason=f"needs Debian's chromium at {CHROMIUM}"
    )(test)


class Chromium:
    """Debian's Chromium driven by Playwright, launched once for the whole run (once for each
    pytest-xdist worker) and lent to one test at a time (`using`), each test in contexts of its
    own that are closed after it.

    Playwright's synchronous API runs its event loop in this thread, which makes the thread
    look as if it were inside a coroutine: Django then refuses the ORM and `asyncio.run` fails,
    as they did while each browser test had its own Playwright. So the loop is marked running
    only while a test holds the browser, and not between the tests."""

    def __init__(self):
        from playwright.sync_api import sync_playwright

        executable = chromium()
        self.playwright = sync_playwright().start()
        self.loop = asyncio.get_running_loop()
        try:
            self.browser = self.playwright.chromium.launch(
                executable_path=str(executable), args=CHROMIUM_ARGS
            )
        finally:
            asyncio._set_running_loop(None)

    @contextmanager
    def using(self):
        asyncio._set_running_loop(self.loop)
        try:
            yield self.browser
        finally:
            try:
                for context in self.browser.contexts:
                    context.close()
            finally:
                asyncio._set_running_loop(None)

    def close(self):
        asyncio._set_running_loop(self.loop)
        try:
            self.browser.close()
        finally:
            self.playwright.stop()
            asyncio._set_running_loop(None)


@pytest.fixture(scope="session")
def chromium_session():
    """The run's one Chromium, launched by the first browser test that asks for it."""
    session = Chromium()
    yield session
    session.close()


@pytest.fixture
def browser(chromium_session):
    """The run's Chromium for one test: `browser.new_page()` opens a context of its own."""
    with chromium_session.using() as browser:
        yield browser


@pytest.fixture
def browser_page(browser):
    page = browser.new_page(locale="en-GB")
    page.set_default_timeout(20_000)
    return page


@pytest.fixture
def draft_and_reviewer(tmp_path, settings):
    """A draft, T-1, and a reviewer, rita, for a browser in the admin."""
    # The live server speaks plain http: cookies must not ask for https.
    settings.SESSION_COOKIE_SECURE = settings.CSRF_COOKIE_SECURE = False
    case = make_case("T-1")
    case["title"]["en"] = "A draft waiting for its reviewer"
    import_cases(write_json(tmp_path / "draft.json", case))
    make_staff("rita", reviewer=True)


def pdf_text(pdf):
    pdftotext = shutil.which("pdftotext")
    if pdftotext is None:
        reason = "needs pdftotext (Debian's poppler-utils)"
        if on_ci():
            pytest.fail(f"CI is set: {reason}")
        pytest.skip(reason)
    return subprocess.run(
        [pdftotext, "-layout", str(pdf), "-"], check=True, capture_output=True, text=True
    ).stdout


# axe-core, vendored with its licence in tests/vendor/axe-core/ (never downloaded at test
# time); every rule it runs by default runs. axe-playwright-python only injects it and runs it.
# To update it: `npm pack axe-core@VERSION`, copy its axe.min.js, LICENSE and
# LICENSE-3RD-PARTY.txt into tests/vendor/axe-core/, and set AXE_VERSION.
SERIOUS = ("critical", "serious")
AXE = Path(__file__).resolve().parent / "vendor" / "axe-core" / "axe.min.js"
AXE_VERSION = "4.14.1"


def serious_violations(page):
    from axe_playwright_python.sync_playwright import Axe

    results = Axe(axe_script=AXE.read_text(encoding="utf-8")).run(page)
    assert results.response["testEngine"]["version"] == AXE_VERSION
    return [
        (v["id"], v["impact"], [node["target"] for node in v["nodes"]][:5])
        for v in results.response["violations"]
        if v["impact"] in SERIOUS
    ]


@pytest.fixture
def demo_library(settings):
    """The demo library, for the live server's browser (whose cookies are over plain http)."""
    settings.SESSION_COOKIE_SECURE = settings.CSRF_COOKIE_SECURE = False
    call_command("load_demo", stdout=StringIO(), stderr=StringIO())


@pytest.fixture
def rita(db):
    return make_staff("rita", reviewer=True)


def admin_page(browser, live_server, lang, path, width=1280):
    """A page of the admin at 1280 px (or `width`), `rita` logged in, the browser asking
    for `lang`."""
    page = browser.new_page(
        viewport={"width": width, "height": 900}, locale="ko-KR" if lang == "ko" else "en-GB"
    )
    page.set_default_timeout(20_000)
    page.goto(f"{live_server.url}/admin/login/?next={path}")
    page.fill("#id_username", "rita")
    page.fill("#id_password", STAFF_PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_url(f"**{path}")  # and its load event: the autocomplete boxes are drawn
    return page


# For each element: where a line ends between two Hangul syllables (inside a Korean word).
BREAKS_INSIDE_WORDS = """
(selector) => {
  const found = [];
  let lines = 0;
  for (const element of document.querySelectorAll(selector)) {
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    let previousTop = null, previous = "", node;
    while ((node = walker.nextNode())) {
      for (let i = 0; i < node.length; i++) {
        const character = node.data[i];
        if (/\\s/.test(character)) { previous = character; continue; }
        const range = document.createRange();
        range.setStart(node, i); range.setEnd(node, i + 1);
        const box = range.getClientRects()[0];
        if (!box) continue;
        if (previousTop !== null && box.top > previousTop + 2) {
          lines++;
          if (/[가-힣]/.test(previous) && /[가-힣]/.test(character)) {
            found.push(node.data.slice(Math.max(0, i - 4), i) + "/" + node.data.slice(i, i + 4));
          }
        }
        previousTop = box.top; previous = character;
      }
    }
  }
  return {lines, found};
}
"""


# The run on the embedded PostgreSQL ------------------------------------------------------

# The modules whose outcome depends on which database server and cache a run has: the
# database's own SQL (triggers, functions, text search, the migrations), the queries a page
# costs and the cache in front of them, and incidentlib.localdb itself. `.ci/run` runs the
# whole suite against the PostgreSQL server and Redis, and these again (`-m embedded`) on the
# embedded PostgreSQL (another major version) with each process's own memory as the cache.
EMBEDDED = {
    "test_caching",
    "test_database_sql",
    "test_facet_counts_kept",
    "test_korean_vectors",
    "test_localdb",
    "test_migrations",
    "test_query_budgets",
    "test_search",
    "test_search_korean_words",
}


def pytest_collection_modifyitems(items):
    for item in items:
        if item.module.__name__.rpartition(".")[2] in EMBEDDED:
            item.add_marker(pytest.mark.embedded)
