"""Messages (pbem.games.messages): English as a str, said in another language part by part,
kept as JSON and pickled without losing what says them."""

from __future__ import annotations

import json
import pickle
import re
from collections.abc import Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pbem.games.messages import ENGLISH, Language, Listing, Message, english_listing, seat_ref


def _shouting(listed: Sequence[str]) -> str:
    return " + ".join(listed)


def _loud(key: str) -> str:
    """The key in capitals, its placeholders as they are."""
    return "".join(p if p.startswith("%(") else p.upper() for p in PLACEHOLDER.split(key))


PLACEHOLDER = re.compile(r"(%\(\w+\)[sd])")
# A language that says every key in capitals and lists with "+": enough to see each part said.
LOUD = Language(_loud, lambda one, many, n: _loud(one if n == 1 else many), _shouting)


def test_a_message_is_its_english() -> None:
    placed = Message("%(seat)s placed a %(n)s on %(cell)s", seat=seat_ref(0), n=2, cell="b3")
    assert placed == "{0} placed a 2 on b3"
    assert isinstance(placed, str) and placed.key == "%(seat)s placed a %(n)s on %(cell)s"


def test_parts_are_said_in_the_same_language() -> None:
    taken = Listing([Message("the %(n)s on %(cell)s", n=1, cell=c) for c in ("a1", "c4")])
    move = Message(
        "%(move)s and captured %(discs)s", move=Message("%(who)s moved", who="{1}"), discs=taken
    )
    assert move == "{1} moved and captured the 1 on a1 and the 1 on c4"
    # The literal parameters (a cell, a seat) are said as they are; the keys are translated.
    assert move.say(LOUD) == "{1} MOVED AND CAPTURED THE 1 ON a1 + THE 1 ON c4"


@pytest.mark.parametrize(("n", "english"), [(1, "1 tile left"), (3, "3 tiles left")])
def test_counted_messages_take_the_plural_of_their_number(n: int, english: str) -> None:
    left = Message.counted("%(n)s tile left", "%(n)s tiles left", n)
    assert left == english and left.say(ENGLISH) == english
    assert left.plural == "%(n)s tiles left"


def test_english_lists_without_a_serial_comma() -> None:
    listed = english_listing
    assert [listed([]), listed(["a"]), listed(["a", "b"]), listed(["a", "b", "c"])] == [
        "",
        "a",
        "a and b",
        "a, b and c",
    ]


def test_three_items_are_listed_as_english_lists_them() -> None:
    assert Message("%(items)s", items=Listing(["a", "b", "c"])) == "a, b and c"
    assert Message("%(items)s", items=Listing([])) == ""


def test_json_and_pickle_keep_what_says_it() -> None:
    inner = Message.counted("%(n)s fish", "%(n)s fish", 4)
    message = Message(
        "%(who)s wins %(what)s; %(also)s", who="{0}", what=inner, also=Listing(["x", inner])
    )
    for again in (
        Message.from_json(json.loads(json.dumps(message.to_json()))),
        pickle.loads(pickle.dumps(message)),
    ):
        assert again == message and again.to_json() == message.to_json()
        assert again.say(LOUD) == message.say(LOUD)


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"key": 3},
        {"key": "a", "params": []},
        {"key": "a", "plural": 2},
        {"key": "%(x)s", "params": {"x": True}},
        {"key": "%(x)s", "params": {"x": [1]}},
        {"key": "%(x)s", "params": {"x": {"nothing": 1}}},
    ],
)
def test_what_is_not_a_stored_message_is_refused(data: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        Message.from_json(data)


def test_a_parameter_must_be_sayable() -> None:
    with pytest.raises(TypeError):
        Message("%(x)s", x=1.5)  # type: ignore[arg-type]


texts = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12)
params = st.recursive(
    st.one_of(texts, st.integers(-1000, 1000)),
    lambda inner: st.one_of(
        st.builds(lambda v: Message("<%(v)s>", v=v), inner),
        st.lists(inner, max_size=3).map(Listing),
    ),
    max_leaves=8,
)


@given(params)
def test_any_message_survives_its_json(value: object) -> None:
    message = Message("[%(value)s]", value=value)  # type: ignore[arg-type]
    again = Message.from_json(json.loads(json.dumps(message.to_json())))
    assert again == message and again.say(LOUD) == message.say(LOUD)
