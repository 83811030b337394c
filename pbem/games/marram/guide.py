"""Marram for new players: the words its pages use, and the positions the rules page draws
(`guide.html` beside this module; rules in docs/rules/marram.md).

Each worked example is a short game played with the engine's own moves on a deck made for it
(the `start` and `deck` options of rules section 7), so the board, the log and the points the
page quotes are exactly what a real game would give. The text a reader sees is marked `N_` for
the game's catalog (translations/, scripts/catalogs.sh marram), so that the page reads in the
player's language; the term meanings are translated in glossary/<language>.json.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pbem.games.base import fill_names
from pbem.games.guide import N_, Examples, Figure, Guide, Section, Term, Variant
from pbem.games.marram.features import Region, creature_at, region_at
from pbem.games.marram.rules import (
    PREY_POINTS,
    SUPPLIES,
    SUPPLY_NAMES,
    THRESHOLDS,
    MarramState,
    make_setup,
)
from pbem.games.marram.tiles import QUADRANTS, SPOKES

NAMES = ("Alice", "Bob")
PLAIN: dict[str, Any] = {"q": "gsgs"}
# A list of tile descriptions drawn in order (the `deck` option, rules 1.5 and 7).
Deck = list[dict[str, Any]]
SPECIES = {"o": "orange snake", "b": "blue snake", "w": "worm"}
# The board's backdrop in the drawing (render.py): a phone shows the board alone, larger, and the
# panel beside it a tap away.
FOCUS = "board-bg"
# The opening picture: a real shuffle of the standard set, seen from Alice's seat.
OPENING_SEED = 5

# Alice completes a blue snake in one turn, her boot on its head (standard start tile).
SNAKE_DECK: Deck = [
    {"q": "sgsg", "pieces": ["b:head:W"]},
    {"q": "sgsg", "pieces": ["b:tail:E"]},
    *[PLAIN] * 7,
]
SNAKE_MOVES = ["place 1 1,0 0 boot W", "place 2 -1,0 0"]

# Four grass corners around one point, with a gold and a silver coin: a tuft of 4 bulges.
TUFT_DECK: Deck = [
    {"q": "sgsg"},
    {"q": "sgsg", "coins": [["NE", "silver"]]},
    {"q": "gsgs", "coins": [["NW", "gold"]]},
    *[PLAIN] * 7,
]
TUFT_MOVES = [
    "place 1 1,0 0 boot SW",
    "place 2 0,-1 0",
    "place 4 -1,0 90",
    "place 5 -1,-1 0",
    "place 3 1,-1 0",
]

# The same tuft with a little orange snake lying against it: in Pitchfork and Animals the snake
# leaves the board when it completes, and the tuft completes with it. Its end carries a fly.
LEAVES_DECK: Deck = [
    {"q": "sgsg"},
    {"q": "sgsg", "coins": [["NE", "silver"]], "pieces": ["o:end:E"], "prey": [["E", "fly"]]},
    {"q": "gsgs", "coins": [["NW", "gold"]], "pieces": ["o:end:W"]},
    *[PLAIN] * 7,
]


def _leaves_moves(variant: str) -> list[str]:
    claim = "boot E" if variant == "classic" else "fork E"
    bet = " bet E" if variant == "animals" else ""
    return [
        "place 1 1,0 0 boot SW",
        f"place 2 0,-1 0 {claim}{bet}",
        "place 4 -1,0 90",
        "place 5 -1,-1 0",
        "place 3 1,-1 0",
    ]


# A tile with a shovel: Bob flips it, and Alice's boot on it leaves the game.
FLIP_DECK: Deck = [
    {"q": "sgsg", "flowers": ["NW", "NW"], "back": {"q": "sgsg", "coins": [["NE", "gold"]]}},
    *[PLAIN] * 8,
]
FLIP_SETUP = ["place 1 1,0 0 boot NW", "place 2 -1,0 90"]
FLIP_MOVE = "flip 1,0 0 boot NE"

# A long game on six tiles: nothing completes, so the end bonus decides.
BONUS_DECK: Deck = [
    {"q": "sgsg", "coins": [["SW", "gold"]]},
    {"q": "sgsg", "pieces": ["o:end:N"]},
    PLAIN,
    {"q": "sgsg", "flowers": ["SE"]},
    PLAIN,
    PLAIN,
]
BONUS_MOVES = [
    "place 1 1,0 0 boot SW",
    "place 2 -1,0 0 boot N",
    "place 4 2,0 90 boot SW",
    "place 5 -1,-1 0",
    "place 3 -1,-2 270",
    "pass",
    "place 6 -1,-3 0",
]
# The claimed features of that game, as (seat, x, y, location).
BONUS_CLAIMS = [(0, 1, 0, "SW"), (0, -1, 0, "N"), (1, 2, 0, "SW")]

# The engine's sentences that the examples quote, word for word, marked so that the rules page can
# show them in the reader's language (the engine speaks English). `examples` refuses a sentence
# that is not here: a change of the engine's words has to reach the page and its catalogs.
SAID = frozenset(
    {
        N_(
            "Alice placed a grass-and-sand tile with a blue snake (#1) at (1,0) and put a boot on "
            "the blue snake"
        ),
        N_(
            "Alice placed a grass-and-sand tile with a blue snake (#2) at (-1,0) and completed a "
            "blue snake worth 9 to Alice"
        ),
        N_("Alice placed a grass-and-sand tile (#1) at (1,0) and put a boot on the grass"),
        N_("Alice placed a grass-and-sand tile with a silver coin (#2) at (0,-1)"),
        N_("Bob placed a grass-and-sand tile (#4) at (-1,0)"),
        N_(
            "Bob placed a grass-and-sand tile (#5) at (-1,-1) and completed a sand mound of 4 "
            "bulges worth 20, which nobody claimed"
        ),
        N_(
            "Alice placed a grass-and-sand tile with a gold coin (#3) at (1,-1) and completed a "
            "grass tuft of 4 bulges worth 28 to Alice"
        ),
        N_(
            "Alice placed a grass-and-sand tile with an orange snake plus a silver coin plus a fly "
            "(#2) at (0,-1) and put a boot on the orange snake"
        ),
        N_(
            "Alice placed a grass-and-sand tile with an orange snake plus a silver coin plus a fly "
            "(#2) at (0,-1) and put a pitchfork on the orange snake"
        ),
        N_(
            "Alice placed a grass-and-sand tile with an orange snake plus a silver coin plus a fly "
            "(#2) at (0,-1) and put a pitchfork on the orange snake and a bet on the fly"
        ),
        N_(
            "Bob placed a grass-and-sand tile (#5) at (-1,-1) and completed a sand mound of 4 "
            "bulges worth 12, which nobody claimed"
        ),
        N_(
            "Alice placed a grass-and-sand tile with an orange snake plus a gold coin (#3) at "
            "(1,-1) and completed an orange snake worth 2 to Alice"
        ),
        N_(
            "Alice placed a grass-and-sand tile with an orange snake plus a gold coin (#3) at "
            "(1,-1) and completed an orange snake worth 2 to Alice and a grass tuft of 4 bulges "
            "worth 18 to Alice; the orange snake left the board"
        ),
        N_(
            "Alice placed a grass-and-sand tile with an orange snake plus a gold coin (#3) at "
            "(1,-1) and completed an orange snake worth 2 to Alice and a grass tuft of 4 bulges "
            "worth 18 to Alice; the orange snake left the board; Alice's bet on the fly won 5"
        ),
        N_(
            "Alice placed a grass-and-sand tile with 2 flowers plus a shovel (#1) at (1,0) and put "
            "a boot on the sand"
        ),
        N_("Alice placed a grass-and-sand tile (#2) at (-1,0)"),
        N_(
            "Bob flipped the tile at (1,0) and put a boot on the grass; Alice's boot there was lost"
        ),
        N_(
            "Alice placed a grass-and-sand tile with a gold coin (#1) at (1,0) and put a boot on "
            "the grass"
        ),
        N_(
            "Alice placed a grass-and-sand tile with an orange snake (#2) at (-1,0) and put a boot "
            "on the orange snake"
        ),
        N_(
            "Bob placed a grass-and-sand tile with a flower (#4) at (2,0) and put a boot on the "
            "sand"
        ),
        N_("Bob placed a grass-and-sand tile (#5) at (-1,-1)"),
        N_("Alice placed a grass-and-sand tile (#3) at (-1,-2)"),
        N_("Alice passed, as no tile could be placed or flipped"),
        N_("Bob placed a grass-and-sand tile (#6) at (-1,-3); the game ended"),
        N_(
            "The tiles ran out; the end bonus gave Alice 4 and Bob 3; Alice wins with 4 points to "
            "Bob's 3"
        ),
    }
)
# Whose boot on what, in the end-bonus example: one sentence per feature, since the languages
# that the page is translated into give each feature its own gender or article.
BOOT_ON = {
    "grass tuft": N_("%(name)s's boot on the grass tuft:"),
    "sand mound": N_("%(name)s's boot on the sand mound:"),
    "orange snake": N_("%(name)s's boot on the orange snake:"),
    "blue snake": N_("%(name)s's boot on the blue snake:"),
    "worm": N_("%(name)s's boot on the worm:"),
}
# The prey a bet won, as the Animals example names it.
PREY_WORDS = {"fly": N_("the fly"), "frog": N_("the frog")}


def _quoted(sentences: Sequence[str]) -> list[str]:
    """`sentences` as the page quotes them: each must be one of `SAID`, or the page would show it
    untranslated."""
    unknown = [sentence for sentence in sentences if sentence not in SAID]
    if unknown:
        raise ValueError(f"the engine now says {unknown[0]!r}: put it in SAID and translate it")
    return list(sentences)


def _game(
    variant: str,
    moves: Sequence[str],
    deck: Deck | None = None,
    start: Mapping[str, Any] | None = None,
    length: str = "short",
    seed: int = 0,
) -> tuple[MarramState, list[str]]:
    """The position after `moves`, and each move's sentence."""
    state = MarramState.new(make_setup(2, variant, length, seed, start, deck))
    said = []
    for move in moves:
        state, sentence = state.play_described(move)
        said.append(fill_names(sentence, NAMES))
    return state, _quoted(said)


