"""Marram in words: a sentence per move and per ending, and the page summary of a position, as
messages of the game's catalog (pbem.games.messages) that the service says in each reader's
language.

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
from pbem.games.messages import ENGLISH, N_, Language, Listing, Message

if TYPE_CHECKING:
    from pbem.games.marram.rules import MarramState

# A region by its terrain, as the drawings name it.
REGION_NAMES = {"g": N_("grass tuft"), "s": N_("sand mound")}
# Ground, prey and tokens by their codes, as the drawings name them.
GROUND_NAMES = {"g": N_("grass"), "s": N_("sand")}
PREY_NAMES = {"fly": N_("fly"), "frog": N_("frog")}
# A token by its kind in the notation.
TOKEN_NAMES = {"boot": N_("boot"), "fork": N_("pitchfork"), "bet": N_("bet")}
# The CSS colours of the seats' pieces, as the game page names them.
SEAT_COLOURS = (N_("red"), N_("violet"), N_("white"), N_("black"))


def seat(index: object) -> str:
    """A seat as a message names it (`messages.seat_ref`), from a log's value as it is."""
    return f"{{{index}}}"


def chained(key: str, items: Sequence[Message]) -> Message:
    """`items` joined by the catalog's `key` ("%(first)s; %(then)s"), one pair at a time, so
    that each language writes its own separator."""
    out = items[0]
    for item in items[1:]:
        out = Message(key, first=out, then=item)
    return out


THEN = N_("%(first)s; %(then)s")
_PLUS = N_("%(first)s plus %(then)s")
DOT = N_("%(first)s · %(then)s")
_COMMA = N_("%(first)s, %(then)s")

# -- things on the board -----------------------------------------------------------------------

# A creature by its species code: bare, with "a", with "the".
CREATURE = {"o": N_("orange snake"), "b": N_("blue snake"), "w": N_("worm")}
A_CREATURE = {"o": N_("an orange snake"), "b": N_("a blue snake"), "w": N_("a worm")}
# What a claimed token stands on, by the name the board gives it (`TERRAIN_NAMES`,
# `SPECIES_NAMES`).
THE_THING = {
    "grass": N_("the grass"),
    "sand": N_("the sand"),
    "orange snake": N_("the orange snake"),
    "blue snake": N_("the blue snake"),
    "worm": N_("the worm"),
    "creature": N_("the creature"),
}
_CREATURE_ANY, _A_CREATURE_ANY, _THE_CREATURE = N_("creature"), N_("a creature"), N_("the creature")


def creature_message(species: object, valid: object = True, article: str = "") -> Message:
    """A creature by its species code: "worm", "a worm", "the worm" (`article` "a" or "the"),
    or a freak beast of that species."""
    code = str(species)
    if valid is False:
        bare = Message(CREATURE[code]) if code in CREATURE else Message("creature")
        if article == "a":
            return Message("a freak beast (%(species)s)", species=bare)
        if article == "the":
            return Message("the freak beast (%(species)s)", species=bare)
        return Message("freak beast (%(species)s)", species=bare)
    if article == "a":
        return Message(A_CREATURE.get(code, _A_CREATURE_ANY))
    if article == "the":
        return Message(THE_THING.get(SPECIES_NAMES.get(code, "creature"), _THE_CREATURE))
    return Message(CREATURE.get(code, _CREATURE_ANY))


def species_name(species: object, lang: Language = ENGLISH) -> str:
    """A species' bare name in `lang`, said at once: "worm", "ver" (the drawings' many pieces)."""
    return lang(CREATURE.get(str(species), _CREATURE_ANY))


def prey_name(animal: object, lang: Language = ENGLISH) -> str:
    """A prey's name in `lang` ("fly", "mouche"); an unknown one as it is written."""
    key = PREY_NAMES.get(str(animal))
    return lang(key) if key else str(animal)


def the_thing(name: str | Message) -> Message:
    """What a token stands on, with "the": "the sand", "the blue snake"."""
    if isinstance(name, Message):
        return name
    key = THE_THING.get(name)
    return Message(key) if key else Message("the %(place)s", place=name)


# -- a tile ------------------------------------------------------------------------------------

