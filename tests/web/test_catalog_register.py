"""Words a reader trips over: online and offline the right way round in every
sentence that says either, Danish possessives that break on names ending in s, one
register per language (Hungarian informal, German without the generic masculine),
and the page's presence dot saying `online` for a connected player.

The words are written here from the languages themselves, not read from the catalogs.
"""

from __future__ import annotations

import re

import pytest

from hollywood_gin.web.http.i18n import CLIENT_STRINGS
from tests.conftest import REPO
from tests.web.test_catalog_words import OTHER_LANGUAGES, translations

ONLINE = {"de": ["online"], "da": ["online"], "hu": ["elérhető", "online"], "et": ["võrgus"]}
OFFLINE = {
    "de": ["offline"],
    "da": ["offline"],
    "hu": ["nem elérhető", "nincs kapcsolat", "offline"],
    "et": ["võrgust väljas", "võrguta"],
}


def says(msgid: str, word: str) -> bool:
    return re.search(rf"\b{word}\b", msgid, re.IGNORECASE) is not None


def without(text: str, words: list[str]) -> str:
    for w in words:
        text = text.replace(w, " ")
    return text


@pytest.mark.parametrize("lang", OTHER_LANGUAGES)
def test_online_and_offline_are_the_right_way_round_in_every_sentence(lang: str) -> None:
    sentences = 0
    for msgid, text in translations(lang).items():
        text = text.lower()
        if says(msgid, "offline"):
            sentences += 1
            assert any(w in text for w in OFFLINE[lang]), (msgid, text)
            # "nem elérhető" holds "elérhető", "võrgust" holds "võrgus": offline words out first.
            assert not any(w in without(text, OFFLINE[lang]) for w in ONLINE[lang]), (msgid, text)
        if says(msgid, "online"):
            sentences += 1
            assert any(w in without(text, OFFLINE[lang]) for w in ONLINE[lang]), (msgid, text)
            assert not any(w in text for w in OFFLINE[lang]), (msgid, text)
    assert sentences >= 5  # "online", "offline" and the sentences around them


def test_the_presence_dot_says_online_for_a_connected_player() -> None:
    render = (REPO / "static" / "js" / "render.js").read_text()
    assert 'connected ? t("online") : t("offline")' in render
    assert CLIENT_STRINGS["online"] == "online" and CLIENT_STRINGS["offline"] == "offline"


def test_danish_never_glues_an_s_to_a_name() -> None:
    """Danish "{name}s tur" gives "Larss tur": the name stands alone ("Tur: {name}")."""
    for msgid, text in translations("da").items():
        assert not re.search(r"\{\w+\}s\b", text), (msgid, text)


def test_hungarian_speaks_to_the_player_informally() -> None:
    """The catalog says "te" ("próbáld"): "Kérjük" (the formal "we ask you") mixes registers."""
    for msgid, text in translations("hu").items():
        assert not re.search(r"\bKérjük\b|\bKérem\b|\bÖn\b|\bÖnt\b", text), (msgid, text)


def test_german_names_no_one_in_the_masculine_and_says_what_is_happening() -> None:
    de = translations("de")
    for msgid, text in de.items():
        # "Ihren Freund": the other player is anyone; "jemand", "die andere Person".
        assert not re.search(r"\bFreund(e|es|en)?\b", text), (msgid, text)
    assert de["Connecting…"] != "Verbinde…"  # "(I) connect…": the page is not a person
    # A role beside a name ("Ann: 7 · knocker"): what the player did, not "klopft".
    assert de["knocker"].lower() != "klopft"
