"""axe-core in Debian's Chromium on every kind of public page, in both languages, at 1280 and
390 px, and on the admin's case change form: no critical and no serious violation.

axe-core is the current release, vendored in tests/vendor/axe-core/ (`serious_violations` in
tests/conftest.py says how to update it). Each page's screenshot is left in the run's
screenshots folder (tests/conftest.py) to be looked at.
"""

import pytest

from .conftest import SCREENSHOTS, admin_page, needs_chromium, serious_violations

PUBLIC_PAGES = {
    "home": "/",
    "list": "/cases/",
    "list-filtered": "/cases/?severity=high&domain=cloud",
    "search": "/cases/?q=storage",
    "case": "/cases/IL-0137",
    "taxonomy": "/taxonomy/",
    "term": "/taxonomy/components/shared-filesystem/",
    "organisations": "/orgs/",
    "organisation": "/orgs/lablup/",
    "source": "/sources/?url=https://arxiv.org/abs/2605.09370",
    "stats": "/stats/",
    "diagnose": "/diagnose/?symptoms=throughput-degraded&q=storage",
    "not-found": "/cases/IL-9999",
    "both-languages": "/cases/IL-0137/both/",
    "bad-request": "/cases/?severity=bogus",
    "diagnose-empty": "/diagnose/",
}


@needs_chromium
@pytest.mark.usefixtures("demo_library")
@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("lang", ["en", "ko"])
def test_every_public_page_kind_has_no_serious_violation(live_server, browser, lang, width):
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.set_default_timeout(20_000)
    SCREENSHOTS.mkdir(exist_ok=True)
    found = {}
    for name, path in PUBLIC_PAGES.items():
        separator = "&" if "?" in path else "?"
        page.goto(f"{live_server.url}{path}{separator}lang={lang}")
        page.screenshot(path=SCREENSHOTS / f"{name}-{lang}-{width}.png", full_page=True)
        violations = serious_violations(page)
        if violations:
            found[name] = violations
    assert found == {}


@needs_chromium
@pytest.mark.usefixtures("demo_library")
@pytest.mark.parametrize(
    ("lang", "skip"), [("en", "Skip to the results"), ("ko", "결과로 건너뛰기")]
)
def test_the_keyboard_skips_the_header_and_the_filters_to_the_results(
    live_server, browser, lang, skip
):
    """A list's filters are some seventy links before its first case: the first stops of
    the keyboard skip to the content and, on a list, to its results."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{live_server.url}/cases/?lang={lang}")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.getAttribute('href')") == "#content"
    assert page.locator(".skip-link").first.bounding_box()["y"] >= 0  # seen with the focus
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == skip
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    # The next stop is in the results (their sort links, then the cases), past the filters.
    focused = page.evaluate("document.activeElement.closest('#results') !== null")
    assert focused, page.evaluate("document.activeElement.outerHTML")
    page.goto(f"{live_server.url}/cases/IL-0137?lang={lang}")
    assert page.locator(".skip-link").count() == 1  # a case page: the content only
    assert page.locator(".skip-link").bounding_box()["y"] < 0  # out of sight without it


@needs_chromium
@pytest.mark.usefixtures("demo_library", "rita")
@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_admin_case_change_form_has_no_serious_violation(live_server, browser, lang):
    page = admin_page(browser, live_server, lang, "/admin/cases/case/IL-0137/change/")
    SCREENSHOTS.mkdir(exist_ok=True)
    page.screenshot(path=SCREENSHOTS / f"admin-change-{lang}-1280.png", full_page=True)
    # The form fits the window, and axe finds nothing serious.
    width = page.evaluate("document.documentElement.scrollWidth")
    assert (width, serious_violations(page)) == (1280, [])
