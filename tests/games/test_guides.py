"""The games' guides for players: the worked examples on the rules pages are what the rules in
docs/rules/ say, as the engine scores them, and a guide cannot point at a part it does not
have."""

from __future__ import annotations

import pytest

from pbem import games
from pbem.domain import glossary
from pbem.games.guide import Examples, Guide, Section, Term
from pbem.games.marram.features import Creature

GAMES = ["gorami", "marram", "mmw"]


def _facts(name: str) -> Examples:
    guide = glossary.guide(name)
    assert guide is not None
    return guide.examples()


@pytest.mark.parametrize("name", GAMES)
def test_every_figure_is_a_position_of_its_game_the_engine_can_draw(name: str) -> None:
    engine = games.get(name)
    for key, figure in _facts(name).figures.items():
        again = engine.from_json(figure.state.to_json())
        assert again.to_json() == figure.state.to_json(), key
        names = list(figure.names) if figure.names else None
        assert engine.render_svg(figure.state, figure.seat, names).startswith("<svg"), key


def test_gorami_capture_and_scoring_follow_the_rules() -> None:
    facts = _facts("gorami").facts
    # "No cell sharing an edge with it holds a disc of the same number": b3 holds the 2.
    assert facts["no_two"] == ["b2", "b4"]
    assert facts["captured"] == ["c4"]
    assert facts["capture_words"] == "Yellow placed a 2 on c5 and captured the 1 on c4"
    # The whole game: equal fish, two tied stripes (no fish), the interior decides.
    stripes = facts["stripes"]
    assert len(stripes) == 10
    for stripe in stripes:
        higher = "yellow" if stripe["yellow"] > stripe["blue"] else "blue"
        assert stripe["fish"] == (None if stripe["yellow"] == stripe["blue"] else higher)
    won = [sum(1 for s in stripes if s["fish"] == colour) for colour in ("yellow", "blue")]
    assert won == facts["fish"] == [4, 4] and facts["tied"] == 2
    assert facts["interior"] == [5, 0] and facts["winner"] == "yellow"
    assert sum(d["number"] for d in facts["interior_discs"] if d["colour"] == "yellow") == 5
    row = facts["row"]
    assert row["sums"] == {"yellow": 7, "blue": 5}
    assert next(s for s in stripes if s["cells"][0] == "b1" and s["kind"] == "row")["fish"] == (
        "yellow"
    )


def test_mmw_stacks_are_the_rules_own_examples() -> None:
    facts = _facts("mmw").facts
    stacks = facts["stacks"]
    # docs/rules/mmw.md: large over small 4 touching; small on small 1 and 1; two smalls then a
    # large 4 touching and 1 not.
    assert (stacks["b3"]["touching"], stacks["b3"]["resting"]) == (4, 0)
    assert (stacks["c3"]["touching"], stacks["c3"]["resting"]) == (1, 1)
    assert (stacks["d3"]["touching"], stacks["d3"]["resting"]) == (4, 1)
    assert [p["touching"] for p in stacks["d3"]["pyramids"]] == [True, False, True]


def test_mmw_sinking_is_fewer_touching_than_resting_points() -> None:
    facts = _facts("mmw").facts
    before, landed = facts["sinking_before"], facts["sinking_landed"]
    assert before["touching"] == before["resting"] == 3  # level: it does not sink
    assert (landed["touching"], landed["resting"]) == (3, 4)
    assert not landed["pyramids"][-1]["touching"]  # the small arriving rests
    assert "sank into the mud (touching 3 < resting 4)" in facts["sinking_words"]
    assert (
        "Red lost a small and a large and Blue lost a small and a medium"
        in (facts["sinking_words"])
    )
    assert facts["sinking_scores"] == [15 - 2 - 5, 15 - 2 - 6]
    assert facts["stuck_ending"].startswith("Red could not move; Blue wins")