def _region(state: MarramState, x: int, y: int, quadrant: str, variant: str) -> dict[str, Any]:
    """A region as the examples add it up."""
    region = region_at(state.board, (x, y), QUADRANTS.index(quadrant))
    return {
        "terrain": "grass tuft" if region.terrain == "g" else "sand mound",
        "bulges": region.tiles,
        "gold": region.gold,
        "silver": region.silver,
        "flowers": region.flowers,
        "complete": region.complete,
        "value": region.value(variant),
        "bonus": region.end_bonus(),
    }


def _creature(state: MarramState, x: int, y: int, spoke: str) -> dict[str, Any]:
    piece = state.board[(x, y)].piece_at(SPOKES.index(spoke))
    creature = creature_at(state.board, (x, y), piece)
    return {
        "species": SPECIES[creature.species],
        "kinds": dict(creature.kinds),
        "pieces": creature.pieces,
        "valid": creature.valid,
        "complete": creature.complete,
        "value": creature.value(),
    }


def _scored(state: MarramState, feature: str, since: int) -> list[dict[str, Any]]:
    return [
        event
        for event in state.log
        if event["type"] == feature and event["ply"] >= since and event.get("winners") != []
    ]


def _units(variant: str, terrain: str) -> dict[str, int]:
    """What one bulge, coin or flower adds to a region's value in `variant` (rules 5.5)."""

    def value(**counts: int) -> int:
        amounts = {"tiles": 0, "gold": 0, "silver": 0, "flowers": 0} | counts
        return Region(terrain, frozenset(), True, True, **amounts).value(variant)

    base = value()
    return {
        "bulge": value(tiles=1) - base,
        "gold": value(gold=1) - base,
        "silver": value(silver=1) - base,
        "flower": value(flowers=1) - base,
    }