_TILE = {
    "g": N_("grass tile"),
    "s": N_("sand tile"),
    "gs": N_("grass-and-sand tile"),
    "": N_("tile"),
}
_PREY = {"fly": N_("a fly"), "frog": N_("a frog")}


def tile_words(desc: Mapping[str, Any], face: str = "front") -> Message:
    """A tile named by what its face shows, as the picture and the rules' tile sheet show it:
    "sand tile with 2 flowers", "grass-and-sand tile with a blue snake plus 1 gold coin plus a
    shovel". Never a comma or an " and ", so that a sentence's first clause (what moves and
    where, `pbem.domain.move_groups`) keeps the tile whole."""
    shown = desc.get("back") if face == "back" else desc
    shown = shown if isinstance(shown, Mapping) else {}
    terrain = "".join(c for c in "gs" if c in str(shown.get("q", "")))
    items: list[Message] = []
    for code in ("o", "b", "w"):
        if any(str(p).startswith(code + ":") for p in shown.get("pieces") or []):
            items.append(Message(A_CREATURE[code]))
    metals = [str(c[1]) for c in shown.get("coins") or [] if len(c) > 1]
    if "gold" in metals:
        items.append(Message.counted("a gold coin", "%(n)s gold coins", metals.count("gold")))
    if "silver" in metals:
        items.append(Message.counted("a silver coin", "%(n)s silver coins", metals.count("silver")))
    if shown.get("flowers"):
        items.append(Message.counted("a flower", "%(n)s flowers", len(shown["flowers"])))
    for prey in shown.get("prey") or []:
        if len(prey) > 1:
            animal = str(prey[1])
            items.append(
                Message(_PREY[animal]) if animal in _PREY else Message("a %(prey)s", prey=animal)
            )
    if face == "front" and isinstance(desc.get("back"), Mapping):
        items.append(Message("a shovel"))
    name = Message(_TILE[terrain])
    if not items:
        return name
    return Message("%(tile)s with %(items)s", tile=name, items=chained(_PLUS, items))


def tile_named(tile_id: object, desc: Mapping[str, Any], face: str = "front") -> Message:
    """A tile in a sentence: what it shows, and its number for the notation ("a sand tile
    with 2 flowers (#38)")."""
    return Message("a %(tile)s (#%(id)s)", tile=tile_words(desc, face), id=str(tile_id))


def tile_numbered(tile_id: object) -> Message:
    """A tile known by its number alone: "tile 17"."""
    return Message("tile %(id)s", id=str(tile_id))


# -- a move -----------------------------------------------------------------------------------


def describe(state: MarramState, move: str) -> Message:
    """What `move` does from `state`, with its consequences (raises as `state.play` does)."""
    return sentence(state, state.play(move))


def sentence(state: MarramState, after: MarramState, with_discards: bool = True) -> Message:
    """The sentence for the move that led from `state` to `after`, read from what the engine
    logged on the way; without the discards that followed when `with_discards` is false."""
    assert state.to_move_seat is not None
    ply = len(state.history_list)
    new = after.log[len(state.log) :]
    now = [e for e in new if e.get("ply") == ply]
    discards = [e for e in new if with_discards and e.get("ply") != ply and e["type"] == "discard"]
    ended = after.outcome_value is not None

    def named(tile_id: object) -> Message:
        return tile_named(tile_id, after.tile(int(str(tile_id))).description())

    return action_sentence(
        state.to_move_seat, now, lambda e: _standing_on(after, e), discards, ended, named
    )


def _standing_on(after: MarramState, event: Mapping[str, Any]) -> Message:
    """What a claim's token stands on: "the sand", "the blue snake"."""
    laid = after.board[(event["x"], event["y"])]
    loc = event["loc"]
    if loc in QUADRANT_INDEX:
        return the_thing(TERRAIN_NAMES["gs"[laid.face.terr[laid.k][QUADRANT_INDEX[loc]]]])
    return creature_message(laid.face.species_at(laid.k, SPOKE_INDEX[loc]), article="the")


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