def test_marram_examples_score_what_the_rules_values_give() -> None:
    facts = _facts("marram").facts
    # A blue snake: 3 for the head, 3 for the tail, 3 per mid.
    assert facts["snake"]["kinds"] == {"head": 1, "mid": 1, "tail": 1}
    assert facts["snake"]["value"] == 9 and facts["snake_scores"] == [9, 0]
    # A grass tuft in Classic: 5 per bulge + 5 per gold coin + 3 per silver coin.
    tuft = facts["tuft"]
    assert (tuft["bulges"], tuft["gold"], tuft["silver"], tuft["complete"]) == (4, 1, 1, True)
    assert tuft["value"] == 4 * 5 + 5 + 3 == facts["tuft_scores"][0]
    # Pitchfork: the snake (1 per end) leaves and the tuft (3, 4, 2) completes in that action.
    assert facts["leaves_creature"]["value"] == 2
    assert facts["leaves_tuft"]["pitchfork"]["value"] == 4 * 3 + 4 + 2
    assert facts["leaves_scores"]["pitchfork"] == [2 + 18, 0]
    # Classic keeps the snake on the board: the tuft is not surrounded.
    assert not facts["leaves_tuft"]["classic"]["complete"]
    assert facts["leaves_scores"]["classic"] == [2, 0]
    # Animals: the fly on a valid snake wins its bet 5.
    assert [(e["prey"], e["points"]) for e in facts["eaten"]] == [("fly", 5)]
    assert facts["leaves_scores"]["animals"] == [2 + 18 + 5, 0]
    # A flip loses the tokens on the tile.
    assert "Alice's boot there was lost" in facts["flip_words"]


def test_marram_end_bonus_adds_up_per_feature() -> None:
    facts = _facts("marram").facts
    bonus = [0, 0]
    for feature in facts["bonus_features"]:
        assert not feature["complete"]
        if "terrain" in feature:
            points = feature["bulges"] + feature["gold"] + feature["silver"] + feature["flowers"]
            assert feature["bonus"] == points
        else:
            points = feature["pieces"]
        bonus[feature["seat"]] += points
    assert bonus == [e["points"] for e in facts["bonus_events"]] == facts["bonus_scores"]


def test_marram_values_table_is_the_engines() -> None:
    """The rules page writes the creature values in words; they are the engine's."""

    def value(species: str, **kinds: int) -> int:
        return Creature(species, frozenset(), frozenset(), True, kinds).value()

    assert value("o", end=2) == 2 and value("o", end=2, mid=3) == 5  # 1 per end + 1 per mid
    assert value("w", end=2, saddle=1) == 6 and value("w", end=2, saddle=1, mid=2) == 10
    assert value("b", head=1, tail=1, mid=1) == 9 and value("b", head=1, tail=1, mid=2) == 12
    assert value("b", head=2, tail=1, mid=1) == 3  # a freak beast
    units = _facts("marram").facts["units"]
    assert units["classic"]["grass"] == {"bulge": 5, "gold": 5, "silver": 3, "flower": 0}
    assert units["classic"]["sand"] == {"bulge": 5, "gold": 0, "silver": 0, "flower": 4}
    assert units["pitchfork"] == units["animals"]
    assert units["pitchfork"]["grass"] == {"bulge": 3, "gold": 4, "silver": 2, "flower": 0}
    assert units["pitchfork"]["sand"] == {"bulge": 3, "gold": 0, "silver": 0, "flower": 3}


def _guide(**changes: object) -> Guide:
    parts: dict[str, object] = {
        "players": "2 players",
        "length": "short",
        "summary": "A game.",
        "sections": tuple(Section(a, a) for a in ("goal", "turn", "scoring", "end")),
        "terms": (Term("word", ("word",), "What it means.", "turn"),),
        "examples": lambda: Examples(figures={}),
    }
    parts.update(changes)
    return Guide(**parts)  # type: ignore[arg-type]


def test_a_guide_refuses_to_point_at_nothing() -> None:
    assert _guide().anchors() == ["goal", "turn", "scoring", "end"]
    with pytest.raises(ValueError, match="needs the sections end"):
        _guide(sections=tuple(Section(a, a) for a in ("goal", "turn", "scoring")))
    with pytest.raises(ValueError, match="point at no section of the guide: word"):
        _guide(terms=(Term("word", ("word",), "What it means.", "nowhere"),))
    with pytest.raises(ValueError, match="two terms share a key"):
        _guide(terms=(Term("a", ("a",), "A.", "turn"), Term("a", ("b",), "B.", "turn")))
    with pytest.raises(ValueError, match="lower-case-hyphenated"):
        Term("Fish", ("fish",), "Fish.", "scoring")
    with pytest.raises(ValueError, match="at least one form"):
        Term("fish", (), "Fish.", "scoring")
    with pytest.raises(ValueError, match="say what it means"):
        Term("fish", ("fish",), " ", "scoring")
