"""A game's name as its organiser types it: one line of 1 to 60 printable characters, with no
address or link, stored cleaned; every refusal says what is wrong and what to do."""

from __future__ import annotations

import pytest

from pbem.domain.titles import MAX_LENGTH, BadTitle, clean_title, optional_title


@pytest.mark.parametrize(
    ("typed", "stored"),
    [
        ("Friday Club", "Friday Club"),
        ("  Friday \t  Club  ", "Friday Club"),  # trimmed, inner whitespace one space
        ("Cafe\u0301 night", "Café night"),  # NFC: the accent joins its letter
        ("Партия у Пети", "Партия у Пети"),
        ("گروه\u200cما", "گروه\u200cما"),  # the joiner Persian needs is kept
        ("<b>Bold</b> & co", "<b>Bold</b> & co"),  # plain text: pages and mail escape it
        ("x" * MAX_LENGTH, "x" * MAX_LENGTH),
        ("7", "7"),
    ],
)
def test_a_name_is_stored_cleaned(typed: str, stored: str) -> None:
    assert clean_title(typed) == stored


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("", "at least one visible character"),
        ("   ", "at least one visible character"),
        ("\u200d", "at least one visible character"),
        ("x" * (MAX_LENGTH + 1), f"at most {MAX_LENGTH} characters; this one has 61"),
        ("y" * 5000, "at most 60 characters; this one has 5000"),
        ("Friday\nClub", "one line: remove the line break"),
        ("Friday\u2028Club", "one line"),
        ("Friday\x00Club", r"a control character \(U\+0000\)"),
        ("Friday\u202eClub", "invisible formatting character"),
        ("Friday\ue000Club", "private-use character"),
        ("mail bob@example.org", "holds an address or a link"),
        ("bob＠example.org", "holds an address or a link"),
        ("see https://spam.example", "holds an address or a link"),
        ("visit www.spam.example", "holds an address or a link"),
    ],
)
def test_what_cannot_be_a_name_is_refused_with_the_reason(typed: str, said: str) -> None:
    with pytest.raises(BadTitle, match=said) as refused:
        clean_title(typed)
    assert refused.value.code == "bad_title"


def test_a_field_left_empty_is_no_name() -> None:
    assert optional_title(None) is None
    assert optional_title("") is None
    assert optional_title("  \t ") is None
    assert optional_title(" Friday  Club ") == "Friday Club"
    with pytest.raises(BadTitle):
        optional_title("two\nlines")
