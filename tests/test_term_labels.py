"""Term labels: a term an import made from its slug is marked as needing a label, listed and
counted in the admin, shown marked English on Korean pages, and given its labels back by
load_taxonomy (which takes what /api/taxonomy/ gives) and by load_demo."""

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from cases.exchange.checks_across_cases import term_slugs
from cases.models import Term

from .conftest import import_cases, logged_in, make_case, write_json

pytestmark = pytest.mark.django_db

ROOT_TAXONOMY = "fixtures/taxonomy.json"


def load_demo():
    call_command("load_demo", stdout=StringIO(), stderr=StringIO())


def test_a_term_an_import_makes_from_its_slug_needs_a_label(tmp_path):
    import_cases(write_json(tmp_path / "a.json", make_case("A-1", components=["cdn-edge"])))
    term = Term.objects.get(facet="components", slug="cdn-edge")
    assert term.label_en == "Cdn edge" and term.needs_label


def test_terms_loaded_from_the_taxonomy_file_have_their_labels():
    call_command("load_taxonomy", ROOT_TAXONOMY, stdout=StringIO())
    assert Term.objects.exists() and not Term.objects.filter(needs_label=True).exists()


def test_a_dry_run_of_load_taxonomy_counts_what_the_run_would_and_writes_nothing(tmp_path):
    call_command("load_taxonomy", ROOT_TAXONOMY, stdout=StringIO())
    terms = json.loads(Path(ROOT_TAXONOMY).read_text(encoding="utf-8"))
    terms[0] = {**terms[0], "label": {**terms[0]["label"], "en": "Another label"}}
    terms.append({**terms[1], "slug": "a-new-term"})
    path = write_json(tmp_path / "taxonomy.json", terms)
    before = list(Term.objects.values().order_by("id"))
    dry = StringIO()
    call_command("load_taxonomy", str(path), "--dry-run", stdout=dry)
    assert list(Term.objects.values().order_by("id")) == before
    real = StringIO()
    call_command("load_taxonomy", str(path), stdout=real)
    counts = f"Terms: 1 created, 1 updated, {len(terms) - 2} unchanged."
    assert dry.getvalue() == f"Dry run, nothing written. {counts}\n"
    assert real.getvalue() == f"{counts}\n"


def test_load_demo_gives_back_the_labels_an_import_made_from_slugs(tmp_path):
    # The demo cases imported before the taxonomy: every term made from its slug.
    call_command("import_cases", "fixtures/cases", stdout=StringIO(), stderr=StringIO())
    cdn = Term.objects.get(facet="domain", slug="cdn")
    assert cdn.label_en == "Cdn" and cdn.label_ko == "" and cdn.needs_label
    out = StringIO()
    call_command("load_demo", stdout=out, stderr=StringIO())
    cdn.refresh_from_db()
    assert (cdn.label_en, cdn.label_ko, cdn.needs_label) == ("CDN and edge", "CDN·엣지", False)
    # Created: only the taxonomy's terms no demo case uses (kinds of fix such as
    # add-monitoring, there as examples); every term the import made is updated.
    demo = [json.loads(p.read_text(encoding="utf-8")) for p in Path("fixtures/cases").iterdir()]
    used = {key for case in demo for key in term_slugs(case)}
    listed = json.loads(Path(ROOT_TAXONOMY).read_text(encoding="utf-8"))
    never_used = [t for t in listed if (t["facet"], t["slug"]) not in used]
    assert (
        out.getvalue().startswith(f"Terms: {len(never_used)} created, ")
        and " 0 updated" not in (out.getvalue().splitlines()[0])
    )
    # Labels given in the admin since are kept by the next run, as before.
    Term.objects.filter(pk=cdn.pk).update(label_en="Edited")
    load_demo()
    cdn.refresh_from_db()
    assert cdn.label_en == "Edited"


def test_load_taxonomy_takes_what_the_api_gives(client, tmp_path):
    call_command("load_taxonomy", ROOT_TAXONOMY, stdout=StringIO())
    before = list(
        Term.objects.values_list(
            "facet", "slug", "label_en", "label_ko", "description_en", "description_ko"
        ).order_by("facet", "slug")
    )
    answer = client.get("/api/taxonomy/").json()
    path = write_json(tmp_path / "taxonomy.json", answer)
    Term.objects.update(label_en="x", label_ko="", description_en="", needs_label=True)
    out = StringIO()
    call_command("load_taxonomy", str(path), stdout=out)
    assert f"{len(before)} updated" in out.getvalue()
    after = list(
        Term.objects.values_list(
            "facet", "slug", "label_en", "label_ko", "description_en", "description_ko"
        ).order_by("facet", "slug")
    )
    assert after == before
    assert not Term.objects.filter(needs_label=True).exists()
    # Loading it again changes nothing.
    out = StringIO()
    call_command("load_taxonomy", str(path), stdout=out)
    assert f"0 created, 0 updated, {len(before)} unchanged" in out.getvalue()


