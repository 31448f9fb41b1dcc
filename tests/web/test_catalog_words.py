"""The words of the catalogs: antonyms not swapped, the seed's slips gone, Hungarian
articles that fit the word, and headers without Babel's placeholders.

The expected words are written here from the languages themselves, not copied from
the catalogs: a swapped pair (online shown as "offline") fails."""

from __future__ import annotations

import re

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

from hollywood_gin.web.http.i18n import LANGUAGES, LOCALES_DIR

OTHER_LANGUAGES = [lang for lang in LANGUAGES if lang != "en"]


def catalog(lang: str) -> Catalog:
    with (LOCALES_DIR / lang / "LC_MESSAGES" / "messages.po").open("rb") as f:
        return read_po(f, locale=lang)


def translations(lang: str) -> dict[str, str]:
    return {str(m.id): str(m.string) for m in catalog(lang) if m.id}


# Short labels: the whole translation is one of these words (case aside).
EXACT: dict[str, dict[str, set[str]]] = {
    "online": {
        "de": {"online"},
        "da": {"online"},
        "hu": {"online", "elérhető"},
        "et": {"võrgus", "online"},
    },
    "offline": {
        "de": {"offline"},
        "da": {"offline"},
        "hu": {"offline", "nem elérhető"},
        "et": {"võrgust väljas", "offline"},
    },
    "easy": {"de": {"leicht"}, "da": {"let"}, "hu": {"könnyű"}, "et": {"lihtne", "kerge"}},
    "hard": {"de": {"schwer"}, "da": {"svær"}, "hu": {"nehéz"}, "et": {"raske"}},
    "Easy": {"de": {"leicht"}, "da": {"let"}, "hu": {"könnyű"}, "et": {"lihtne", "kerge"}},
    "Hard": {"de": {"schwer"}, "da": {"svær"}, "hu": {"nehéz"}, "et": {"raske"}},
    "Yes": {"de": {"ja"}, "da": {"ja"}, "hu": {"igen"}, "et": {"jah"}},
    "Cancel": {
        "de": {"abbrechen"},
        "da": {"annuller", "fortryd"},
        "hu": {"mégse"},
        "et": {"loobu", "tühista"},
    },
    "Take": {
        "de": {"nehmen"},
        "da": {"tag"},
        "hu": {"felveszem", "felvétel"},
        "et": {"võtan", "võta"},
    },
    "Pass": {
        "de": {"passen"},
        "da": {"pas"},
        "hu": {"passz", "passzolok"},
        "et": {"ei võta", "pass", "passin"},
    },
    "Winner": {"de": {"gewinner"}, "da": {"vinder"}, "hu": {"győztes"}, "et": {"võitja"}},
}

# Pairs whose words must not trade places. Each side: words one of which must appear,
# and the other side's words must not.
FACE_DOWN = {"de": ["verdeckt"], "da": ["bagsiden op"], "hu": ["lefelé"], "et": ["allapoole"]}
FACE_UP = {"de": ["offen"], "da": ["billedsiden op"], "hu": ["felfelé"], "et": ["avatult", "üles"]}
WON = {
    "de": ["gewonnen", "gewinnt"],
    "da": ["vundet", "vandt", "vinder"],
    "hu": ["nyer"],
    "et": ["võit", "võid"],
}
LOST = {"de": ["verlor"], "da": ["tab"], "hu": ["veszt"], "et": ["kaot"]}
OFFLINE = {lang: sorted(words) for lang, words in EXACT["offline"].items()}

CONTAINS: list[tuple[str, dict[str, list[str]], dict[str, list[str]]]] = [
    ("Choose the card to discard face down", FACE_DOWN, FACE_UP),
    ("Discarded face down: {card}", FACE_DOWN, FACE_UP),
    ("After that, every turn has two parts", FACE_UP, FACE_DOWN),
    ("won by {name}", WON, LOST),
    ("{name} knocked and won", WON, LOST),
    ("{name} wins the match", WON, LOST),
    ("{name} is offline — the game waits", OFFLINE, {}),
]


@pytest.mark.parametrize("lang", OTHER_LANGUAGES)
@pytest.mark.parametrize("msgid", list(EXACT))
def test_short_labels_say_what_they_mean(lang: str, msgid: str) -> None:
    assert translations(lang)[msgid].lower() in EXACT[msgid][lang]


