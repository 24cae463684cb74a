"""End to end, in a real headless Chromium: a reviewer approves a draft; the public page says so.

Debian's `chromium` (`.ci/run` installs it), driven by Playwright; never a downloaded browser.
"""

import os
from contextlib import contextmanager
from pathlib import Path

import pytest

from ..conftest import STAFF_PASSWORD, import_cases, make_case, make_staff, write_json

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


def test_without_chromium_the_browser_test_is_skipped_locally():
    with pytest.raises(pytest.skip.Exception):
        chromium(Path("/nonexistent/chromium"), {})


@pytest.mark.parametrize("value", ["true", "1"])
def test_without_chromium_the_browser_test_fails_on_ci(value):
    with pytest.raises(pytest.fail.Exception, match="CI is set"):
        chromium(Path("/nonexistent/chromium"), {"CI": value})


@contextmanager
def launched_chromium():
    """Debian's Chromium driven by Playwright, closed at the end (every browser test's)."""
    from playwright.sync_api import sync_playwright

    executable = chromium()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(executable), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def browser_page():
    with launched_chromium() as browser:
        page = browser.new_page(locale="en-GB")
        page.set_default_timeout(20_000)
        yield page


@pytest.fixture
def draft_and_reviewer(tmp_path, settings):
    # The live server speaks plain http: cookies must not ask for https.
    settings.SESSION_COOKIE_SECURE = settings.CSRF_COOKIE_SECURE = False
    case = make_case("T-1")
    case["title"]["en"] = "A draft waiting for its reviewer"
    import_cases(write_json(tmp_path / "draft.json", case))
    make_staff("rita", reviewer=True)


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)  # the live server sees only committed data
# Skipped before the live server starts, unless on CI, where the browser_page fixture fails.
@pytest.mark.skipif(
    not CHROMIUM.exists() and not on_ci(), reason=f"needs Debian's chromium at {CHROMIUM}"
)
def test_a_reviewer_approves_a_draft_and_the_public_page_shows_it_reviewed(
    live_server, draft_and_reviewer, browser_page
):
    page = browser_page
    page.goto(f"{live_server.url}/cases/T-1")
    assert page.locator(".status.draft").inner_text() == "Draft: not yet reviewed"

    page.goto(f"{live_server.url}/admin/login/?next=/admin/cases/case/")
    page.fill("#id_username", "rita")
    page.fill("#id_password", STAFF_PASSWORD)
    page.click("input[type=submit]")
    page.get_by_role("link", name="1 draft waiting for review").click()
    page.get_by_role("link", name="A draft waiting for its reviewer").click()

    page.get_by_role("button", name="Approve", exact=True).click()
    # Back to the list of drafts it came from.
    page.wait_for_url(f"{live_server.url}/admin/cases/case/?status=draft")
    assert "T-1 was approved: you are its reviewer." in page.locator(".messagelist").inner_text()

    page.goto(f"{live_server.url}/cases/T-1")
    status = page.locator(".status")
    assert status.get_attribute("class") == "status reviewed"
    assert status.inner_text().startswith("Reviewed by rita on ")
    assert page.locator(".status.draft").count() == 0
