"""Catalogs: complete in every language, in step with the code, placeholders kept."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po
from hypothesis import given, settings
from hypothesis import strategies as st

from hollywood_gin.web.http.i18n import CLIENT_STRINGS, LANGUAGES, LOCALES_DIR, Catalogs, negotiate

REPO = Path(__file__).resolve().parents[2]
OTHER_LANGUAGES = [lang for lang in LANGUAGES if lang != "en"]

# Words that are the same in a language as in English: names of variants and
# international words (each checked by hand against the seeds or a dictionary).
SAME_AS_ENGLISH = {
    "Gin",
    "Hollywood",
    "Oklahoma",
    "Oklahoma Gin",
    "Straight Gin",
    "Beta",
    "Bonus",
    "Standard",
    "Standard Gin Rummy",  # Danish seed: "Standard Gin Rummy"
    "Normal",
    "normal",
    "online",
    "offline",
    "computer: {strength}",  # Danish: "computer"
    "Computer ({strength})",  # German and Danish: "Computer"
    "Gin: {d} + {bonus} = {points}",  # the game's name and the arithmetic
    "Gin Rummy variant",  # Estonian: "variant"
    "Menu",  # Danish: "Menu"
    "bot",  # Danish and Hungarian: "bot"
    "{name} (bot)",  # Danish and Hungarian
    "%(name)s (bot)",  # Danish and Hungarian
    "gin",  # the hand's kind in the match summary: Danish, Hungarian, Estonian "gin"
    "Gins",  # German: "Gins"
    "{m} min",  # Danish and Estonian: "min"
    "{h} h {m} min",  # Estonian: "h", "min"
}


def card_name(catalogs: Catalogs, lang: str, card: str) -> str:
    """The spoken name of a card ("7H" -> "seven of hearts"), as static/js/i18n.js
    builds it from the client's strings."""
    strings = catalogs.client_strings(lang)
    return (
        strings["card"]
        .replace("{rank}", strings[f"rank.{card[0]}"])
        .replace("{suit}", strings[f"suit.{card[1]}"])
    )


def catalog(lang: str) -> Catalog:
    with (LOCALES_DIR / lang / "LC_MESSAGES" / "messages.po").open("rb") as f:
        return read_po(f, locale=lang)


def template() -> Catalog:
    with (LOCALES_DIR / "messages.pot").open("rb") as f:
        return read_po(f)


def source_msgids() -> set[str]:
    """Extract from the sources now, with the repository's own babel.cfg."""
    method_map = [("hollywood_gin/web/**.py", "python"), ("templates/**.html", "jinja2")]
    options = {
        "hollywood_gin/web/**.py": {},
        "templates/**.html": {
            "extensions": "jinja2.ext.i18n",
            "trimmed": "true",
            "newstyle_gettext": "true",
        },
    }
    found = set()
    keywords = {"_": None, "gettext": None, "ngettext": (1, 2), "N_": None}
    for _file, _line, message, _comments, _context in extract_from_dir(
        str(REPO), method_map, options, keywords=keywords
    ):
        found.add(message if isinstance(message, str) else message[0])
    return found


def test_babel_cfg_is_in_the_repository() -> None:
    text = (REPO / "babel.cfg").read_text()
    assert "[python: hollywood_gin/web/**.py]" in text
    assert "[jinja2: templates/**.html]" in text


def test_template_is_in_step_with_the_sources() -> None:
    pot = {m.id for m in template() if m.id}
    assert source_msgids() == pot


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_message_is_translated(lang: str) -> None:
    pot = {m.id for m in template() if m.id}
    cat = catalog(lang)
    ids = {m.id for m in cat if m.id}
    assert ids == pot
    untranslated = [m.id for m in cat if m.id and not m.string]
    fuzzy = [m.id for m in cat if m.id and m.fuzzy]
    assert untranslated == []
    assert fuzzy == []


def placeholders(text: str) -> list[str]:
    return sorted(re.findall(r"\{\w+\}|%\(\w+\)s", text))


@pytest.mark.parametrize("lang", LANGUAGES)
def test_placeholders_are_kept(lang: str) -> None:
    for message in catalog(lang):
        if message.id:
            assert placeholders(message.string) == placeholders(message.id), message.id


