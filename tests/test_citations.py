"""/cases/<id>.bib, .ris and .csl.json, "Cite this case" and the Highwire meta tags."""

import json
import re

import bibtexparser
import pytest
from bibtexparser.middlewares import LatexDecodingMiddleware

from .library import REVIEWED, plain_case, store

pytestmark = pytest.mark.django_db

HARD_TITLE = "Braces {x} at 50% & a_b: 스토리지 #1 $5 ~ ^ \\ end"
HARD_ORG = "R&D_Lab {50%}"


@pytest.fixture
def hard_case(tmp_path):
    store(
        tmp_path,
        plain_case(
            "C-1",
            title={"en": HARD_TITLE, "ko": "중괄호 {x} 50% & a_b 장애"},
            summary={"en": "Line one.\nLine two & more_", "ko": None},
            org=HARD_ORG,
            org_slug="rnd-lab",
            date="2024-03-09",
            review=REVIEWED,
        ),
        plain_case("C-2", title={"en": "Only English", "ko": None}),
    )


def get(client, url):
    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return response


def decoded(value):
    """A BibTeX value as text: pylatexenc reads LaTeX's \\textasciicircum{} (a ^) as the
    modifier letter ˆ (U+02C6)."""
    return value.replace("\u02c6", "^")


def test_bibtex_parses_back_with_every_special_character(client, hard_case):
    response = get(client, "/cases/C-1.bib?lang=en")
    assert response["Content-Type"] == "application/x-bibtex; charset=utf-8"
    library = bibtexparser.parse_string(
        response.content.decode(), append_middleware=[LatexDecodingMiddleware()]
    )
    assert not library.failed_blocks
    [entry] = library.entries
    assert entry.key == "C-1"
    fields = {field.key: field.value for field in entry.fields}
    assert decoded(fields["title"]) == HARD_TITLE
    assert fields["author"] == HARD_ORG
    assert fields["year"] == "2024" and fields["date"] == "2024-03-09"
    assert fields["url"] == "http://testserver/cases/C-1"
    assert "Line one. Line two & more_" == fields["abstract"]
    assert "mina" in fields["note"] and "Last updated" in fields["note"]
    assert "origtitle" not in fields


def test_bibtex_in_korean_carries_the_english_title_too(client, hard_case):
    text = get(client, "/cases/C-1.bib?lang=ko").content.decode()
    library = bibtexparser.parse_string(text, append_middleware=[LatexDecodingMiddleware()])
    fields = {field.key: field.value for field in library.entries[0].fields}
    assert decoded(fields["title"]) == "중괄호 {x} 50% & a_b 장애"
    assert decoded(fields["origtitle"]) == HARD_TITLE
    assert fields["language"] == "korean"
    assert "마지막 수정" in fields["note"]
    # The raw text escapes what LaTeX would read otherwise.
    assert r"50\% \& a\_b" in text and r"\{x\}" in text


def ris_fields(text):
    """RIS read line by line: [(tag, value)], checking each line's shape."""
    lines = text.split("\r\n")
    assert lines[-1] == ""
    fields = []
    for line in lines[:-1]:
        match = re.fullmatch(r"([A-Z][A-Z0-9])  - (.*)", line)
        assert match, line
        fields.append(match.groups())
    return fields


def test_ris_is_one_value_per_line(client, hard_case):
    response = get(client, "/cases/C-1.ris?lang=ko")
    assert response["Content-Type"] == "application/x-research-info-systems; charset=utf-8"
    fields = ris_fields(response.content.decode())
    assert fields[0] == ("TY", "ELEC") and fields[-1] == ("ER", "")
    values = dict(fields)
    assert values["TI"] == "중괄호 {x} 50% & a_b 장애"
    assert values["TT"] == HARD_TITLE
    assert values["AU"] == HARD_ORG
    assert values["DA"] == "2024/03/09/" and values["PY"] == "2024"
    assert values["UR"] == "http://testserver/cases/C-1"
    assert values["AB"] == "Line one. Line two & more_"


def test_csl_json_is_json(client, hard_case):
    response = get(client, "/cases/C-1.csl.json?lang=en")
    assert response["Content-Type"] == "application/vnd.citationstyles.csl+json; charset=utf-8"
    [item] = json.loads(response.content)
    assert item["id"] == "C-1" and item["title"] == HARD_TITLE
    assert item["author"] == [{"literal": HARD_ORG}]
    assert item["issued"] == {"date-parts": [[2024, 3, 9]]}
    assert item["URL"] == "http://testserver/cases/C-1"
    assert "original-title" not in item
    korean = json.loads(get(client, "/cases/C-1.csl.json?lang=ko").content)[0]
    assert korean["title"] == "중괄호 {x} 50% & a_b 장애" and korean["original-title"] == HARD_TITLE


def test_a_draft_is_cited_as_a_draft_and_an_untranslated_title_stays_english(client, hard_case):
    [item] = json.loads(get(client, "/cases/C-2.csl.json?lang=ko").content)
    assert item["title"] == "Only English" and item["language"] == "en"
    assert "original-title" not in item
    assert "검토" in item["note"]


def test_unknown_and_lower_case_ids(client, hard_case):
    assert client.get("/cases/C-9.bib").status_code == 404
    response = client.get("/cases/c-1.ris")
    assert response.status_code == 301 and response["Location"] == "/cases/C-1.ris"


def test_hidden_drafts_are_not_cited(client, hard_case, settings):
    settings.INCIDENTLIB_HIDE_DRAFTS = True
    assert client.get("/cases/C-2.bib").status_code == 404
    assert client.get("/cases/C-1.bib").status_code == 200


def test_the_case_page_has_highwire_tags_and_cite_links(client, hard_case):
    html = get(client, "/cases/C-1?lang=en").content.decode()
    assert '<meta name="citation_title" content="Braces {x} at 50% &amp; a_b' in html
    assert '<meta name="citation_author" content="R&amp;D_Lab {50%}">' in html
    assert '<meta name="citation_publication_date" content="2024/03/09">' in html
    assert 'id="cite"' in html and "Cite this case" in html
    for fmt in ("bib", "ris", "csl.json"):
        assert f'href="/cases/C-1.{fmt}?lang=en"' in html
    korean = get(client, "/cases/C-1?lang=ko").content.decode()
    assert "이 사례 인용하기" in korean and 'href="/cases/C-1.bib?lang=ko"' in korean


def test_case_text_is_escaped_in_the_meta_tags(client, tmp_path):
    store(tmp_path, plain_case("C-3", title={"en": '<script>alert("x")</script>', "ko": None}))
    html = get(client, "/cases/C-3").content.decode()
    assert "<script>alert" not in html
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in html


def test_citations_are_cached_per_language(client, hard_case):
    assert "C-1" in get(client, "/cases/C-1.bib?lang=ko").content.decode()
    assert (
        get(client, "/cases/C-1.bib?lang=en").content
        != get(client, "/cases/C-1.bib?lang=ko").content
    )
