"""End to end in Debian's Chromium: a reviewer follows a source in the admin, the worker runs
it, and the reviewer approves one of its drafts; axe finds nothing serious on the way."""

import pytest

from .conftest import (
    CHROMIUM,
    STAFF_PASSWORD,
    make_staff,
    on_ci,
    run_worker,
    serious_violations,
)


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)  # the live server and the worker see committed data
@pytest.mark.skipif(
    not CHROMIUM.exists() and not on_ci(), reason=f"needs Debian's chromium at {CHROMIUM}"
)
def test_a_reviewer_follows_a_status_page_and_approves_a_draft(
    live_server, served, settings, chromium_session
):
    settings.SESSION_COOKIE_SECURE = settings.CSRF_COOKIE_SECURE = False
    make_staff("rita", reviewer=True)
    served.files.pop("/statuspage/history.atom")  # the API's three incidents only
    with chromium_session.using() as browser:
        page = browser.new_page(locale="en-GB")
        page.set_default_timeout(20_000)
        page.goto(f"{live_server.url}/admin/login/?next=/admin/ingest/followedsource/add/")
        page.fill("#id_username", "rita")
        page.fill("#id_password", STAFF_PASSWORD)
        page.click("input[type=submit]")
        assert serious_violations(page) == []
        page.fill("#id_name", "github")
        page.select_option("#id_kind", "statuspage")
        page.fill("#id_url", served.url("/statuspage"))
        page.fill("#id_licence", "Statuspage terms")
        page.get_by_role("button", name="Save", exact=True).click()
        assert "was added successfully" in page.locator(".messagelist").inner_text()

        # Run it now: the action queues a job, which a real worker runs.
        page.locator("input[name=_selected_action]").first.check()
        page.select_option("select[name=action]", "poll_now")
        page.locator("button[name=index]").click()  # "Go"
        assert "1 run queued for the worker" in page.locator(".messagelist").inner_text()
        run_worker()
        page.reload()
        assert "github: 3 drafted" in page.content()
        assert serious_violations(page) == []

        page.goto(f"{live_server.url}/admin/ingest/item/")
        assert serious_violations(page) == []
        page.get_by_role("link", name="Incident on 2018-10-21 23:09 UTC").click()
        page.locator("a[href*='/admin/cases/case/IN-']").first.click()
        page.get_by_role("button", name="Approve", exact=True).click()
        assert "was approved: you are its reviewer." in page.locator(".messagelist").inner_text()
