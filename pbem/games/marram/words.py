"""Marram in words: a sentence per move and per ending, and the page summary of a position.

Seats are written as the placeholders `{0}`, `{1}`… that `pbem.games.base.fill_names` fills in.
Sentences are built from what the engine logs (rules.py), so they say what a move caused: the
features it completed and for whom, the tokens a flip cost, the creatures that left the board, the
prey eaten and the dead tiles discarded next. The vocabulary is the rules' (docs/rules/marram.md):
grass and sand, grass tufts and sand mounds, orange and blue snakes, worms, freak beasts, boots,
pitchforks, bets and shovels.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pbem.games.base import SeatSummary, Summary
from pbem.games.marram.tiles import QUADRANT_INDEX, SPECIES_NAMES, SPOKE_INDEX, TERRAIN_NAMES
from pbem.games.messages import english_listing as listing

if TYPE_CHECKING:
    from pbem.games.marram.rules import MarramState

TOKEN_WORDS = {"boot": "boot", "fork": "pitchfork", "bet": "bet"}
REGION_WORDS = {"g": "grass tuft", "s": "sand mound"}
# The CSS colours of the seats' pieces, as the game page names them.
SEAT_COLOURS = ("red", "violet", "white", "black")


def seat(index: int) -> str:
    return f"{{{index}}}"


def with_article(noun: str) -> str:
    return ("an " if noun[:1] in "aeiou" else "a ") + noun


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


# -- a tile ------------------------------------------------------------------------------------

_COIN_ORDER = ("gold", "silver")


def tile_words(desc: Mapping[str, Any], face: str = "front") -> str:
    """A tile named by what its face shows, as the picture and the rules' tile sheet show it:
    "sand tile with 2 flowers", "grass-and-sand tile with a blue snake plus 1 gold coin plus a
    shovel". Never a comma or an " and ", so that a sentence's first clause (what moves and
    where, `pbem.domain.move_groups`) keeps the tile whole."""
    shown = desc.get("back") if face == "back" else desc
    shown = shown if isinstance(shown, Mapping) else {}
    terrain = [TERRAIN_NAMES[c] for c in "gs" if c in str(shown.get("q", ""))]
    items: list[str] = []
    for code in ("o", "b", "w"):
        if any(str(p).startswith(code + ":") for p in shown.get("pieces") or []):
            items.append(with_article(SPECIES_NAMES[code]))
    metals = [str(c[1]) for c in shown.get("coins") or [] if len(c) > 1]
    items += [_some(metals.count(m), f"{m} coin") for m in _COIN_ORDER if m in metals]
    if shown.get("flowers"):
        items.append(_some(len(shown["flowers"]), "flower"))
    items += [with_article(str(prey[1])) for prey in shown.get("prey") or [] if len(prey) > 1]
    if face == "front" and isinstance(desc.get("back"), Mapping):
        items.append("a shovel")
    name = "-and-".join(terrain) + " tile"
    return name + (" with " + " plus ".join(items) if items else "")


def _some(count: int, noun: str) -> str:
    return with_article(noun) if count == 1 else plural(count, noun)


def tile_named(tile_id: object, desc: Mapping[str, Any], face: str = "front") -> str:
    """A tile in a sentence: what it shows, and its number for the notation ("a sand tile
    with 2 flowers (#38)")."""
    return f"{with_article(tile_words(desc, face))} (#{tile_id})"


# -- a move -----------------------------------------------------------------------------------


def describe(state: MarramState, move: str) -> str:
    """What `move` does from `state`, with its consequences (raises as `state.play` does)."""
    return sentence(state, state.play(move))


def sentence(state: MarramState, after: MarramState, with_discards: bool = True) -> str:
    """The sentence for the move that led from `state` to `after`, read from what the engine
    logged on the way; without the discards that followed when `with_discards` is false."""
    assert state.to_move_seat is not None
    ply = len(state.history_list)
    new = after.log[len(state.log) :]
    now = [e for e in new if e.get("ply") == ply]
    discards = [e for e in new if with_discards and e.get("ply") != ply and e["type"] == "discard"]
    ended = after.outcome_value is not None

    def named(tile_id: object) -> str:
        return tile_named(tile_id, after.tile(int(str(tile_id))).description())

    return action_sentence(
        state.to_move_seat, now, lambda e: _standing_on(after, e), discards, ended, named
    )


def _standing_on(after: MarramState, event: Mapping[str, Any]) -> str:
    """What a claim's token stands on: "sand", "blue snake"."""
    laid = after.board[(event["x"], event["y"])]
    loc = event["loc"]
    if loc in QUADRANT_INDEX:
        return TERRAIN_NAMES["gs"[laid.face.terr[laid.k][QUADRANT_INDEX[loc]]]]
    return SPECIES_NAMES.get(laid.face.species_at(laid.k, SPOKE_INDEX[loc]), "creature")


def event_pos(event: Mapping[str, Any]) -> tuple[int, int] | None:
    """Where a logged event happened: its "x" and "y", or a "pos" ("x,y" or a pair) in views
    written by hand; None when it names no place."""
    if "x" in event and "y" in event:
        try:
            return int(event["x"]), int(event["y"])
        except (TypeError, ValueError):
            return None
    pos = event.get("pos")
    if isinstance(pos, str) and "," in pos:
        a, b = pos.split(",", 1)
        try:
            return int(a), int(b)
        except ValueError:
            return None
    if isinstance(pos, Sequence) and not isinstance(pos, str) and len(pos) == 2:
        return int(pos[0]), int(pos[1])
    return None


def action_sentence(
    mover: object,
    now: Sequence[Mapping[str, Any]],
    standing_on: Callable[[Mapping[str, Any]], str | None],
    discards: Iterable[Mapping[str, Any]],
    ended: bool,
    named: Callable[[object], str] = lambda tile_id: f"tile {tile_id}",
) -> str:
    """The sentence for one action from the events it logged (`now`), for the move's record and
    the drawings' captions alike. `standing_on` names what a claimed token stands on (None leaves
    the claim out); `discards` are the dead tiles discarded after it; `ended`, whether the game
    ended with it; `named` names a tile by its id (`tile_named`)."""
    clauses: list[str] = []  # what the mover did, joined into one sentence
    tails: list[str] = []  # what followed, each after a semicolon
    things: list[str] = []
    for event in now:
        kind = event.get("type")
        pos = event_pos(event)
        at = f" at ({pos[0]},{pos[1]})" if pos else ""
        if kind == "pass":
            clauses.append("passed, as no tile could be placed or flipped")
        elif kind == "place":
            clauses.append(f"placed {named(event.get('tile'))}{at}")
        elif kind == "flip":
            clauses.append(f"flipped the tile{at}")
            lost = [
                f"{{{t.get('seat')}}}'s {TOKEN_WORDS.get(str(t.get('kind')), 'token')}"
                for t in event.get("lost") or []
                if isinstance(t, Mapping)
            ]
            if lost:
                tails.append(f"{listing(lost)} there {'was' if len(lost) == 1 else 'were'} lost")
        elif kind == "claim" and (where := standing_on(event)) is not None:
            token = TOKEN_WORDS.get(str(event.get("kind")), "token")
            things.append(f"{with_article(token)} on the {where}")
        elif kind == "bet":
            things.append(f"a bet on the {event.get('prey', 'prey')}")
    if things:
        clauses.append("put " + listing(things))
    completed = [feature_words(e) for e in now if e.get("type") == "score"]
    if completed:
        # A comma closes "…, which nobody claimed" before the next feature.
        joined = listing(completed)
        if len(completed) > 1 and "," in completed[-2]:
            joined = ", ".join(completed[:-1]) + ", and " + completed[-1]
        clauses.append("completed " + joined)
    tails.extend(_aftermath(now, discards, named))
    if ended:
        tails.append("the game ended")
    head = f"{{{mover}}} {listing(clauses)}" if clauses else f"{{{mover}}} acted"
    return "; ".join([head, *tails])


def _aftermath(
    now: Sequence[Mapping[str, Any]],
    discards: Iterable[Mapping[str, Any]],
    named: Callable[[object], str],
) -> list[str]:
    """What followed an action: creatures leaving, bets won and lost, dead tiles discarded."""
    tails = []
    gone = [creature_name(e) for e in now if e.get("type") == "removed"]
    if gone:
        tails.append(f"{listing(['the ' + g for g in gone])} left the board")
    for event in now:
        who = f"{{{event.get('seat')}}}"
        if event.get("type") == "eaten":
            tails.append(f"{who}'s bet on the {event.get('prey')} won {event.get('points')}")
        elif event.get("type") == "bet-lost" and event.get("why") == "freak":
            tails.append(f"{who}'s bet was lost with the freak beast")
    for event in discards:
        tails.append(
            f"{{{event.get('seat')}}} discarded {named(event.get('tile'))}, which fits nowhere"
        )
    return tails


def creature_name(event: Mapping[str, Any]) -> str:
    species = SPECIES_NAMES.get(str(event.get("species")), "creature")
    return species if event.get("valid", True) else f"freak beast ({species})"


def feature_words(event: Mapping[str, Any]) -> str:
    """'a worm worth 6 each to {0} and {1}', 'a sand mound of 9 bulges worth 45, which nobody
    claimed'."""
    if event.get("feature") == "creature":
        name = with_article(creature_name(event))
    else:
        name = with_article(REGION_WORDS.get(str(event.get("terrain")), "region"))
        name += f" of {plural(int(event.get('tiles') or 0), 'bulge')}"
    value = event.get("value", 0)
    winners = [f"{{{w}}}" for w in event.get("winners") or []]
    if not winners:
        return f"{name} worth {value}, which nobody claimed"
    each = " each" if len(winners) > 1 else ""
    return f"{name} worth {value}{each} to {listing(winners)}"


# -- the end ----------------------------------------------------------------------------------


def describe_outcome(state: MarramState) -> str | None:
    outcome = state.outcome_value
    if outcome is None:
        return None
    if outcome.said is not None:
        return outcome.said
    details = outcome.details
    gone = [int(s) for s in details.get("dropped") or state.dropped_list]
    left = [seat(s) for s in gone]
    parts = []
    if outcome.reason == "threshold":
        threshold = int(details.get("threshold") or state.setup.threshold or 0)
        text = f"the threshold of {plural(threshold, 'point')} was reached"
        if isinstance(details.get("turn_of"), int):
            text += f" at the end of {seat(details['turn_of'])}'s turn"
        parts.append(text)
    elif outcome.reason == "tiles-out":
        parts.append("the tiles ran out")
    elif outcome.reason == "no-action":
        if isinstance(details.get("seat"), int):
            who = seat(details["seat"])
            parts.append(f"{who} had no tile to lay and nothing to flip, and nobody else could act")
        else:
            parts.append("nobody could place or flip a tile")
    elif outcome.reason == "others-left" and left:
        parts.append(f"{listing(left)} left the game")
    else:
        parts.append("the game ended")
    bonus = [f"{seat(e['seat'])} {e['points']}" for e in state.log if e.get("type") == "end-bonus"]
    if bonus:
        parts.append("the end bonus gave " + listing(bonus))
    winners = list(outcome.winners)
    scores = list(outcome.scores)
    if not winners:
        parts.append("nobody wins")
    else:
        points = plural(scores[winners[0]], "point")
        others = [
            f"{seat(s)}'s {scores[s]}"
            for s in sorted(range(len(scores)), key=lambda s: (-scores[s], s))
            if s not in winners and s not in gone  # who left ranks last, whatever its points
        ]
        against = f" to {listing(others)}" if others else ""
        if len(winners) == 1:
            parts.append(f"{seat(winners[0])} wins with {points}{against}")
        else:
            who = listing([seat(w) for w in winners])
            parts.append(f"{who} share the win with {points} each{against}")
    if left and outcome.reason != "others-left":
        parts.append(f"{listing(left)} left the game")
    text = "; ".join(parts)
    return text[0].upper() + text[1:]


# -- the page summary -------------------------------------------------------------------------


def summary(state: MarramState, viewer: int | None) -> Summary:
    """Scores' label, seat colours and supplies, the viewer's tiles and the game's notes, in the
    words the game page has always used for Marram."""
    view = state.view(viewer)  # validates the seat as views do
    classic = view["variant"] == "classic"
    animals = view["variant"] == "animals"
    seats = []
    for index, supply in enumerate(view["supplies"]):
        bits = [f"boots {supply['boots']}"]
        if not classic:
            bits.append(f"forks {supply['forks']}")
        bits.append(f"shovels {supply['shovels']}")
        if animals:
            bits.append(f"bets {supply['bets']}")
        in_hand = view["hand_sizes"][index]
        text = " · ".join(bits) + f" · {plural(in_hand, 'tile')} in hand"
        if index in view["dropped"]:
            text = "left the game"
        seats.append(SeatSummary(colour=SEAT_COLOURS[index % len(SEAT_COLOURS)], supplies=text))
    hand = view["hand"]
    held = "; ".join(tile_named(t, state.tile(t).description()) for t in hand or [])
    own = "" if hand is None else "your tiles: " + (held or "none")
    brief = "" if hand is None else "your tiles: " + (", ".join(f"#{t}" for t in hand) or "none")
    notes = f"{plural(view['bag'], 'tile')} in the bag"
    if view["threshold"] and view["length"] == "short" and view["outcome"] is None:
        notes += f" · first to {view['threshold']} wins"
    if view["to_move"] is not None:
        left = view["actions_left"]
        notes += f" · {left} action{'s' if left != 1 else ''} left this turn"
    return Summary(score_label="points", seats=seats, hand=own, notes=notes, hand_brief=brief)