@pytest.mark.parametrize("lang", OTHER_LANGUAGES)
@pytest.mark.parametrize(("start", "wanted", "unwanted"), CONTAINS)
def test_antonyms_are_not_swapped(
    lang: str, start: str, wanted: dict[str, list[str]], unwanted: dict[str, list[str]]
) -> None:
    [text] = [s.lower() for m, s in translations(lang).items() if m.startswith(start)]
    assert any(w in text for w in wanted[lang]), text
    # The words of the other side, except where they are part of a wanted word
    # ("nem elérhető" holds "elérhető").
    rest = text
    for w in wanted[lang]:
        rest = rest.replace(w, " ")
    assert not any(w in rest for w in unwanted.get(lang, [])), text


# What the product's source pages got wrong, and the catalogs must not repeat.
SLIPS: dict[str, list[str]] = {
    # Rommé alone is another game; the game is Gin-Rommé. A drawn match ends
    # "unentschieden" ("ausgeglichen" is said of an account).
    "de": [r"(?<!Gin-)(?<!Gin )Rommé", r"ausgeglichen"],
    # "commitment" is a hash here, not a legal obligation; "sæt tempoet lidt ned"
    # (the adverb after the object).
    "da": [r"forpligtelse", r"sæt lidt tempoet"],
    # "nem lett elküldve" is a calque of the English passive.
    "hu": [r"a\(z\)", r"kötelezettség", r"Rummy", r"lett elküldve"],
    # The game's word is "gin", as in Straight Gin; face down is "pildiga allapoole".
    # Passing the upcard is not giving up ("loobun"): "ei võta". The fingerprint is
    # the whole deck's, "kaardipakk": the bare "pakk" is the stock here.
    "et": [r"džinn", r"tagurpidi", r"^Loobun$", r"^Paki sõrmejälg"],
}


@pytest.mark.parametrize("lang", list(SLIPS))
def test_the_seed_slips_are_gone(lang: str) -> None:
    for msgid, text in translations(lang).items():
        for slip in SLIPS[lang]:
            assert not re.search(slip, text, re.IGNORECASE if slip != "Rummy" else 0), (
                msgid,
                text,
            )


HU_VOWELS = "aáeéiíoóöőuúüű"


def hungarian_article(word: str) -> str:
    """The article a Hungarian reader says before `word`: "az" before a vowel sound.
    A number is said aloud: 1 egy, 5 öt, 50 ötven, 1000 ezer take "az"; 10 tíz,
    100 száz take "a"."""
    if word[0].isdigit():
        digits = re.match(r"\d+", word)
        assert digits is not None
        number = digits.group()
        vowel = number[0] == "5" or (number[0] == "1" and len(number) in (1, 4, 7))
    else:
        vowel = word[0].lower() in HU_VOWELS
    return "az" if vowel else "a"


@pytest.mark.parametrize(
    ("word", "article"),
    [
        ("ász", "az"),
        ("Oklahoma", "az"),
        ("öt", "az"),
        ("kőr", "a"),
        ("Straight", "a"),
        ("1", "az"),
        ("5", "az"),
        ("50", "az"),
        ("1000", "az"),
        ("10", "a"),
        ("100", "a"),
        ("250", "a"),
        ("2", "a"),
    ],
)
def test_hungarian_article_of_a_word(word: str, article: str) -> None:
    assert hungarian_article(word) == article


def test_hungarian_articles_fit_the_word() -> None:
    """No "a(z)"; never an article before a placeholder, whose word is unknown here;
    "a" only where the next word takes "a". ("az" is also the pronoun "that", so
    only "a" is checked.)"""
    for msgid, text in translations("hu").items():
        assert "a(z)" not in text.lower(), (msgid, text)
        assert not re.search(r"(?i)(?<!\w)az? (\{|%\()", text), (msgid, text)
        for word in re.findall(r"(?i)(?<!\w)a (\w+)", text):
            assert hungarian_article(word) == "a", (msgid, text, word)


PLACEHOLDERS = ["EMAIL@ADDRESS", "FULL NAME", "FIRST AUTHOR", "YEAR-MO-DA", "LL@li.org"]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_headers_have_no_placeholders(lang: str) -> None:
    text = (LOCALES_DIR / lang / "LC_MESSAGES" / "messages.po").read_text()
    header = text.split('"Content-Type', 1)[0]
    for placeholder in PLACEHOLDERS:
        assert placeholder not in header, placeholder
    assert not catalog(lang).fuzzy  # the header is not marked fuzzy
    assert f"Language: {lang}\\n" in header
