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
from pbem.games.messages import Message

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


def action_words(view: Mapping[str, Any], ply: int) -> str:
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


def _score_words(event: Mapping[str, Any], names: Sequence[str]) -> str:
    feature = event.get("feature")
    if feature == "creature":
        name = SPECIES_NAMES.get(str(event.get("species")), "creature")
        if event.get("valid") is False:
            name = f"freak beast ({name})"
    else:
        name = "grass tuft" if event.get("terrain") == "g" else "sand mound"
    winners = event.get("winners") or []
    value = event.get("value", 0)
    if winners:
        by = " and ".join(who(names, w) for w in winners)
        return f"{name} completed: {value} to {by}"
    return f"{name} completed ({value}, unclaimed)"


def describe_event(
    event: Mapping[str, Any], names: Sequence[str], view: Mapping[str, Any] | None = None
) -> str:
    """One public log event in plain words; tiles named by what they show when `view` is
    given."""
    kind = event.get("type")
    mover = who(names, event.get("seat"))
    pos = words.event_pos(event)
    at = f" at ({pos[0]},{pos[1]})" if pos else ""
    if kind == "place":
        tile = event.get("tile")
        rot = event.get("rotation")
        placed = view_tile_named(view, tile) if view is not None else f"tile {tile}"
        return f"{mover} placed {placed}{at}" + (f", turned {rot}°" if rot is not None else "")
    if kind == "flip":
        return f"{mover} flipped the tile{at}"
    if kind in ("claim", "bet"):
        what = event.get("kind") or ("bet" if kind == "bet" else "token")
        return f"{mover} put a {what} on {event.get('loc', '?')}{at}"
    if kind == "score":
        return _score_words(event, names)
    if kind == "eaten":
        animal = event.get("prey", "prey")
        seat = event.get("seat")
        gain = event.get("value", event.get("points"))
        if seat is None:
            return f"a {animal} was eaten"
        return f"{who(names, seat)}'s bet on a {animal} won {gain}"
    if kind == "discard":
        tile = event.get("tile")
        dead = view_tile_named(view, tile) if view is not None else f"tile {tile}"
        return f"{mover} discarded {dead}, which fits nowhere"
    if kind == "end-bonus":
        return f"end bonus: {event.get('points', event.get('value', 0))} to {mover}"
    said = {
        "pass": f"{mover} passed",
        "removed": "completed creatures left the board",
        "bet-lost": f"{mover} lost a bet",
        "dropped": f"{mover} left the game",
    }
    return said.get(str(kind), str(kind))


def _tile_contents(
    view: Mapping[str, Any], laid: Mapping[str, Any], f: Mapping[str, Any]
) -> list[str]:
    """What a laid tile shows, in words: terrain, creatures, coins, flowers, prey."""
    rotation = int(laid.get("rotation") or 0)
    q = str(f.get("q", ""))
    ground = [n for c, n in (("g", "grass"), ("s", "sand")) if c in q]
    parts = [" and ".join(ground) or "a tile"]
    gone = {str(sp) for sp in laid.get("removed") or []}
    creatures: list[str] = []
    for text in f.get("pieces", []):
        species, _, spokes = parse_piece(text)
        if any(rotate_spoke(sp, rotation) in gone for sp in spokes):
            continue
        name = SPECIES_NAMES.get(species, "creature")
        if name not in creatures:
            creatures.append(name)
    parts.extend(creatures)
    metals = [str(c[1]) for c in f.get("coins", []) if len(c) > 1]
    for metal in ("gold", "silver"):
        if metal in metals:
            parts.append(words.plural(metals.count(metal), f"{metal} coin"))
    if f.get("flowers"):
        parts.append(words.plural(len(f.get("flowers", [])), "flower"))
    if view.get("variant") == "animals":
        for spoke, animal in f.get("prey", []):
            if rotate_spoke(str(spoke), rotation) not in gone:
                parts.append(f"a {animal} on {rotate_spoke(str(spoke), rotation)}")
    return parts


def tile_name(
    view: Mapping[str, Any], laid: Mapping[str, Any], names: Sequence[str] | None = None
) -> str:
    """A laid tile's accessible name: "tile 42 at (1,-1): grass and sand, blue snake, 1 gold
    coin; Carol's boot on NW; can be flipped"."""
    known = player_names(view, names)
    x, y, tid = laid.get("x"), laid.get("y"), laid.get("tile")
    face = str(laid.get("face") or "front")
    desc = tile_desc(view, tid)
    tokens = [
        f"{who(known, k.get('seat'))}'s {words.TOKEN_WORDS.get(str(k.get('kind')), 'token')} "
        f"on {k.get('loc')}"
        for k in laid.get("tokens") or []
        if isinstance(k, Mapping)
    ]
    text = f"tile {tid} at ({x},{y}): " + ", ".join(_tile_contents(view, laid, face_of(desc, face)))
    if tokens:
        text += "; " + ", ".join(tokens)
    if face == "back":
        text += "; flipped"
    elif isinstance(desc.get("back"), Mapping):
        text += "; can be flipped"
    return text
