"""The admin works in a real Chromium under the Content Security Policy: autocomplete,
adding an inline row and the review buttons, with no violation reported by the browser."""

import pytest

from .admin.test_review_browser import (  # noqa: F401  (fixtures, used by name)
    CHROMIUM,
    browser_page,
    draft_and_reviewer,
    on_ci,
)
from .conftest import STAFF_PASSWORD


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)  # the live server sees only committed data
@pytest.mark.skipif(
    not CHROMIUM.exists() and not on_ci(), reason=f"needs Debian's chromium at {CHROMIUM}"
)
@pytest.mark.usefixtures("draft_and_reviewer")
def test_the_admin_works_under_the_content_security_policy(request, live_server):
    page = request.getfixturevalue("browser_page")
    violations = []
    page.on(
        "console",
        lambda message: (
            violations.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    page.goto(f"{live_server.url}/admin/login/?next=/admin/cases/case/T-1/change/")
    page.fill("#id_username", "rita")
    page.fill("#id_password", STAFF_PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_url(f"{live_server.url}/admin/cases/case/T-1/change/")

    # Autocomplete (select2, Django's own files): the organisation is found by typing.
    page.click("#select2-id_organisation-container")
    page.fill(".select2-search__field", "Lab")
    page.locator(".select2-results__option", has_text="Lablup Inc").click()
    assert "Lablup Inc" in page.locator("#select2-id_organisation-container").inner_text()

    # An inline list gets a new row from its "Add another" link (inlines.js).
    rows = page.locator("#sources-group tr.form-row:not(.empty-form)")
    before = rows.count()
    page.locator("#sources-group .add-row a").click()
    assert rows.count() == before + 1

    # The review button.
    page.get_by_role("button", name="Approve", exact=True).click()
    page.wait_for_selector(".messagelist")
    assert "T-1 was approved: you are its reviewer." in page.locator(".messagelist").inner_text()
    assert violations == []