def test_load_taxonomy_still_refuses_what_is_neither(tmp_path):
    from django.core.management.base import CommandError

    path = tmp_path / "t.json"
    path.write_text(json.dumps({"terms": []}))
    err = StringIO()
    with pytest.raises(CommandError):
        call_command("load_taxonomy", str(path), stdout=StringIO(), stderr=err)
    assert "/api/taxonomy/" in err.getvalue()


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (b'[\n  {"facet": "domain", "slug": "caf\xe9"}]', "t.json:2:35: not UTF-8 text (byte 37"),
        (b"[" * 100_000, "t.json: malformed JSON: nested too deeply to be read"),
        (b"", "t.json: the file is empty"),
    ],
)
def test_load_taxonomy_names_a_file_it_cannot_read_without_a_traceback(tmp_path, raw, expected):
    from django.core.management.base import CommandError

    (tmp_path / "t.json").write_bytes(raw)
    err = StringIO()
    with pytest.raises(CommandError):
        call_command("load_taxonomy", str(tmp_path / "t.json"), stdout=StringIO(), stderr=err)
    assert f"{tmp_path}/{expected}" in err.getvalue()


def test_load_taxonomy_takes_a_file_that_begins_with_a_bom(tmp_path):
    path = tmp_path / "t.json"
    path.write_bytes(b"\xef\xbb\xbf" + Path(ROOT_TAXONOMY).read_bytes())
    out = StringIO()
    call_command("load_taxonomy", str(path), stdout=out)
    assert " created, 0 updated, 0 unchanged" in out.getvalue()


@pytest.fixture
def terms_needing_labels(tmp_path):
    call_command("load_taxonomy", ROOT_TAXONOMY, stdout=StringIO())
    case = make_case("A-1", components=["cdn-edge", "waf"])
    import_cases(write_json(tmp_path / "a.json", case))
    Term.objects.create(facet="domain", slug="space", label_en="Space", needs_label=False)


def test_the_admin_lists_and_counts_terms_needing_a_label(client, reviewer, terms_needing_labels):
    client = logged_in(client, reviewer)
    reviewer.is_superuser = True
    reviewer.save()
    index = client.get("/admin/").content.decode()
    assert '<a href="/admin/cases/term/?labels=missing">3 taxonomy terms need a label' in index
    listed = client.get("/admin/cases/term/?labels=missing").content.decode()
    for slug in ("cdn-edge", "waf", "space"):
        assert f">{slug}</a>" in listed, slug
    assert ">ai-infra</a>" not in listed
    from_slug = client.get("/admin/cases/term/?labels=from_slug").content.decode()
    assert ">waf</a>" in from_slug and ">space</a>" not in from_slug
    no_korean = client.get("/admin/cases/term/?labels=no_korean").content.decode()
    assert ">space</a>" in no_korean


def test_saving_a_term_in_the_admin_gives_it_its_labels(client, reviewer, terms_needing_labels):
    reviewer.is_superuser = True
    reviewer.save()
    client = logged_in(client, reviewer)
    term = Term.objects.get(slug="waf")
    response = client.post(
        f"/admin/cases/term/{term.pk}/change/",
        {"label_en": "Web application firewall", "label_ko": "웹 방화벽", "description_en": "",
         "description_ko": ""},
    )  # fmt: skip
    assert response.status_code == 302, response.content.decode()[:2000]
    term.refresh_from_db()
    assert not term.needs_label and term.label_ko == "웹 방화벽"


def test_a_label_shown_in_english_is_marked_on_korean_pages(client, terms_needing_labels):
    html = client.get("/cases/A-1?lang=ko").content.decode()
    assert 'lang="en">Cdn edge</a>' in html and 'lang="en">Waf</a>' in html
    listing = client.get("/cases/?lang=ko").content.decode()
    assert '<span lang="en">Waf</span>' in listing
    term_page = client.get("/taxonomy/components/waf/?lang=ko").content.decode()
    assert '<h1 lang="en">Waf</h1>' in term_page


def test_a_label_or_slug_too_long_to_store_is_named_and_nothing_is_loaded(tmp_path):
    call_command("load_taxonomy", ROOT_TAXONOMY, stdout=StringIO())
    before = list(Term.objects.order_by("id").values())
    terms = [
        {"facet": "domain", "slug": "fine", "label": {"en": "Fine", "ko": "괜찮음"}},
        {"facet": "domain", "slug": "long-label", "label": {"en": "L" * 201, "ko": None}},
        {"facet": "domain", "slug": "s" * 65, "label": {"en": "Long slug", "ko": "긴 ".ljust(201)}},
    ]
    stderr = StringIO()
    with pytest.raises(CommandError, match="^3 problems found; nothing was loaded"):
        call_command("load_taxonomy", str(write_json(tmp_path / "t.json", terms)), stderr=stderr)
    assert stderr.getvalue().splitlines() == [
        f"{tmp_path / 't.json'} [1]: label.en: is 201 characters long; at most 200 are stored",
        f"{tmp_path / 't.json'} [2]: slug: is 65 characters long; at most 64 are stored",
        f"{tmp_path / 't.json'} [2]: label.ko: is 201 characters long; at most 200 are stored",
    ]
    assert list(Term.objects.order_by("id").values()) == before
