"""End to end, in a real headless Chromium: a reviewer approves a draft; the public page says so.

Debian's `chromium` (`.ci/run` installs it), driven by Playwright; never a downloaded browser.
"""

from pathlib import Path

import pytest

from ..conftest import CHROMIUM, STAFF_PASSWORD, chromium, on_ci


def test_without_chromium_the_browser_test_is_skipped_locally():
    with pytest.raises(pytest.skip.Exception):
        chromium(Path("/nonexistent/chromium"), {})


@pytest.mark.parametrize("value", ["true", "1"])
def test_without_chromium_the_browser_test_fails_on_ci(value):
    with pytest.raises(pytest.fail.Exception, match="CI is set"):
        chromium(Path("/nonexistent/chromium"), {"CI": value})


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
