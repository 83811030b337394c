"""The words Marram's drawings write: the last turns and their captions, log events, tile names."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from pbem.games import drawing as d
from pbem.games.marram import words
from pbem.games.marram.geometry import (
    QUADS,
    face_of,
    laid_face,
    parse_piece,
    rot_steps,
    rotate_spoke,
    tile_desc,
)
from pbem.games.marram.seats import dropped, player_names, seat_letter, who
from pbem.games.marram.tiles import SPECIES_NAMES
from pbem.games.messages import ENGLISH, N_, Language, Listing, Message

VARIANT_TITLE = {"classic": "Classic", "pitchfork": "Pitchfork", "animals": "Animals"}
_ACTIONS = ("place", "flip", "pass")
_ACTIONS_PER_TURN = 2  # rules 4.1; rules.ACTIONS_PER_TURN, not imported so drawing needs only
# the view


def turns(view: Mapping[str, Any]) -> list[d.Turn]:
    """Every turn so far, from the log's actions: a seat's consecutive actions, two to a turn
    (rules 4.1); the last may be under way, or cut short by the end of the game."""
    out: list[d.Turn] = []
    for event in view.get("log") or []:
        # A view's log holds dicts; the general check is the slow path for other mappings.
        if not (type(event) is dict or isinstance(event, Mapping)):
            continue
        if event.get("type") not in _ACTIONS:
            continue
        ply, seat = event.get("ply"), event.get("seat")
        if not isinstance(ply, int) or not isinstance(seat, int) or isinstance(seat, bool):
            continue
        last = out[-1] if out else None
        if last and last.seat == seat and len(last.plies) < _ACTIONS_PER_TURN:
            out[-1] = d.Turn(seat, (*last.plies, ply))
        else:
            out.append(d.Turn(seat, (ply,)))
    return out


def marked_turns(view: Mapping[str, Any]) -> list[d.Turn]:
    """The turns the board marks for the view's seat (`drawing.marked_turns`), oldest first."""
    seat = view.get("seat")
    viewer = seat if isinstance(seat, int) and not isinstance(seat, bool) else None
    return d.marked_turns(turns(view), viewer, dropped(view))


def turn_label(turn: d.Turn, index: int) -> str:
    """A mark's badge: the seat's letter and the action's number in its turn ("V2")."""
    return f"{seat_letter(turn.seat)}{index + 1}"


def action_pos(view: Mapping[str, Any], ply: int) -> tuple[int, int] | None:
    """Where the action at `ply` laid or flipped a tile; None for a pass."""
    for event in view.get("log") or []:
        if (
            isinstance(event, Mapping)
            and event.get("ply") == ply
            and event.get("type") in ("place", "flip")
        ):
            return words.event_pos(event)
    return None


def action_positions(view: Mapping[str, Any]) -> dict[int, tuple[int, int] | None]:
    """`action_pos` of every action in the log at once: ply -> where it laid or flipped a tile."""
    found: dict[int, tuple[int, int] | None] = {}
    for event in view.get("log") or []:
        if (type(event) is dict or isinstance(event, Mapping)) and event.get("type") in (
            "place",
            "flip",
        ):
            ply = event.get("ply")
            if isinstance(ply, int) and ply not in found:
                found[ply] = words.event_pos(event)
    return found


def placed_actions(
    positions: Mapping[int, tuple[int, int] | None],
    turn: d.Turn,
    laid: set[tuple[int, int]],
    slots: dict[tuple[int, int], int],
) -> Iterator[tuple[int, tuple[int, int], int]]:
    """Each action of a marked turn on a tile of the board (`positions`: `action_positions`):
    its number in the turn, the tile, and how many marks that tile already has (`slots`,
    shared across turns, is counted up)."""
    for index, ply in enumerate(turn.plies):
        pos = positions.get(ply)
        if pos is None or pos not in laid:
            continue
        slot = slots.get(pos, 0)
        slots[pos] = slot + 1
        yield index, pos, slot


def last_tile(view: Mapping[str, Any]) -> tuple[int, int] | None:
    """The position of the most recent place or flip, when the log names it."""
    for event in reversed(view.get("log") or []):
        if not isinstance(event, Mapping) or event.get("type") not in ("place", "flip"):
            continue
        return words.event_pos(event)
    return None


