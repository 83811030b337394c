"""Display names: what a name may be, how an invitee is written, how each seat is called."""

from __future__ import annotations

import pytest

from pbem.domain.errors import SetupError
from pbem.domain.names import (
    MAX_LENGTH,
    BadName,
    Invitee,
    clean_name,
    display_names,
    optional_name,
    parse_invitee,
    seat_colours,
)


@pytest.mark.parametrize(
    ("typed", "stored"),
    [
        ("Alice", "Alice"),
        ("  Alice \t  Smith  ", "Alice Smith"),
        ("Zoe\u0308", "Zoë"),  # NFC: one character, as typed on another keyboard
        ("Ana\u00a0María", "Ana María"),  # a no-break space is a space
        (
            "<script>alert(1)</script>",
            "<script>alert(1)</script>",
        ),  # plain text, escaped when shown
        (
            "\u0645\u06cc\u200c\u062e\u0648\u0627\u0645",
            "\u0645\u06cc\u200c\u062e\u0648\u0627\u0645",
        ),
        ("👩\u200d👩\u200d👧", "👩\u200d👩\u200d👧"),  # joiners real names and emoji need
        ("x" * MAX_LENGTH, "x" * MAX_LENGTH),
    ],
)
def test_a_name_is_trimmed_collapsed_and_kept(typed: str, stored: str) -> None:
    assert clean_name(typed) == stored


@pytest.mark.parametrize(
    ("typed", "reason"),
    [
        ("", "at least one visible character"),
        ("   ", "at least one visible character"),
        ("\u200d", "at least one visible character"),
        ("x" * (MAX_LENGTH + 1), "at most 40 characters; this one has 41"),
        ("x" * 100_000, "at most 40 characters"),
        ("Alice\nSmith", "one line"),
        ("Alice\u2028Smith", "one line"),
        ("Alice\x00", "control character"),
        ("Al\u202eice", "U+202E RIGHT-TO-LEFT OVERRIDE"),
        ("Al\u200bice", "U+200B ZERO WIDTH SPACE"),
        ("Alice\ue000", "private-use"),
        ("alice@example.org", "must not carry an address"),
        ("Alice (alice@example.org)", "must not carry an address"),
        ("alice＠example.org", "must not carry an address"),  # a full-width at sign
    ],
)
def test_a_name_that_cannot_be_one_is_refused_saying_why(typed: str, reason: str) -> None:
    with pytest.raises(BadName) as refused:
        clean_name(typed)
    assert reason in refused.value.message
    assert refused.value.code == "bad_name" and refused.value.status == 400


def test_an_empty_name_field_is_no_name() -> None:
    assert optional_name(None) is None and optional_name("  ") is None
    assert optional_name(" Bob ") == "Bob"


@pytest.mark.parametrize(
    ("typed", "invitee"),
    [
        ("bob@example.org", Invitee("bob@example.org")),
        (" Alice Smith <alice@example.org> ", Invitee("alice@example.org", "Alice Smith")),
        ('"Smith, Alice" <alice@example.org>', Invitee("alice@example.org", "Smith, Alice")),
        ("<alice@example.org>", Invitee("alice@example.org")),
        ('"" <alice@example.org>', Invitee("alice@example.org")),
    ],
)
def test_an_invitee_is_an_address_or_a_name_and_an_address(typed: str, invitee: Invitee) -> None:
    assert parse_invitee(typed) == invitee


@pytest.mark.parametrize(
    ("typed", "reason"),
    [
        ("Alice <alice@example.org", "is not one player"),
        ("Alice <alice@example.org> junk", "is not one player"),
        ("Alice <alice@example.org>, Bob <bob@example.org>", "is not one player"),
        ("Al<ice <alice@example.org>", "is not one player"),
        ('"bob@example.org" <alice@example.org>', "must not carry an address"),
        (f'"{"x" * 41}" <alice@example.org>', "at most 40 characters"),
    ],
)
def test_an_invitee_that_is_not_one_player_is_refused(typed: str, reason: str) -> None:
    with pytest.raises(SetupError) as refused:
        parse_invitee(typed)
    assert reason in refused.value.message


def test_seats_without_names_are_called_by_their_colour() -> None:
    assert seat_colours("gorami", 2) == ("Yellow", "Blue")
    assert seat_colours("mmw", 2) == ("Red", "Blue")
    assert seat_colours("marram", 4) == ("Red", "Violet", "White", "Black")
    assert display_names("mmw", [None, None]) == ["Red", "Blue"]
    assert display_names("marram", ["Alice", None, "Carol"]) == ["Alice", "Violet", "Carol"]


def test_an_engine_without_colour_words_numbers_its_seats(countdown_engine: None) -> None:
    assert display_names("countdown", [None, "Bob", None]) == ["Player 1", "Bob", "Player 3"]


def test_seats_that_would_read_alike_are_told_apart() -> None:
    assert display_names("mmw", ["Sam", "Sam"]) == ["Sam (Red)", "Sam (Blue)"]
    assert display_names("mmw", ["sam", "SAM"]) == ["sam (Red)", "SAM (Blue)"]
    # A player named like another seat's colour: the colour stays that seat's.
    assert display_names("mmw", ["Blue", None]) == ["Blue (Red)", "Blue"]
    assert display_names("mmw", [None, "Blue"]) == ["Red", "Blue"]  # their own colour: no clash
    # An invisible joiner does not make a different name.
    assert display_names("gorami", ["Sam", "S\u200dam"]) == ["Sam (Yellow)", "S\u200dam (Blue)"]


def test_even_names_made_to_collide_with_the_told_apart_forms_end_up_distinct() -> None:
    chosen = ["Sam (Violet)", "Sam", "Sam", None]
    shown = display_names("marram", chosen)
    assert len({name.casefold() for name in shown}) == 4
    assert shown[3] == "Black"
    chosen = ["Sam (Violet, seat 2)", "Sam", "Sam (Violet)", "Sam"]
    shown = display_names("marram", chosen)
    assert len({name.casefold() for name in shown}) == 4