@pytest.mark.parametrize("lang", OTHER_LANGUAGES)
def test_no_english_copied_into_other_languages(lang: str) -> None:
    copied = [m.id for m in catalog(lang) if m.id and m.string == m.id]
    assert set(copied) <= SAME_AS_ENGLISH, set(copied) - SAME_AS_ENGLISH


def test_no_compiled_catalog_is_committed() -> None:
    ignored = (REPO / ".gitignore").read_text()
    assert "hollywood_gin/locales/*/LC_MESSAGES/*.mo" in ignored


CARDS = [r + s for s in "CDHS" for r in "A23456789TJQK"]


@pytest.mark.parametrize(
    ("lang", "card", "name"),
    [
        ("en", "7H", "seven of hearts"),
        ("en", "TD", "ten of diamonds"),
        ("de", "7H", "Herz Sieben"),
        ("de", "QS", "Pik Dame"),
        ("da", "7H", "hjerter syv"),
        ("da", "AC", "klør es"),
        ("hu", "7H", "kőr hetes"),
        ("hu", "KD", "káró király"),
        ("et", "7H", "ärtu seitse"),
        ("et", "JS", "poti poiss"),
    ],
)
def test_card_names(lang: str, card: str, name: str) -> None:
    assert card_name(Catalogs(), lang, card) == name


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_card_has_its_own_name(lang: str) -> None:
    catalogs = Catalogs()
    names = {card_name(catalogs, lang, c) for c in CARDS}
    assert len(names) == 52


@pytest.mark.parametrize("lang", LANGUAGES)
def test_client_strings_are_the_catalog(lang: str) -> None:
    strings = Catalogs().client_strings(lang)
    assert set(strings) == set(CLIENT_STRINGS)
    if lang != "en":
        assert strings["turn.draw"] != CLIENT_STRINGS["turn.draw"]


# The Hollywood page in de, da and hu is the site's own seed text (shared/seeds), with
# the seed's slips mended: German "Rommé" alone is another game (Gin-Rommé), Hungarian
# takes "a" or "az" by the word that follows, never "a(z)".
SEED_SENTENCES = {
    "de": [
        "Die Spielregeln ändern sich nicht, nur die Wertung.",
        "Wie sich die Hollywood-Wertung von den Standardregeln für Gin-Rommé unterscheidet",
        "Gesamtsieger ist meist, wer zwei der drei Spiele gewinnt.",
    ],
    "da": [
        "Spillereglerne ændres ikke, kun pointberegningen.",
        "Hvordan Hollywood-point adskiller sig fra standardreglerne for Gin Rummy",
        "nogle turneringer spilles til 250 point pr. spil.",
    ],
    "hu": [
        "Mi a hollywoodi pontozás?",
        "A játékszabályok nem változnak, csak a pontozás.",
        "egyes versenyeket pedig játszmánként 250 pontig játszanak.",
    ],
}


@pytest.mark.parametrize("lang", list(SEED_SENTENCES))
def test_hollywood_page_is_the_seed_text(lang: str, tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from hollywood_gin.config import Settings
    from hollywood_gin.main import create_app

    with TestClient(
        create_app(Settings(data_file=tmp_path / "t.sqlite3", allowed_hosts=["testserver"]))
    ) as client:
        text = client.get(f"/{lang}/variants/hollywood").text
    for sentence in SEED_SENTENCES[lang]:
        assert sentence in text


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("de", "de"),
        ("da-DK", "da"),
        ("en-GB;q=0.4, hu;q=0.8", "hu"),
        ("fr, et;q=0.1", "et"),
        ("fr, es", None),
        ("", None),
        ("de;q=0", None),
        ("de;q=abc, da", "da"),
        ("*", None),
    ],
)
def test_negotiate(header: str, expected: str | None) -> None:
    assert negotiate(header) == expected


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80))
def test_negotiate_never_fails(header: str) -> None:
    assert negotiate(header) in (None, *LANGUAGES)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from([*LANGUAGES, "fr", "es", "zh"]), st.integers(1, 1000)),
        min_size=1,
        max_size=6,
    )
)
def test_negotiate_picks_the_highest_quality(tags: list[tuple[str, int]]) -> None:
    header = ", ".join(f"{tag};q={q / 1000:.3f}" for tag, q in tags)
    ours = [(q, -i, tag) for i, (tag, q) in enumerate(tags) if tag in LANGUAGES]
    expected = max(ours)[2] if ours else None
    assert negotiate(header) == expected