def departures(view: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The log's seats leaving the game (rules section 9), told beside the last turns."""
    return [
        e for e in view.get("log") or [] if isinstance(e, Mapping) and e.get("type") == "dropped"
    ]


def _laid_at(view: Mapping[str, Any], pos: tuple[int, int]) -> Mapping[str, Any] | None:
    for laid in view.get("board") or []:
        if isinstance(laid, Mapping) and (laid.get("x"), laid.get("y")) == pos:
            return laid
    return None


def _what_is_at(view: Mapping[str, Any], pos: tuple[int, int], loc: str) -> str:
    """What a token at `loc` of the tile at `pos` stands on, in the rules' words: "sand",
    "blue snake"; the location's name when the tile is not known."""
    laid = _laid_at(view, pos)
    if laid is None:
        return loc
    rotation = int(laid.get("rotation") or 0)
    f = laid_face(view, laid)
    if loc in QUADS:
        q = str(f.get("q", ""))
        i = (QUADS.index(loc) - rot_steps(rotation)) % 4
        return {"g": "grass", "s": "sand"}.get(q[i : i + 1], loc)
    for text in f.get("pieces", []):
        species, _, spokes = parse_piece(text)
        if loc in (rotate_spoke(sp, rotation) for sp in spokes):
            return SPECIES_NAMES.get(species, "creature")
    return loc


def action_words(view: Mapping[str, Any], ply: int) -> Message:
    """The sentence for the action at `ply`, seats as placeholders `{0}` for `fill_names`, as
    the move's stored words say it (pbem.games.marram.words): "{2} flipped the tile at (-2,1);
    {0}'s boot there was lost"."""
    log = [e for e in view.get("log") or [] if isinstance(e, Mapping)]
    now = [e for e in log if e.get("ply") == ply]
    mover = next((e.get("seat") for e in now if e.get("type") in _ACTIONS), None)

    def standing_on(event: Mapping[str, Any]) -> str | None:
        pos = words.event_pos(event)
        return None if pos is None else _what_is_at(view, pos, str(event.get("loc")))

    discards = [e for e in log if e.get("ply") == ply + 1 and e.get("type") == "discard"]
    ended = view.get("outcome") is not None and ply == len(view.get("history") or []) - 1
    return words.action_sentence(
        mover, now, standing_on, discards, ended, lambda tid: view_tile_named(view, tid)
    )


def view_tile_named(view: Mapping[str, Any], tile_id: object) -> Message:
    """A tile of the view named by what it shows (`words.tile_named`); by its number alone
    when the view does not describe it."""
    if str(tile_id) not in (view.get("tiles") or {}):
        return words.tile_numbered(tile_id)
    return words.tile_named(tile_id, tile_desc(view, tile_id))


def _score_words(event: Mapping[str, Any], names: Sequence[str], lang: Language) -> str:
    if event.get("feature") == "creature":
        name = words.creature_message(event.get("species"), event.get("valid", True)).say(lang)
    else:
        name = lang(words.REGION_NAMES.get(str(event.get("terrain")), words.REGION_NAMES["s"]))
    winners = event.get("winners") or []
    value = event.get("value", 0)
    if winners:
        by = Listing(who(names, w, lang=lang) for w in winners)
        return lang(
            "%(feature)s completed: %(value)s to %(seats)s", feature=name, value=value, seats=by
        )
    return lang("%(feature)s completed (%(value)s, unclaimed)", feature=name, value=value)


def describe_event(
    event: Mapping[str, Any],
    names: Sequence[str],
    view: Mapping[str, Any] | None = None,
    lang: Language = ENGLISH,
) -> str:
    """One public log event in plain words, in `lang`; tiles named by what they show when
    `view` is given."""
    kind = event.get("type")
    mover = who(names, event.get("seat"), lang=lang)
    pos = words.event_pos(event)
    place = {"x": str(pos[0]), "y": str(pos[1])} if pos else {}
    if kind == "place":
        tile = event.get("tile")
        placed = view_tile_named(view, tile) if view is not None else words.tile_numbered(tile)
        said = (
            lang("%(seat)s placed %(tile)s at (%(x)s,%(y)s)", seat=mover, tile=placed, **place)
            if pos
            else lang("%(seat)s placed %(tile)s", seat=mover, tile=placed)
        )
        rotation = event.get("rotation")
        if rotation is None:
            return said
        return lang("%(event)s, turned %(rotation)s°", event=said, rotation=str(rotation))
    if kind == "flip":
        if pos:
            return lang("%(seat)s flipped the tile at (%(x)s,%(y)s)", seat=mover, **place)
        return lang("%(seat)s flipped the tile", seat=mover)
    if kind in ("claim", "bet"):
        token = lang(_A_TOKEN.get(str(event.get("kind") or kind), _A_TOKEN["token"]))
        at = str(event.get("loc", "?"))
        if pos:
            return lang(
                "%(seat)s put %(token)s on %(place)s at (%(x)s,%(y)s)",
                seat=mover,
                token=token,
                place=at,
                **place,
            )
        return lang("%(seat)s put %(token)s on %(place)s", seat=mover, token=token, place=at)
    if kind == "score":
        return _score_words(event, names, lang)
    if kind == "eaten":
        return _eaten(event, names, lang)
    if kind == "discard":
        tile = event.get("tile")
        dead = view_tile_named(view, tile) if view is not None else words.tile_numbered(tile)
        return lang("%(seat)s discarded %(tile)s, which fits nowhere", seat=mover, tile=dead)
    if kind == "end-bonus":
        points = str(event.get("points", event.get("value", 0)))
        return lang("end bonus: %(points)s to %(seat)s", points=points, seat=mover)
    if kind == "pass":
        return lang("%(seat)s passed", seat=mover)
    if kind == "removed":
        return lang("completed creatures left the board")
    if kind == "bet-lost":
        return lang("%(seat)s lost a bet", seat=mover)
    if kind == "dropped":
        return lang("%(seat)s left the game", seat=mover)
    return str(kind)


_A_TOKEN = {
    "boot": N_("a boot"),
    "fork": N_("a pitchfork"),
    "bet": N_("a bet"),
    "token": N_("a token"),
}


def _eaten(event: Mapping[str, Any], names: Sequence[str], lang: Language) -> str:
    """A prey eaten, and what a bet on it won."""
    animal = str(event.get("prey", "prey"))
    prey = words.prey_name(animal, lang)
    seat = event.get("seat")
    if seat is None:
        return lang("a %(prey)s was eaten", prey=prey)
    gain = str(event.get("value", event.get("points")))
    better = who(names, seat, lang=lang)
    return lang("%(seat)s's bet on a %(prey)s won %(points)s", seat=better, prey=prey, points=gain)


def _tile_contents(
    view: Mapping[str, Any], laid: Mapping[str, Any], f: Mapping[str, Any], lang: Language
) -> list[str]:
    """What a laid tile shows, in words: terrain, creatures, coins, flowers, prey."""
    rotation = int(laid.get("rotation") or 0)
    q = str(f.get("q", ""))
    ground = [lang(words.GROUND_NAMES[c]) for c in "gs" if c in q]
    if len(ground) == 2:
        parts = [lang("%(first)s and %(then)s", first=ground[0], then=ground[1])]
    else:
        parts = ground or [lang("a tile")]
    gone = {str(sp) for sp in laid.get("removed") or []}
    creatures: list[str] = []
    for text in f.get("pieces", []):
        species, _, spokes = parse_piece(text)
        if any(rotate_spoke(sp, rotation) in gone for sp in spokes):
            continue
        name = words.species_name(species, lang)
        if name not in creatures:
            creatures.append(name)
    parts.extend(creatures)
    metals = [str(c[1]) for c in f.get("coins", []) if len(c) > 1]
    if "gold" in metals:
        parts.append(lang.counted("%(n)s gold coin", "%(n)s gold coins", metals.count("gold")))
    if "silver" in metals:
        parts.append(
            lang.counted("%(n)s silver coin", "%(n)s silver coins", metals.count("silver"))
        )
    if f.get("flowers"):
        parts.append(lang.counted("%(n)s flower", "%(n)s flowers", len(f.get("flowers", []))))
    if view.get("variant") == "animals":
        for spoke, animal in f.get("prey", []):
            if rotate_spoke(str(spoke), rotation) not in gone:
                prey = words.prey_name(animal, lang)
                parts.append(
                    lang(
                        "a %(prey)s on %(spoke)s",
                        prey=prey,
                        spoke=rotate_spoke(str(spoke), rotation),
                    )
                )
    return parts


def tile_name(
    view: Mapping[str, Any],
    laid: Mapping[str, Any],
    names: Sequence[str] | None = None,
    lang: Language = ENGLISH,
) -> str:
    """A laid tile's accessible name: "tile 42 at (1,-1): grass and sand, blue snake, 1 gold
    coin; Carol's boot on NW; can be flipped", in `lang`."""
    known = player_names(view, names, lang)
    x, y, tid = laid.get("x"), laid.get("y"), laid.get("tile")
    face = str(laid.get("face") or "front")
    desc = tile_desc(view, tid)
    tokens = [_token_on(k, known, lang) for k in laid.get("tokens") or [] if isinstance(k, Mapping)]
    contents = ", ".join(_tile_contents(view, laid, face_of(desc, face), lang))
    text = lang(
        "tile %(id)s at (%(x)s,%(y)s): %(contents)s",
        id=str(tid),
        x=str(x),
        y=str(y),
        contents=contents,
    )
    if tokens:
        text = lang("%(first)s; %(then)s", first=text, then=", ".join(tokens))
    if face == "back":
        text = lang("%(tile)s; flipped", tile=text)
    elif isinstance(desc.get("back"), Mapping):
        text = lang("%(tile)s; can be flipped", tile=text)
    return text


def _token_on(token: Mapping[str, Any], names: Sequence[str], lang: Language) -> str:
    """A token on a tile, for the tile's name: "Carol's boot on NW"."""
    owner = who(names, token.get("seat"), lang=lang)
    key = _TOKEN_ON.get(str(token.get("kind")), _TOKEN_ON["token"])
    return lang(key, seat=owner, place=str(token.get("loc")))


_TOKEN_ON = {
    "boot": N_("%(seat)s's boot on %(place)s"),
    "fork": N_("%(seat)s's pitchfork on %(place)s"),
    "bet": N_("%(seat)s's bet on %(place)s"),
    "token": N_("%(seat)s's token on %(place)s"),
}