TOKEN_OF = {
    "boot": N_("%(seat)s's boot"),
    "fork": N_("%(seat)s's pitchfork"),
    "bet": N_("%(seat)s's bet"),
}
_TOKEN_ON = {
    "boot": N_("a boot on %(thing)s"),
    "fork": N_("a pitchfork on %(thing)s"),
}
TOKEN_OF_ANY = N_("%(seat)s's token")
_BET_ON = {"fly": N_("a bet on the fly"), "frog": N_("a bet on the frog")}
_BET_ON_ANY = N_("a bet on the prey")
_BET_WON = {
    "fly": N_("%(seat)s's bet on the fly won %(points)s"),
    "frog": N_("%(seat)s's bet on the frog won %(points)s"),
}


def _at(key_at: str, key: str, pos: tuple[int, int] | None, **params: Any) -> Message:
    """A clause with its place when the event names one ("placed … at (1,0)")."""
    if pos is None:
        return Message(key, **params)
    return Message(key_at, **params, x=str(pos[0]), y=str(pos[1]))


def action_sentence(
    mover: object,
    now: Sequence[Mapping[str, Any]],
    standing_on: Callable[[Mapping[str, Any]], str | Message | None],
    discards: Iterable[Mapping[str, Any]],
    ended: bool,
    named: Callable[[object], Message] = tile_numbered,
) -> Message:
    """The sentence for one action from the events it logged (`now`), for the move's record and
    the drawings' captions alike. `standing_on` names what a claimed token stands on (None leaves
    the claim out); `discards` are the dead tiles discarded after it; `ended`, whether the game
    ended with it; `named` names a tile by its id (`tile_named`)."""
    clauses: list[Message] = []  # what the mover did, listed in one sentence
    tails: list[Message] = []  # what followed, each after a semicolon
    things: list[Message] = []
    for event in now:
        kind = event.get("type")
        pos = event_pos(event)
        if kind == "pass":
            clauses.append(Message("passed, as no tile could be placed or flipped"))
        elif kind == "place":
            tile = named(event.get("tile"))
            clauses.append(
                _at(N_("placed %(tile)s at (%(x)s,%(y)s)"), N_("placed %(tile)s"), pos, tile=tile)
            )
        elif kind == "flip":
            clauses.append(
                _at(N_("flipped the tile at (%(x)s,%(y)s)"), N_("flipped the tile"), pos)
            )
            lost = [
                Message(
                    TOKEN_OF.get(str(t.get("kind")), TOKEN_OF_ANY),
                    seat=seat(t.get("seat")),
                )
                for t in event.get("lost") or []
                if isinstance(t, Mapping)
            ]
            if lost:
                tails.append(
                    Message.counted(
                        "%(tokens)s there was lost",
                        "%(tokens)s there were lost",
                        len(lost),
                        tokens=Listing(lost),
                    )
                )
        elif kind == "claim" and (where := standing_on(event)) is not None:
            key = _TOKEN_ON.get(str(event.get("kind")), N_("a token on %(thing)s"))
            things.append(Message(key, thing=the_thing(where)))
        elif kind == "bet":
            things.append(Message(_BET_ON.get(str(event.get("prey")), _BET_ON_ANY)))
    if things:
        clauses.append(Message("put %(things)s", things=Listing(things)))
    completed = [feature_words(e) for e in now if e.get("type") == "score"]
    if completed:
        clauses.append(_completed(completed))
    tails.extend(_aftermath(now, discards, named))
    if ended:
        tails.append(Message("the game ended"))
    who = seat(mover)
    if clauses:
        head = Message("%(seat)s %(actions)s", seat=who, actions=Listing(clauses))
    else:
        head = Message("%(seat)s acted", seat=who)
    return chained(THEN, [head, *tails])


def _completed(features: list[Message]) -> Message:
    """ "completed a and b"; "completed a, b, and c" once a feature's own words hold a comma
    (", which nobody claimed"), so that the list still reads."""
    if len(features) > 1 and "," in features[-2]:
        return Message(
            N_("completed %(features)s, and %(last)s"),
            features=chained(_COMMA, features[:-1]),
            last=features[-1],
        )
    return Message("completed %(features)s", features=Listing(features))


