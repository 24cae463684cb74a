"""/sitemap.xml and /robots.txt."""

import xml.etree.ElementTree as ET

import pytest

from .library import six_cases, store

pytestmark = pytest.mark.django_db

SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"


def sitemap_sections(client):
    """The addresses of the sitemap index's sections."""
    index = ET.fromstring(client.get("/sitemap.xml").content)
    assert index.tag == f"{SITEMAP}sitemapindex"
    return [loc.text for loc in index.iter(f"{SITEMAP}loc")]


def sitemap_entries(client):
    """{address: its <lastmod> element} over every section of the sitemap."""
    entries = {}
    for section in sitemap_sections(client):
        response = client.get(section.removeprefix("http://testserver"))
        assert response.status_code == 200, section
        for url in ET.fromstring(response.content).findall(f"{SITEMAP}url"):
            entries[url.find(f"{SITEMAP}loc").text] = url.find(f"{SITEMAP}lastmod")
    return entries


def test_the_sitemap_lists_cases_with_their_last_update_and_the_browsing_pages(client, tmp_path):
    store(tmp_path, *six_cases())
    entries = sitemap_entries(client)
    for lang in ("en", "ko"):
        assert entries[f"http://testserver/cases/A-1?lang={lang}"].text == "2026-11-09"
        for page in ("/", "/cases/", "/diagnose/", "/stats/", "/taxonomy/", "/orgs/",
                     "/taxonomy/components/dns/", "/taxonomy/severity/critical/",
                     "/orgs/globex/"):  # fmt: skip
            assert f"http://testserver{page}?lang={lang}" in entries, (page, lang)
    assert len([loc for loc in entries if "/cases/A-" in loc]) == 12


def test_each_address_is_the_canonical_address_of_its_page_with_its_alternates(client, tmp_path):
    """A search engine is given the address each page names as its canonical one, and each
    language's address beside it."""
    store(tmp_path, *six_cases())
    section = ET.fromstring(client.get("/sitemap-pages.xml").content)
    urls = section.findall(f"{SITEMAP}url")
    assert len(urls) == 12  # six pages, two languages
    for url in urls:
        loc = url.find(f"{SITEMAP}loc").text
        html = client.get(loc.removeprefix("http://testserver")).content.decode()
        assert f'<link rel="canonical" href="{loc}">' in html, loc
        alternates = {
            link.get("hreflang"): link.get("href")
            for link in url.findall("{http://www.w3.org/1999/xhtml}link")
        }
        bare = loc.split("?")[0]
        assert alternates == {"en": f"{bare}?lang=en", "ko": f"{bare}?lang=ko", "x-default": bare}


def test_the_sitemap_is_an_index_of_sections_of_at_most_its_section_size(
    client, tmp_path, monkeypatch
):
    from cases.sitemaps import SECTION_SIZE, CaseSitemap

    assert CaseSitemap.limit * 2 == SECTION_SIZE  # pages, each at two addresses
    store(tmp_path, *six_cases())
    monkeypatch.setattr(CaseSitemap, "limit", 4)
    sections = sitemap_sections(client)
    assert "http://testserver/sitemap-cases.xml" in sections
    assert "http://testserver/sitemap-cases.xml?p=2" in sections
    second = ET.fromstring(client.get("/sitemap-cases.xml?p=2").content)
    assert len(second.findall(f"{SITEMAP}url")) == 4  # two cases, each in two languages
    assert len([loc for loc in sitemap_entries(client) if "/cases/A-" in loc]) == 12


def test_robots_txt_points_to_the_sitemap_and_keeps_crawlers_out_of_the_admin(client):
    response = client.get("/robots.txt")
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    lines = response.content.decode().splitlines()
    assert "User-agent: *" in lines and "Disallow: /admin/" in lines
    assert "Sitemap: http://testserver/sitemap.xml" in lines
