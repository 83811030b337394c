"""Marram in words: a sentence per move and per ending, and the page summary of a position.

Seats are written as the placeholders `{0}`, `{1}`… that `pbem.games.base.fill_names` fills in.
Sentences are built from what the engine logs (rules.py), so they say what a move caused: the
features it completed and for whom, the tokens a flip cost, the creatures that left the board, the
prey eaten and the dead tiles discarded next. The vocabulary is the rules' (docs/rules/marram.md):
grass and sand, grass tufts and sand mounds, orange and blue snakes, worms, freak beasts, boots,
pitchforks, bets and shovels.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pbem.games.base import SeatSummary, Summary
from pbem.games.marram.tiles import QUADRANT_INDEX, SPECIES_NAMES, SPOKE_INDEX, TERRAIN_NAMES

if TYPE_CHECKING:
    from pbem.games.marram.rules import MarramState

TOKEN_WORDS = {"boot": "boot", "fork": "pitchfork", "bet": "bet"}
REGION_WORDS = {"g": "grass tuft", "s": "sand mound"}
# The CSS colours of the seats' pieces, as the game page names them.
SEAT_COLOURS = ("red", "violet", "white", "black")


def seat(index: int) -> str:
    return f"{{{index}}}"


def listing(items: Sequence[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def with_article(noun: str) -> str:
    return ("an " if noun[:1] in "aeiou" else "a ") + noun


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


# -- a move -----------------------------------------------------------------------------------


def describe(state: MarramState, move: str) -> str:
    """What `move` does from `state`, with its consequences (raises as `state.play` does)."""
    return sentence(state, state.play(move))


def sentence(state: MarramState, after: MarramState) -> str:
    """The sentence for the move that led from `state` to `after`, read from what the engine
    logged on the way."""
    assert state.to_move_seat is not None
    mover = state.to_move_seat
    ply = len(state.history_list)
    new = after.log[len(state.log) :]
    now = [e for e in new if e.get("ply") == ply]
    later = [e for e in new if e.get("ply") != ply]
    clauses: list[str] = []  # what the mover did, joined into one sentence
    tails: list[str] = []  # what followed, each after a semicolon
    for event in now:
        kind = event["type"]
        if kind == "pass":
            clauses.append("passed, as no tile could be placed or flipped")
        elif kind == "place":
            clauses.append(f"placed tile {event['tile']} at ({event['x']},{event['y']})")
        elif kind == "flip":
            clauses.append(f"flipped the tile at ({event['x']},{event['y']})")
            lost = [f"{seat(t['seat'])}'s {TOKEN_WORDS[t['kind']]}" for t in event["lost"]]
            if lost:
                tails.append(f"{listing(lost)} there {'was' if len(lost) == 1 else 'were'} lost")
    put = _claim_words(after, now)
    if put:
        clauses.append(put)
    completed = [_feature(e) for e in now if e["type"] == "score"]
    if completed:
        # A comma closes "…, which nobody claimed" before the next feature.
        joined = listing(completed)
        if len(completed) > 1 and "," in completed[-2]:
            joined = ", ".join(completed[:-1]) + ", and " + completed[-1]
        clauses.append("completed " + joined)
    gone = [_creature_name(e) for e in now if e["type"] == "removed"]
    if gone:
        tails.append(f"{listing(['the ' + g for g in gone])} left the board")
    for event in now:
        who = seat(event["seat"]) if "seat" in event else ""
        if event["type"] == "eaten":
            tails.append(f"{who}'s bet on the {event['prey']} won {event['points']}")
        elif event["type"] == "bet-lost" and event.get("why") == "freak":
            tails.append(f"{who}'s bet was lost with the freak beast")
    for event in later:
        if event["type"] == "discard":
            tails.append(f"{seat(event['seat'])} discarded dead tile {event['tile']}")
    if after.outcome_value is not None:
        tails.append("the game ended")
    return "; ".join([f"{seat(mover)} {listing(clauses)}", *tails])


def _claim_words(after: MarramState, events: list[dict[str, Any]]) -> str:
    """'put a boot on the sand', 'put a pitchfork on the worm and a bet on the fly'…"""
    things = []
    for event in events:
        if event["type"] == "claim":
            laid = after.board[(event["x"], event["y"])]
            loc = event["loc"]
            if loc in QUADRANT_INDEX:
                what = TERRAIN_NAMES["gs"[laid.face.terr[laid.k][QUADRANT_INDEX[loc]]]]
            else:
                what = SPECIES_NAMES.get(laid.face.species_at(laid.k, SPOKE_INDEX[loc]), "creature")
            things.append(f"{with_article(TOKEN_WORDS[event['kind']])} on the {what}")
        elif event["type"] == "bet":
            things.append(f"a bet on the {event['prey']}")
    return "put " + listing(things) if things else ""


def _creature_name(event: Mapping[str, Any]) -> str:
    species = SPECIES_NAMES.get(str(event.get("species")), "creature")
    return species if event.get("valid", True) else f"freak beast ({species})"


def _feature(event: Mapping[str, Any]) -> str:
    """'a worm worth 6 each to {0} and {1}', 'a sand mound of 9 bulges worth 45, which nobody
    claimed'."""
    if event["feature"] == "creature":
        name = with_article(_creature_name(event))
    else:
        name = with_article(REGION_WORDS[event["terrain"]])
        name += f" of {plural(event['tiles'], 'bulge')}"
    value = event["value"]
    winners = [seat(w) for w in event["winners"]]
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
    own = "" if hand is None else "your tiles: " + (", ".join(map(str, hand)) if hand else "none")
    notes = f"{plural(view['bag'], 'tile')} in the bag"
    if view["threshold"] and view["length"] == "short":
        notes += f" · first to {view['threshold']} wins"
    if view["to_move"] is not None:
        left = view["actions_left"]
        notes += f" · {left} action{'s' if left != 1 else ''} left this turn"
    return Summary(score_label="points", seats=seats, hand=own, notes=notes)