def _aftermath(
    now: Sequence[Mapping[str, Any]],
    discards: Iterable[Mapping[str, Any]],
    named: Callable[[object], Message],
) -> list[Message]:
    """What followed an action: creatures leaving, bets won and lost, dead tiles discarded."""
    tails = []
    gone = [
        creature_message(e.get("species"), e.get("valid", True), "the")
        for e in now
        if e.get("type") == "removed"
    ]
    if gone:
        tails.append(
            Message.counted(
                "%(creatures)s left the board",
                "%(creatures)s left the board",
                len(gone),
                creatures=Listing(gone),
            )
        )
    for event in now:
        who = seat(event.get("seat"))
        if event.get("type") == "eaten":
            key = _BET_WON.get(
                str(event.get("prey")), N_("%(seat)s's bet on the prey won %(points)s")
            )
            tails.append(Message(key, seat=who, points=str(event.get("points"))))
        elif event.get("type") == "bet-lost" and event.get("why") == "freak":
            tails.append(Message("%(seat)s's bet was lost with the freak beast", seat=who))
    for event in discards:
        tails.append(
            Message(
                N_("%(seat)s discarded %(tile)s, which fits nowhere"),
                seat=seat(event.get("seat")),
                tile=named(event.get("tile")),
            )
        )
    return tails


def _region(terrain: str, bulges: int) -> Message:
    if terrain == "g":
        return Message.counted(
            "a grass tuft of %(n)s bulge", "a grass tuft of %(n)s bulges", bulges
        )
    if terrain == "s":
        return Message.counted(
            "a sand mound of %(n)s bulge", "a sand mound of %(n)s bulges", bulges
        )
    return Message.counted("a region of %(n)s bulge", "a region of %(n)s bulges", bulges)


def feature_words(event: Mapping[str, Any]) -> Message:
    """'a worm worth 6 each to {0} and {1}', 'a sand mound of 9 bulges worth 45, which nobody
    claimed'."""
    if event.get("feature") == "creature":
        name = creature_message(event.get("species"), event.get("valid", True), "a")
    else:
        name = _region(str(event.get("terrain")), int(event.get("tiles") or 0))
    value = str(event.get("value", 0))
    winners = Listing(seat(w) for w in event.get("winners") or [])
    if not winners:
        return Message(
            N_("%(feature)s worth %(value)s, which nobody claimed"), feature=name, value=value
        )
    if len(winners) > 1:
        return Message(
            N_("%(feature)s worth %(value)s each to %(seats)s"),
            feature=name,
            value=value,
            seats=winners,
        )
    return Message(
        N_("%(feature)s worth %(value)s to %(seats)s"), feature=name, value=value, seats=winners
    )


# -- the end ----------------------------------------------------------------------------------


def describe_outcome(state: MarramState) -> str | None:
    """How the game ended: why, the end bonus, who won and with what, who left; the service's
    own words when it settled the game."""
    outcome = state.outcome_value
    if outcome is None:
        return None
    if outcome.said is not None:
        return outcome.said
    details = outcome.details
    gone = [int(s) for s in details.get("dropped") or state.dropped_list]
    left = Listing(seat(s) for s in gone)
    parts = [_why_ended(state, outcome.reason, details, left)]
    bonus = [
        Message("%(seat)s %(points)s", seat=seat(e["seat"]), points=str(e["points"]))
        for e in state.log
        if e.get("type") == "end-bonus"
    ]
    if bonus:
        parts.append(Message("the end bonus gave %(bonuses)s", bonuses=Listing(bonus)))
    winners = list(outcome.winners)
    scores = list(outcome.scores)
    if not winners:
        parts.append(Message("nobody wins"))
    else:
        points = scores[winners[0]]
        others = Listing(
            Message("%(seat)s's %(points)s", seat=seat(s), points=str(scores[s]))
            for s in sorted(range(len(scores)), key=lambda s: (-scores[s], s))
            if s not in winners and s not in gone  # who left ranks last, whatever its points
        )
        won = Listing(seat(w) for w in winners)
        if len(winners) == 1 and others:
            parts.append(
                Message.counted(
                    "%(seat)s wins with %(n)s point to %(others)s",
                    "%(seat)s wins with %(n)s points to %(others)s",
                    points,
                    seat=won[0],
                    others=others,
                )
            )
        elif len(winners) == 1:
            parts.append(
                Message.counted(
                    "%(seat)s wins with %(n)s point",
                    "%(seat)s wins with %(n)s points",
                    points,
                    seat=won[0],
                )
            )
        elif others:
            parts.append(
                Message.counted(
                    "%(seats)s share the win with %(n)s point each to %(others)s",
                    "%(seats)s share the win with %(n)s points each to %(others)s",
                    points,
                    seats=won,
                    others=others,
                )
            )
        else:
            parts.append(
                Message.counted(
                    "%(seats)s share the win with %(n)s point each",
                    "%(seats)s share the win with %(n)s points each",
                    points,
                    seats=won,
                )
            )
    if left and outcome.reason != "others-left":
        parts.append(_left(left))
    return chained(THEN, parts)