def examples() -> Examples:
    opening = MarramState.new(make_setup(2, "classic", "short", OPENING_SEED, None, None))
    snake, snake_said = _game("classic", SNAKE_MOVES, SNAKE_DECK)
    tuft, tuft_said = _game("classic", TUFT_MOVES, TUFT_DECK, PLAIN)
    leaves = {
        v: _game(v, _leaves_moves(v), LEAVES_DECK, PLAIN)
        for v in ("classic", "pitchfork", "animals")
    }
    flip_before, flip_said = _game("classic", FLIP_SETUP, FLIP_DECK, PLAIN)
    flipped, flip_words = flip_before.play_described(FLIP_MOVE)
    bonus, bonus_said = _game("classic", BONUS_MOVES, BONUS_DECK, PLAIN, "long")
    fork_game = leaves["pitchfork"][0]
    bet_game = leaves["animals"][0]
    facts: dict[str, Any] = {
        "names": NAMES,
        "supplies": {v: dict(zip(SUPPLY_NAMES, s, strict=True)) for v, s in SUPPLIES.items()},
        "thresholds": {v: dict(zip((2, 3, 4), t, strict=True)) for v, t in THRESHOLDS.items()},
        "prey_points": PREY_POINTS,
        "units": {
            v: {"grass": _units(v, "g"), "sand": _units(v, "s")}
            for v in ("classic", "pitchfork", "animals")
        },
        "opening_hand": opening.view(0)["hand"],
        "opening_bag": opening.view(0)["bag"],
        "snake_moves": SNAKE_MOVES,
        "snake_said": snake_said,
        "snake": _creature(snake, 1, 0, "W"),
        "snake_scores": snake.scores(),
        "tuft_moves": TUFT_MOVES,
        "tuft_said": tuft_said,
        "tuft": _region(tuft, 1, -1, "NW", "classic"),
        "tuft_scores": tuft.scores(),
        "leaves_moves": {v: _leaves_moves(v) for v in leaves},
        "leaves_said": {v: said for v, (_, said) in leaves.items()},
        "leaves_scores": {v: game.scores() for v, (game, _) in leaves.items()},
        "leaves_tuft": {v: _region(game, 1, -1, "NW", v) for v, (game, _) in leaves.items()},
        "leaves_creature": _scored(fork_game, "score", 4)[0],
        "eaten": [e for e in bet_game.log if e["type"] == "eaten"],
        "prey_words": PREY_WORDS,
        "flip_said": flip_said,
        "flip_move": FLIP_MOVE,
        "flip_words": _quoted([fill_names(flip_words, NAMES)])[0],
        "bonus_said": bonus_said,
        "bonus_features": [
            {"seat": seat, "name": NAMES[seat], "x": x, "y": y, "loc": loc}
            | (
                _region(bonus, x, y, loc, "classic")
                if loc in QUADRANTS
                else _creature(bonus, x, y, loc)
            )
            for seat, x, y, loc in BONUS_CLAIMS
        ],
        "boot_on": BOOT_ON,
        "bonus_events": [e for e in bonus.log if e["type"] == "end-bonus"],
        "bonus_scores": bonus.scores(),
        "bonus_ending": _quoted([fill_names(bonus.describe_outcome() or "", NAMES)])[0],
    }
    names, board = NAMES, FOCUS
    figures = {
        "opening": Figure(opening, 0, names),
        "snake": Figure(snake, None, names, board),
        "tuft": Figure(tuft, None, names, board),
        "leaves-classic": Figure(leaves["classic"][0], None, names, board),
        "leaves-pitchfork": Figure(fork_game, None, names, board),
        "leaves-animals": Figure(bet_game, None, names, board),
        "flip-before": Figure(flip_before, None, names, board),
        "flip-after": Figure(flipped, None, names, board),
        "bonus": Figure(bonus, None, names, board),
    }
    return Examples(figures=figures, facts=facts)


