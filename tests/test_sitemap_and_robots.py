"""/sitemap.xml and /robots.txt."""

import xml.etree.ElementTree as ET

import pytest

from .library import six_cases, store

pytestmark = pytest.mark.django_db

SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"


def test_the_sitemap_lists_cases_with_their_last_update_and_the_browsing_pages(client, tmp_path):
    store(tmp_path, *six_cases())
    root = ET.fromstring(client.get("/sitemap.xml").content)
    entries = {
        url.find(f"{SITEMAP}loc").text: url.find(f"{SITEMAP}lastmod")
        for url in root.findall(f"{SITEMAP}url")
    }
    assert entries["http://testserver/cases/A-1"].text == "2026-11-09"
    for page in ("/", "/cases/", "/taxonomy/", "/orgs/", "/taxonomy/components/dns/",
                 "/taxonomy/severity/critical/", "/orgs/globex/"):  # fmt: skip
        assert f"http://testserver{page}" in entries, page
    assert len([loc for loc in entries if "/cases/A-" in loc]) == 6


def test_robots_txt_points_to_the_sitemap_and_keeps_crawlers_out_of_the_admin(client):
    response = client.get("/robots.txt")
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    lines = response.content.decode().splitlines()
    assert "User-agent: *" in lines and "Disallow: /admin/" in lines
    assert "Sitemap: http://testserver/sitemap.xml" in lines
