"""Names (docs/protocol-guide.md "Limits"): nothing invisible, something visible, never the
computer's."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st

from hollywood_gin.main import create_app
from hollywood_gin.web.guard import lookalikes
from hollywood_gin.web.socket.messages import clean_name, stacked_marks, wide_glyph
from tests.tables.helpers import make_settings


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    path = tmp_path_factory.mktemp("names")
    settings = make_settings(path, tables_per_hour_per_address=10_000, http_burst=10_000)
    with TestClient(create_app(settings)) as c:
        yield c


@pytest.mark.parametrize(
    "name",
    [
        "\u200b",  # zero-width space
        "\u200b\u200c\u200d",
        "Ann\u200b",
        "\u061cAnn",  # Arabic letter mark
        "An\u2060n",  # word joiner
        "\ufeffAnn",  # byte order mark
        "\u3164",  # Hangul filler: a letter that draws nothing
        "\u2800\u2800",  # braille blank
        "\u0301",  # a lone combining accent
        "Ann\u2028Bob",  # line separator
        "Ann\u0007",
        "Computer (hard)",
        "computer",
        "COMPUTER (easy)",
        "Computer(normal)",
        "Ｃｏｍｐｕｔｅｒ (hard)",  # fullwidth
        "Computer \u2013 hard",
        # Lookalikes (TR39 confusables) and marks that draw nothing.
        "\u0421omputer (hard)",  # Cyrillic С
        "Comput\u0435r",  # Cyrillic е
        "C\u03bfmputer",  # Greek ο
        "C0mputer",
        "Cornputer",
        "\U0001d402\U0001d428\U0001d426\U0001d429\U0001d42e\U0001d42d\U0001d41e\U0001d42b",
        "\u0412\u043eb",  # Cyrillic В, о + Latin b: "Воb"
        "Bob\u034f",  # combining grapheme joiner
        "Bob\ufe0f",  # variation selector 16 after a letter
        "Bob\ufe00",
        "Bob\u17b4",  # Khmer inherent vowel
        "Bob\u3164",  # Hangul filler after a name
        "B\U000e0100ob",
        # Marks stacked over the sheet, glyphs drawn across it.
        "A" + "\u0301" * 23,
        "A\u0301\u0301\u0301",  # three diacritics on one letter
        "\u1ec7\u0301",  # Vietnamese e with two diacritics precomposed, and a third
        "\u0f66" + "\u0f92" * 5,  # five Tibetan subjoined letters in one stack
        "\ufdfd" * 24,
        "Ann \ufdfd",
        "\ua9c5",  # Javanese pada luhur
        "Bob\u2e3b",  # three-em dash
        "\U0001242b",  # cuneiform nine shar2
    ],
)
def test_refused_names_get_422_and_create_nothing(client: TestClient, name: str) -> None:
    r = client.post("/api/tables", json={"name": name})
    assert r.status_code == 422, (name, r.text)
    assert r.json()["error"] == "bad_request" and r.json()["field"] == "name"
    made = client.post("/api/tables", json={"name": "Ann"}).json()
    r = client.post(f"/api/tables/{made['table_id']}/seats", json={"name": name})
    assert r.status_code == 422
    facts = client.get(f"/api/tables/{made['table_id']}").json()
    assert facts["open_seats"] == [1]


@pytest.mark.parametrize(
    "name",
    [
        "Ann",
        "Zoë",
        "Åse",
        "Jürgen",
        "李雷",
        "Ólafur",
        "🂡 Ace",
        "Ann-Kathrin",
        "Comp",
        "Иван",  # one script, Cyrillic
        "Ωμέγα Ann",  # a Greek word and a Latin one
        "Ann \u2764\ufe0f",  # an emoji's presentation selector after the symbol
        "山田 Taro",
        "Łukasz",
        "Compute",
        "Nguy\u1ec5n Th\u1ecb",  # Vietnamese: two diacritics on a letter
        "Nguye\u0302\u0303n",  # the same, decomposed
        "\u0f66\u0f92\u0fb2\u0f7c\u0f63\u0f0b\u0f58",  # Tibetan Dolma: a stack of four marks
        "\u0915\u094d\u0937\u093f\u0924\u093f",  # Hindi Kshiti
    ],
)
def test_ordinary_names_pass(client: TestClient, name: str) -> None:
    r = client.post("/api/tables", json={"name": name})
    assert r.status_code == 201, r.text
    facts = client.get(f"/api/tables/{r.json()['table_id']}").json()
    assert facts["players"][0]["name"] == name


@given(st.text(max_size=30))
def test_an_accepted_name_is_visible_and_holds_nothing_invisible(text: str) -> None:
    try:
        name = clean_name(text)
    except ValueError:
        return
    if name is None:
        assert text.strip() == ""
        return
    assert 1 <= len(name) <= 24
    assert not any(unicodedata.category(ch) in ("Cf", "Cc", "Zl", "Zp") for ch in name)
    assert any(unicodedata.category(ch)[0] in "LNPS" for ch in name)
    assert not unicodedata.normalize("NFKC", name).casefold().startswith("computer")
    assert not lookalikes.skeleton(name).startswith(lookalikes.skeleton("computer"))
    assert lookalikes.invisible_mark(name) is None
    assert not stacked_marks(name) and wide_glyph(name) is None


def test_lookalikes_share_a_skeleton() -> None:
    computer = lookalikes.skeleton("Computer")
    for name in ("\u0421omputer", "Comput\u0435r", "C\u03bfmputer", "C0mputer", "COMPUTER"):
        assert lookalikes.skeleton(name) == computer, name
    assert lookalikes.skeleton("\u0412\u043eb") == lookalikes.skeleton("Bob")
    assert lookalikes.skeleton("Ann") != lookalikes.skeleton("Bob")