def _left(left: Listing) -> Message:
    return Message.counted(
        "%(seats)s left the game", "%(seats)s left the game", len(left), seats=left
    )


def _why_ended(
    state: MarramState, reason: str, details: Mapping[str, Any], left: Listing
) -> Message:
    """The ending's first words, capitalised: it opens the sentence."""
    if reason == "threshold":
        threshold = int(details.get("threshold") or state.setup.threshold or 0)
        if isinstance(details.get("turn_of"), int):
            return Message.counted(
                "The threshold of %(n)s point was reached at the end of %(seat)s's turn",
                "The threshold of %(n)s points was reached at the end of %(seat)s's turn",
                threshold,
                seat=seat(details["turn_of"]),
            )
        return Message.counted(
            "The threshold of %(n)s point was reached",
            "The threshold of %(n)s points was reached",
            threshold,
        )
    if reason == "tiles-out":
        return Message("The tiles ran out")
    if reason == "no-action":
        if isinstance(details.get("seat"), int):
            return Message(
                N_("%(seat)s had no tile to lay and nothing to flip, and nobody else could act"),
                seat=seat(details["seat"]),
            )
        return Message("Nobody could place or flip a tile")
    if reason == "others-left" and left:
        return _left(left)
    return Message("The game ended")


# -- the page summary -------------------------------------------------------------------------


def summary(state: MarramState, viewer: int | None) -> Summary:
    """Scores' label, seat colours and supplies, the viewer's tiles and the game's notes, in the
    words the game page has always used for Marram."""
    view = state.view(viewer)  # validates the seat as views do
    classic = view["variant"] == "classic"
    animals = view["variant"] == "animals"
    seats = []
    for index, supply in enumerate(view["supplies"]):
        bits = [Message("boots %(n)s", n=supply["boots"])]
        if not classic:
            bits.append(Message("forks %(n)s", n=supply["forks"]))
        bits.append(Message("shovels %(n)s", n=supply["shovels"]))
        if animals:
            bits.append(Message("bets %(n)s", n=supply["bets"]))
        in_hand = view["hand_sizes"][index]
        bits.append(Message.counted("%(n)s tile in hand", "%(n)s tiles in hand", in_hand))
        text = chained(DOT, bits)
        if index in view["dropped"]:
            text = Message("left the game")
        seats.append(SeatSummary(colour=SEAT_COLOURS[index % len(SEAT_COLOURS)], supplies=text))
    hand = view["hand"]
    own: str = ""
    brief: str = ""
    if hand:
        held = [tile_named(t, state.tile(t).description()) for t in hand]
        own = Message("your tiles: %(tiles)s", tiles=chained(THEN, held))
        brief = Message("your tiles: %(tiles)s", tiles=", ".join(f"#{t}" for t in hand))
    elif hand is not None:
        own = brief = Message("your tiles: none")
    notes = [Message.counted("%(n)s tile in the bag", "%(n)s tiles in the bag", view["bag"])]
    if view["threshold"] and view["length"] == "short" and view["outcome"] is None:
        notes.append(Message("first to %(n)s wins", n=view["threshold"]))
    if view["to_move"] is not None:
        notes.append(
            Message.counted(
                "%(n)s action left this turn",
                "%(n)s actions left this turn",
                view["actions_left"],
            )
        )
    score_label = Message("points")
    return Summary(
        score_label=score_label, seats=seats, hand=own, notes=chained(DOT, notes), hand_brief=brief
    )
