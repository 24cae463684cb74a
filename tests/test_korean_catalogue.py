"""The Korean catalogue: every message translated, none fuzzy, and the compiled .mo (which is
committed, so that a newcomer needs no GNU gettext) made from the .po as it is.

`make messages` refreshes both; this file fails when a string added to the code was left
empty or fuzzy, or when the .po was edited without compiling it again.
"""

import gettext
import json
from pathlib import Path

import pytest

CATALOGUE = Path(__file__).resolve().parent.parent / "locale" / "ko" / "LC_MESSAGES"


def po_entries(path):
    """Each entry of a .po file: {"flags", "msgctxt", "msgid", "msgid_plural", "msgstr",
    "msgstr[0]", ...}, quoted strings joined; obsolete entries (#~) left out."""
    entries = []
    for block in path.read_text(encoding="utf-8").split("\n\n"):
        entry, key = {"flags": set()}, None
        for line in block.splitlines():
            if line.startswith("#,"):
                entry["flags"] |= {flag.strip() for flag in line[2:].split(",")}
            elif line.startswith("#"):
                continue
            elif line.startswith('"'):
                entry[key] += json.loads(line)
            elif line:
                key, _space, value = line.partition(" ")
                entry[key] = json.loads(value)
        if "msgid" in entry:
            entries.append(entry)
    return entries


def translations_of(entry):
    return [value for key, value in entry.items() if key.startswith("msgstr")]


def messages():
    return [entry for entry in po_entries(CATALOGUE / "django.po") if entry["msgid"]]


def test_the_catalogue_is_read():
    entries = messages()
    assert len(entries) > 300
    assert any(e["msgid"] == "What happened" and e["msgstr"] for e in entries)


def test_every_message_has_a_korean_translation_that_is_not_fuzzy():
    untranslated = [e["msgid"] for e in messages() if not all(translations_of(e))]
    fuzzy = [e["msgid"] for e in messages() if "fuzzy" in e["flags"]]
    assert (untranslated, fuzzy) == ([], [])


def test_the_compiled_catalogue_is_made_from_the_po_as_it_is():
    with (CATALOGUE / "django.mo").open("rb") as compiled:
        catalogue = gettext.GNUTranslations(compiled)._catalog
    expected = {}
    for entry in messages():
        msgid = entry["msgid"]
        if "msgctxt" in entry:
            msgid = f"{entry['msgctxt']}\x04{msgid}"
        if "msgid_plural" in entry:
            for key, value in entry.items():
                if key.startswith("msgstr["):
                    expected[(msgid, int(key[7:-1]))] = value
        else:
            expected[msgid] = entry["msgstr"]
    compiled_messages = {key: value for key, value in catalogue.items() if key != ""}
    assert compiled_messages == expected, "run `make messages` to compile the .po"


@pytest.mark.parametrize(
    "text", ['msgid "A"\nmsgstr ""', '#, fuzzy\nmsgid "A"\nmsgstr "가"', 'msgid "A"\nmsgstr "가"']
)
def test_the_checks_tell_an_empty_or_fuzzy_entry(tmp_path, text):
    path = tmp_path / "django.po"
    path.write_text(text, encoding="utf-8")
    [entry] = po_entries(path)
    good = all(translations_of(entry)) and "fuzzy" not in entry["flags"]
    assert good == (text == 'msgid "A"\nmsgstr "가"')
