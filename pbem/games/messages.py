"""Words for players in no language yet: what an engine says (a move's sentence, how a game
ended, why a move was refused, a seat's supplies) as a message of the game's catalog with its
parameters, which the service says in each reader's language (pbem.wording).

A `Message` is a `str` whose value is its English, so that the API's English, logs and anything
that only prints it read it as before; its `key`, `plural` and `params` say it in any language,
and `to_json`/`from_json` store it. Parameters are plain strings said as they are (a cell's
name, a tile's number, a seat placeholder such as "{0}" that `fill_names` fills later), numbers,
other messages, and `Listing`s, said as the reader's language lists things ("a, b and c").

Engines mark their messages' keys for extraction by building them with `Message(...)` and
`Message.counted(...)` (pbem/translations/games.cfg), and build sentences by nesting messages,
never by adding strings: a `Message` added to a `str` is plain English again.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Union

Param = Union[str, int, "Message", "Listing"]


def N_(text: str) -> str:
    """Text of a game's catalog, marked for extraction: a message key kept for later
    (`Message(KEY, ...)`) or text of the game's guide, translated where it is shown."""
    return text


def seat_ref(seat: int) -> str:
    """A seat as a message names it: the placeholder "{0}" that `fill_names` fills with a name."""
    return f"{{{seat}}}"


class Listing(tuple[Param, ...]):
    """Items said as a list: "a and b", "a, b and c" in English."""

    __slots__ = ()


class Message(str):
    """A message of a game's catalog: `key` (English, with `%(name)s` placeholders), its
    `plural` when it counts something (chosen by the parameter `n`), and `params`."""

    key: str
    plural: str | None
    params: dict[str, Param]

    def __new__(cls, key: str, /, **params: Param) -> Message:
        return cls._made(key, None, params)

    @classmethod
    def counted(cls, singular: str, plural: str, n: int, /, **params: Param) -> Message:
        """A message that counts `n` things: English picks `singular` for one and `plural` else;
        other languages by their plural rules."""
        return cls._made(singular, plural, {**params, "n": n})

    @classmethod
    def _made(cls, key: str, plural: str | None, params: Mapping[str, Param]) -> Message:
        for name, value in params.items():
            if not isinstance(value, str | int | Listing):
                raise TypeError(f"message parameter {name!r} is a {type(value).__name__}")
        english = say(key, plural, dict(params), ENGLISH)
        made = super().__new__(cls, english)
        made.key = key
        made.plural = plural
        made.params = dict(params)
        return made

    def __reduce__(self) -> tuple[Any, ...]:
        return (Message.from_json, (self.to_json(),))

    def to_json(self) -> dict[str, Any]:
        """The message as JSON: {"key", "params"} and "plural" when it has one."""
        out: dict[str, Any] = {
            "key": self.key,
            "params": {k: _param_json(v) for k, v in self.params.items()},
        }
        if self.plural is not None:
            out["plural"] = self.plural
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Message:
        """The message `to_json` gave; ValueError when `data` is not one."""
        key = data.get("key")
        plural = data.get("plural")
        params = data.get("params", {})
        if not isinstance(key, str) or not isinstance(params, Mapping):
            raise ValueError("a stored message needs a key and its parameters")
        if plural is not None and not isinstance(plural, str):
            raise ValueError("a stored message's plural is text")
        return cls._made(key, plural, {str(k): _param_from_json(v) for k, v in params.items()})

    def say(self, language: Language) -> str:
        """The message in `language` (pbem.wording gives one per reader)."""
        if language is ENGLISH:
            return str.__str__(self)
        return say(self.key, self.plural, self.params, language)


class Language:
    """How to say messages in one language: its catalog's gettext and ngettext, and its way of
    listing things. The engines only ever use ENGLISH; the service makes the others."""

    def __init__(
        self,
        gettext: Callable[[str], str],
        ngettext: Callable[[str, str, int], str],
        listing: Callable[[Sequence[str]], str],
    ) -> None:
        self.gettext = gettext
        self.ngettext = ngettext
        self.listing = listing

    def __call__(self, key: str, /, **params: Param) -> str:
        """The catalog's `key` with `params`, in this language: `Message(key, **params)` said
        at once, for words an engine draws rather than stores."""
        if self is ENGLISH and all(type(v) is str or type(v) is int for v in params.values()):
            # The drawings' common case, a tile's every piece: nothing to look up or say.
            return key % params if params else key
        return say(key, None, params, self)

    def counted(self, singular: str, plural: str, n: int, /, **params: Param) -> str:
        """`Message.counted` said at once in this language."""
        return say(singular, plural, {**params, "n": n}, self)


def english_listing(items: Sequence[str]) -> str:
    """Words joined as an English sentence lists them: `a`, `a and b`, `a, b and c`."""
    if len(items) < 2:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


ENGLISH = Language(lambda key: key, lambda one, many, n: one if n == 1 else many, english_listing)


def say(key: str, plural: str | None, params: Mapping[str, Param], language: Language) -> str:
    """The message `key` (or its `plural`, by `params["n"]`) in `language`, its parameters said
    in the same language."""
    if plural is None:
        text = language.gettext(key)
    else:
        count = params.get("n")
        text = language.ngettext(key, plural, count if isinstance(count, int) else 0)
    if not params:
        return text
    return text % {name: _said(value, language) for name, value in params.items()}


def _said(value: Param, language: Language) -> str | int:
    if isinstance(value, Message):
        # A message's English is its value, made once when it was.
        return str.__str__(value) if language is ENGLISH else value.say(language)
    if isinstance(value, Listing):
        return language.listing([str(_said(item, language)) for item in value])
    return value


def _param_json(value: Param) -> Any:
    if isinstance(value, Message):
        return value.to_json()
    if isinstance(value, Listing):
        return {"list": [_param_json(item) for item in value]}
    return value


def _param_from_json(value: Any) -> Param:
    if isinstance(value, bool):
        raise ValueError("a stored message's parameter is text, a number, a message or a list")
    if isinstance(value, str | int):
        return value
    if isinstance(value, Mapping) and "list" in value and isinstance(value["list"], list):
        return Listing(_param_from_json(item) for item in value["list"])
    if isinstance(value, Mapping) and "key" in value:
        return Message.from_json(value)
    raise ValueError("a stored message's parameter is text, a number, a message or a list")