GUIDE = Guide(
    players=N_("2 to 4 players"),
    length=N_("short: to a target score; long: until the 84 tiles are laid"),
    summary=N_(
        "A tile-laying game in the dunes. Players lay square tiles of grass and sand crossed by "
        "snakes and worms, claim what they hope to finish with welly boots, and score a grass "
        "tuft, a sand mound or a creature when it is completed. Shovels let you flip a tile "
        "over and reshape the landscape. Play Classic, Pitchfork or Animals, short or long."
    ),
    sections=(
        Section("goal", N_("The goal")),
        Section(
            "tiles",
            N_("The tiles"),
            (
                ("terrain", N_("Grass and sand")),
                ("creature-pieces", N_("Snakes and worms")),
                ("decorations", N_("Coins, flowers and shovels")),
            ),
        ),
        Section(
            "turn",
            N_("A turn"),
            (
                ("place", N_("Placing a tile")),
                ("flip", N_("Flipping a tile")),
                ("claims", N_("Boots and pitchforks")),
                ("drawing", N_("Drawing")),
                ("dead-tiles", N_("Dead tiles")),
            ),
        ),
        Section(
            "features",
            N_("What scores"),
            (("regions", N_("Grass tufts and sand mounds")), ("creatures", N_("Creatures"))),
        ),
        Section(
            "scoring",
            N_("Scoring"),
            (
                ("majority", N_("Who scores")),
                ("values", N_("Values")),
                ("example-snake", N_("Example: a snake")),
                ("example-tuft", N_("Example: a tuft")),
            ),
        ),
        Section(
            "end",
            N_("The end of the game"),
            (
                ("short-game", N_("Short game")),
                ("long-game", N_("Long game")),
                ("end-bonus", N_("End bonus")),
            ),
        ),
        Section(
            "variants",
            N_("Classic, Pitchfork and Animals"),
            (
                ("classic", N_("Classic")),
                ("pitchfork", N_("Pitchfork")),
                ("animals", N_("Animals")),
            ),
        ),
        Section("notation", N_("Writing a move")),
    ),
    terms=(
        Term(
            "action",
            ("action", "actions"),
            "A turn is two actions, one after the other. Each action places a tile from your "
            "hand or flips a tile on the board, and may claim a feature of that tile.",
            "turn",
        ),
        Term(
            "boot",
            ("boot", "boots", "welly boot", "welly boots"),
            "Your claim token. Stand one on a feature of the tile you just laid or flipped; "
            "whoever has the most tokens on a feature scores it when it is completed.",
            "claims",
        ),
        Term(
            "pitchfork",
            ("pitchfork", "pitchforks", "fork", "forks"),
            "Pitchfork and Animals only: the token that claims a creature (a boot claims only "
            "grass or sand there).",
            "claims",
        ),
        Term(
            "shovel",
            ("shovel", "shovels"),
            "Each shovel lets you flip one tile that shows a shovel symbol, once: turning the "
            "tile over changes its picture, and the tokens on it are lost.",
            "flip",
        ),
        Term(
            "flip",
            ("flip", "flips", "flipped", "flippable"),
            "An action that spends a shovel to turn a laid tile with a shovel symbol over to its "
            "back. Every boot, pitchfork and bet on that tile leaves the game.",
            "flip",
        ),
        Term(
            "bet",
            ("bet", "bets", "bet token", "bet tokens"),
            "Animals only: a token on a fly or frog drawn on a snake. When the snake is completed "
            "as a proper snake, the bet wins 5 for a fly or 7 for a frog.",
            "animals",
        ),
        Term(
            "prey",
            ("prey", "fly", "frog"),
            "Animals only: a fly or frog drawn on a snake, which you may bet on.",
            "animals",
        ),
        Term(
            "bag",
            ("bag", "in the bag"),
            "The tiles not yet drawn. After your turn you draw back up to 3 tiles in hand.",
            "drawing",
        ),
        Term(
            "dead-tile",
            ("dead tile", "dead tiles"),
            "A tile in your hand that fits nowhere on the board. Just before you act it is "
            "thrown away, face up, and you draw another.",
            "dead-tiles",
        ),
        Term(
            "tuft",
            ("grass tuft", "grass tufts", "tuft", "tufts"),
            "A patch of grass joined across tiles. It is completed when it is closed all "
            "round and no snake or worm lies against it.",
            "regions",
        ),
        Term(
            "mound",
            ("sand mound", "sand mounds", "mound", "mounds"),
            "A patch of sand joined across tiles, completed like a grass tuft.",
            "regions",
        ),
        Term(
            "bulge",
            ("bulge", "bulges"),
            "Each tile a grass tuft or sand mound covers is one bulge; it scores per bulge.",
            "regions",
        ),
        Term(
            "creature",
            ("creature", "creatures", "orange snake", "blue snake", "worm", "worms"),
            "An orange snake, blue snake or worm: pieces joined across tile edges. It is "
            "completed when every piece meets a laid tile at its ends.",
            "creatures",
            headword="creature (snake, worm)",
        ),
        Term(
            "freak-beast",
            ("freak beast", "freak beasts", "freak"),
            "A completed creature of the wrong shape, such as a snake with no ends or a worm "
            "without its saddle. It scores 3.",
            "creatures",
        ),
        Term(
            "end-bonus",
            ("end bonus",),
            "When a game runs out of tiles, each unfinished feature with tokens on it scores a "
            "little for whoever has the most tokens there.",
            "end-bonus",
        ),
    ),
    examples=examples,
    variants=(
        Variant("variant", "classic", N_("Classic"), "classic"),
        Variant("variant", "pitchfork", N_("Pitchfork"), "pitchfork"),
        Variant("variant", "animals", N_("Animals"), "animals"),
        Variant("length", "short", N_("Short game"), "short-game"),
        Variant("length", "long", N_("Long game"), "long-game"),
    ),
)
