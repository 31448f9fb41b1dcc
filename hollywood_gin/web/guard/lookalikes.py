"""Names that look like other names (docs/protocol-guide.md "Limits"): Unicode TR39
confusables, scripts and the marks that draw nothing.

The confusable data is Unicode's `confusables.txt` as the `confusable-homoglyphs`
package ships it: for each character, the characters (and short sequences) it can be
taken for. Characters that can be taken for each other are put in one class and each
class is written as one member (an ASCII letter or digit where the class has one), so
`skeleton("Сomputer")` (Cyrillic С), `skeleton("Cοmputer")` (Greek ο) and
`skeleton("C0mputer")` all equal `skeleton("Computer")`. TR39's own skeleton maps each
character to a fixed prototype; classes are coarser (a chain of pairs joins them), which
only ever makes more names alike, never fewer.
"""

from __future__ import annotations

import functools
import json
import unicodedata
from importlib import resources

from confusable_homoglyphs import categories

# Default-ignorable code points (Unicode DerivedCoreProperties) that are not format
# characters (those are refused by category already): they draw nothing, so
# "Bob" + one of them looks like "Bob". Variation selectors are let through right after
# a symbol (an emoji's presentation: "❤️").
_IGNORABLE = frozenset(
    [
        *(0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180B, 0x180C, 0x180D, 0x180F, 0x3164),
        0xFFA0,
        *range(0xFE00, 0xFE10),
        *range(0xE0100, 0xE01F0),
        0x2800,  # the braille blank: not ignorable, but blank
    ]
)
_VARIATION_SELECTORS = frozenset(range(0xFE00, 0xFE10)) | frozenset(range(0xE0100, 0xE01F0))
# Scripts that are written together (TR39 "highly restrictive").
_TOGETHER = (
    frozenset({"LATIN", "HAN", "HIRAGANA", "KATAKANA"}),
    frozenset({"LATIN", "HAN", "HANGUL"}),
    frozenset({"LATIN", "HAN", "BOPOMOFO"}),
)
_NO_SCRIPT = frozenset({"COMMON", "INHERITED"})


def invisible_mark(name: str) -> str | None:
    """The first character of `name` that draws nothing (besides format characters),
    else None."""
    previous = ""
    for ch in name:
        code = ord(ch)
        if code in _IGNORABLE:
            after_symbol = previous and unicodedata.category(previous)[0] == "S"
            if not (code in _VARIATION_SELECTORS and after_symbol):
                return ch
        previous = ch
    return None


def mixed_script_word(name: str) -> str | None:
    """The first word of `name` whose letters come from scripts not written together
    (Cyrillic "Во" + Latin "b"), else None."""
    for word in name.split():
        scripts = {
            categories.alias(ch) for ch in word if unicodedata.category(ch)[0] in "LM"
        } - _NO_SCRIPT
        if len(scripts) > 1 and not any(scripts <= group for group in _TOGETHER):
            return word
    return None


@functools.cache
def _classes() -> dict[str, str]:
    """Each confusable character's class, written as one member."""
    data = json.loads(
        resources.files("confusable_homoglyphs").joinpath("confusables.json").read_text("utf-8")
    )
    parent: dict[str, str] = {}

    def find(ch: str) -> str:
        root = ch
        while parent.get(root, root) != root:
            root = parent[root]
        while parent.get(ch, ch) != root:  # path compression
            parent[ch], ch = root, parent[ch]
        return root

    def rank(ch: str) -> tuple[int, int]:
        # The member that writes the class: an ASCII letter (lower case first), else an
        # ASCII digit, else any letter or digit, else the smallest.
        if ch.isascii() and ch.isalpha():
            return (0 if ch.islower() else 1, ord(ch))
        if ch.isascii() and ch.isdigit():
            return (2, ord(ch))
        return (3 if ch.isalnum() else 4, ord(ch))

    def join(a: str, b: str) -> None:
        a, b = find(a), find(b)
        if a != b:
            first, second = sorted((a, b), key=rank)
            parent[second] = first

    for key, entries in data.items():
        if len(key) != 1:
            continue  # sequences ("rn" for "m") are handled in `skeleton`
        for entry in entries:
            if len(entry["c"]) == 1:
                join(key, entry["c"])
    return {ch: find(ch) for ch in parent}


# Sequences TR39 takes for one letter, folded before the classes.
_SEQUENCES = (("rn", "m"), ("vv", "w"), ("cl", "d"))


def skeleton(name: str) -> str:
    """Letters and digits only, each written as its confusable class, case-folded:
    names that look alike have the same skeleton."""
    classes = _classes()
    text = unicodedata.normalize("NFD", unicodedata.normalize("NFKC", name))
    kept = []
    for ch in text:
        # Each character as its class; then case folded ("O" for "0" folds to "o")
        # and taken as its class once more.
        written = classes.get(ch, ch)
        folded = unicodedata.normalize("NFD", written.casefold())
        written = "".join(classes.get(c, c) for c in folded)
        # A letter or digit, or a sign that passes for an ASCII one ("∁"); punctuation
        # whose class holds some letter ("-" and Coptic "ⲻ") is still punctuation.
        if ch.isalnum() or (written.isascii() and written.isalnum()):
            kept.append(written)
    folded = "".join(kept)
    for sequence, letter in _SEQUENCES:
        folded = folded.replace(sequence, letter)
    return folded
