"""GORami: scenario tests for every rule, notation and messages, views, JSON, renders, invariants.

Positions are reached by playing moves through the engine; where a hand-made position is clearer,
`setup` builds it (checked: disc counts, the equal-number ban) and the moves are then played
through the same `play` as in a real game. The board tables themselves are tested in
test_gorami_tables.py.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem import games
from pbem.games import IllegalMove, InvalidMove
from pbem.games.gorami import GoramiState, setup
from pbem.games.gorami.board import board

GAME = games.get("gorami")


def new(size: int = 22) -> GoramiState:
    state = GAME.new(2, {"board": size})
    assert isinstance(state, GoramiState)
    return state


def play(state: GoramiState, *moves: str) -> GoramiState:
    for move in moves:
        state = state.play(move)
    return state


def replay(size: int, moves: str) -> tuple[GoramiState, list[int]]:
    """Play a recorded game; also return who moved at each ply."""
    state = new(size)
    movers = []
    for move in moves.split():
        assert state.to_move is not None
        movers.append(state.to_move)
        state = state.play(move)
    return state, movers


def can_place(state: GoramiState, seat: int) -> bool:
    """The placement rule, checked directly on the position (not via legal_moves)."""
    geo = state.board
    for n, left in enumerate(state.hand(seat), start=1):
        if not left:
            continue
        for cell in geo.cells:
            if state.disc(cell.name) is not None:
                continue
            near = [state.disc(geo.cells[o].name) for o in geo.neighbours[cell.index]]
            if all(d is None or d[0] != n for d in near):
                return True
    return False


# Recorded random games (seeded playouts), each showing one way a game can end.
GAME_16_SKIP_NO_MOVE = "2c5 3b5 3a3 3b3 2b4 3d2 2d3 1c3 1b1 2d1 3c1 2b2 1a2 3a1"
GAME_16_FISH = "1d3 3c2 3c4 1c1 2a2 3a3 2d1 3b5 1b3 2b4 1a1 2c3 2c5 2b1 3b2 3d2"
GAME_16_NO_MOVE_DRAW = "1c2 2a1 3b4 1b5 3c4 2b1 2d3 2a3 1b2 3c1 2d1 1a2 2c5 1d2"
GAME_22_INTERIOR = (
    "2d5 1c2 2c1 3c4 1b2 1c5 3d3 1d2 2b1 3a1 1a3 3c7 1d7 1b5 2a2 2c6 3d6 2b3 1d4 2c3 3d1 3b4"
)
GAME_22_DRAW = (
    "2b3 3c1 2d3 1c7 3d6 2c5 2c2 3c6 1b2 3a1 1c4 1a2 1d5 1d2 1b4 3c3 2d1 2a3 3b1 2d7 3d4 2b5"
)
GAME_22_TRIPLE = "1c3 2c7 3d1 2a1 1b1 1a2 1d6 3d4 3c4 3d7 2c1 2c5 1b3 2b4 3b2 3c6 2d3 3c2"
GAME_24_NO_MOVE_INTERIOR = (
    "3b5 3c6 2b2 2c5 3a2 1c4 1c7 3b7 3b3 1d4 1a5 2c3 2a4 1c1 1b4 3b1 3d3 1a1 2d2 3d1 2d5 2b6"
)


# -- set-up -------------------------------------------------------------------------------------


def test_metadata() -> None:
    assert GAME.name == "gorami"
    assert GAME.title == "GORami"
    assert (GAME.min_players, GAME.max_players) == (2, 2)
    assert dict(GAME.options) == {"board": (22, 16, 24)}
    assert all(isinstance(v, int) for v in GAME.options["board"])


@pytest.mark.parametrize(("size", "per_number"), [(16, 3), (22, 4), (24, 4)])
def test_new_game(size: int, per_number: int) -> None:
    state = new(size)
    assert state.to_move == 0, "yellow (seat 0) moves first"
    assert state.hand(0) == state.hand(1) == [per_number] * 3
    assert state.history == []
    assert state.outcome is None
    assert state.scores() == [0, 0]
    assert len(state.legal_moves()) == 3 * size
    assert state.view(None)["colours"] == ["yellow", "blue"]


def test_default_board_is_22_and_options_are_checked() -> None:
    assert GAME.new(2).board.size == 22  # type: ignore[attr-defined]
    assert GAME.new(2, {"board": "16"}).board.size == 16  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="board"):
        GAME.new(2, {"board": 18})
    with pytest.raises(ValueError, match="players"):
        GAME.new(3)


# -- notation -----------------------------------------------------------------------------------


def test_input_is_case_and_space_tolerant_and_history_is_canonical() -> None:
    state = new()
    for text in ("2B3", "  2b3 ", "2 b 3", "\t2B3\n"):
        after = state.play(text)
        assert after.history == ["2b3"]
        assert after.to_json() == state.play("2b3").to_json()


@pytest.mark.parametrize(
    ("size", "move", "words"),
    [
        (22, "4b3", "no disc numbered 4"),
        (22, "0a1", "no disc numbered 0"),
        (22, "22b3", "no disc numbered 22"),
        (22, "2e1", "no cell e1"),
        (22, "2a4", "no cell a4"),
        (22, "2b6", "no cell b6"),
        (16, "2c6", "no cell c6"),
        (16, "1d4", "no cell d4"),
        (24, "3d6", "no cell d6"),
        (22, "02b3", "write this move as 2b3"),
        (22, "2b03", "write this move as 2b3"),
        (22, "2b0", "no cell b0"),
        (22, "b3", "not a GORami move"),
        (22, "2b", "not a GORami move"),
        (22, "2-b3", "not a GORami move"),
    ],
)
def test_moves_that_cannot_be_read_on_this_board_are_invalid(
    size: int, move: str, words: str
) -> None:
    state = new(size)
    with pytest.raises(InvalidMove, match=re.escape(words)) as caught:
        state.play(move)
    assert move in str(caught.value)
    assert not isinstance(caught.value, IllegalMove)


def test_cells_exist_only_on_their_boards() -> None:
    assert "2a4" in new(24).legal_moves()
    assert "2b6" in new(24).legal_moves()
    assert "2c6" in new(22).legal_moves()
    assert "2c6" not in new(16).legal_moves()


# -- the placement rules ------------------------------------------------------------------------


def test_occupied_cell_is_illegal() -> None:
    state = play(new(), "2b3")
    with pytest.raises(IllegalMove, match=r"3b3: b3 already holds a disc \(yellow 2\)"):
        state.play("3b3")


def test_no_disc_of_that_number_left_is_illegal() -> None:
    # Yellow spends its three 1s on the 16 board (a1, a3, b3 do not touch).
    state = play(new(16), "1a1", "2a2", "1a3", "2b1", "1b3", "3c5")
    assert state.hand(0) == [0, 3, 3]
    with pytest.raises(IllegalMove, match="1d2: yellow has no 1 left; you still hold 2, 3"):
        state.play("1d2")
    assert "2d2" in state.legal_moves()


def test_equal_numbers_may_not_touch_along_an_edge_whatever_the_colour() -> None:
    state = play(new(22), "2b2")  # yellow 2 on b2; its edge neighbours are a1, b1, b3
    for move in ("2b3", "2a1", "2b1"):
        with pytest.raises(
            IllegalMove, match=f"{move}: b2 already holds a 2; a disc may not touch"
        ):
            state.play(move)  # blue may not put a 2 next to yellow's 2
        assert move not in state.legal_moves()
    state = play(state, "1c2")
    with pytest.raises(IllegalMove, match="2b1: b2 already holds a 2"):
        state.play("2b1")  # nor may yellow next to its own 2
    assert "1b1" not in state.legal_moves()  # b1 also touches blue's 1 on c2
    assert "3b1" in state.legal_moves()


def test_the_ban_message_names_every_touching_disc_and_the_allowed_cells() -> None:
    state = play(new(16), "2b2", "2b4", "1a1")
    with pytest.raises(IllegalMove) as caught:
        state.play("2b3")
    message = str(caught.value)
    assert message.startswith("2b3: b2 and b4 already hold a 2")
    assert "a 2 may go on" in message and "c5" in message


@pytest.mark.parametrize("cell", ["a2", "a3", "b4", "c2", "c3", "c4"])
def test_cells_touching_only_at_a_corner_may_hold_equal_numbers(cell: str) -> None:
    state = play(new(22), "2b2")
    assert f"2{cell}" in state.legal_moves()
    after = state.play(f"2{cell}")
    assert after.disc(cell) == (2, 1) and after.disc("b2") == (2, 0)


# -- capture ------------------------------------------------------------------------------------


def test_opponent_disc_whose_last_empty_neighbour_is_filled_changes_colour() -> None:
    # 16 board: a2's only neighbours are a1 and a3.
    state = play(new(16), "2a2", "1a1", "3c5")
    assert state.disc("a2") == (2, 0), "a3 is still empty, so a2 stays yellow"
    state = state.play("1a3")
    assert state.disc("a2") == (2, 1)
    assert state.captured() == ["a2"]
    assert state.disc("a3") == (1, 1) and state.disc("a1") == (1, 1)


def test_own_discs_never_change() -> None:
    state = play(new(16), "2a2", "3c5", "1a1", "3d1", "1a3")
    assert state.disc("a2") == (2, 0)
    assert state.captured() == []


def test_the_placed_disc_never_changes_and_a_changed_disc_stays() -> None:
    state = play(new(16), "1a1", "3c5", "1a3")
    state = state.play("2a2")  # blue fills a hole with no empty neighbour
    assert state.disc("a2") == (2, 1)
    assert state.captured() == []
    state = state.play("3b2")  # closes yellow's own a1: nothing changes
    assert state.disc("a1") == (1, 0) and state.captured() == []
    state = state.play("3b4")  # blue closes a3 (neighbours a2, b4): yellow's 1 turns blue
    assert state.disc("a3") == (1, 1) and state.captured() == ["a3"]
    assert state.disc("a2") == (2, 1)
    later = play(state, *state.legal_moves()[:1])
    assert later.disc("a3") == (1, 1) and later.disc("a2") == (2, 1)


# Three blue 1s around c4 on the 22 board, every other neighbour of theirs filled.
TRIPLE = {
    "b3": "b1",
    "c3": "b1",
    "c5": "b1",
    "b2": "y2",
    "b4": "y2",
    "c2": "b3",
    "d3": "y2",
    "c6": "y3",
    "d5": "b2",
}


def test_up_to_three_discs_change_in_one_move() -> None:
    state = setup(22, TRIPLE, to_move=0)
    assert state.to_move == 0
    after = state.play("3c4")
    assert after.captured() == ["b3", "c3", "c5"]
    assert [after.disc(c) for c in ("b3", "c3", "c5")] == [(1, 0)] * 3
    assert after.disc("c4") == (3, 0)
    # Filler discs elsewhere keep their colours even where they have no empty neighbour left.
    assert after.disc("c2") == (3, 1) and after.disc("d5") == (2, 1)


def test_only_opponent_discs_change_in_a_multiple_capture() -> None:
    state = setup(22, {**TRIPLE, "c5": "y1"}, to_move=0)
    after = state.play("3c4")
    assert after.captured() == ["b3", "c3"]
    assert after.disc("c5") == (1, 0)


def test_a_capture_of_three_in_a_played_game() -> None:
    state, movers = replay(22, GAME_22_TRIPLE)
    assert movers[-1] == 1
    assert state.captured() == ["b1", "c1", "c3"]  # the neighbours of c2
    assert all(state.disc(c) == (state.disc(c)[0], 1) for c in state.captured())  # type: ignore[index]


# -- turns and the end --------------------------------------------------------------------------

# A 16-board position: blue holds only 1s and every empty cell (a2, c3) touches a 1... for blue's
# purposes (a2 touches a1 and a3, c3 touches c2). Yellow holds a 2 and a 3.
BLOCKED_16 = {
    "a1": "b1",
    "a3": "y1",
    "c2": "y1",
    "d3": "b1",
    "b2": "y2",
    "c1": "b2",
    "b4": "b2",
    "c5": "y2",
    "d2": "b2",
    "b1": "y3",
    "b3": "b3",
    "b5": "y3",
    "c4": "b3",
    "d1": "y3",
}


def test_a_player_with_no_legal_placement_is_skipped() -> None:
    state = setup(16, BLOCKED_16, to_move=0, hands=[[0, 1, 1], [2, 0, 0]])
    assert state.legal_moves() == ["2a2", "2c3", "3a2"]
    after = state.play("2c3")
    assert not can_place(after, 1)
    assert after.to_move == 0, "blue cannot place, so yellow moves again"
    assert after.history == ["2c3"], "nobody sends a pass"
    final = after.play("3a2")
    assert final.outcome is not None and final.outcome.reason == "board-full"
    assert final.history == ["2c3", "3a2"]


def test_the_game_ends_when_neither_player_can_place() -> None:
    state = setup(16, BLOCKED_16, to_move=0, hands=[[0, 1, 1], [2, 0, 0]])
    after = state.play("2a2")  # now yellow's 3 cannot go on c3 (b3 and c4 hold 3s) either
    assert after.outcome is not None
    assert after.outcome.reason == "no-move"
    assert after.disc("c3") is None
    assert after.to_move is None and after.legal_moves() == []
    assert not can_place(after, 0) and not can_place(after, 1)


def test_a_played_game_with_a_skip_that_ends_with_no_move() -> None:
    state, movers = replay(16, GAME_16_SKIP_NO_MOVE)
    skips = [i for i in range(1, len(movers)) if movers[i] == movers[i - 1]]
    assert skips
    assert state.outcome is not None and state.outcome.reason == "no-move"
    assert any(state.disc(c.name) is None for c in state.board.cells)
    assert len(state.history) == sum(state.disc(c.name) is not None for c in state.board.cells)


def test_skips_happen_exactly_when_the_other_player_cannot_place() -> None:
    for size, moves in ((16, GAME_16_SKIP_NO_MOVE), (24, GAME_24_NO_MOVE_INTERIOR)):
        state = new(size)
        for move in moves.split():
            mover = state.to_move
            assert mover is not None
            state = state.play(move)
            if state.to_move == mover:
                assert not can_place(state, 1 - mover)
            elif state.to_move is None:
                assert not can_place(state, 0) and not can_place(state, 1)
            else:
                assert can_place(state, 1 - mover)


def test_a_full_board_ends_the_game() -> None:
    state, _ = replay(16, GAME_16_FISH)
    assert state.outcome is not None and state.outcome.reason == "board-full"
    assert all(state.disc(c.name) is not None for c in state.board.cells)


def test_finished_game_refuses_moves() -> None:
    state, _ = replay(16, GAME_16_FISH)
    with pytest.raises(IllegalMove, match="over"):
        state.play("1a1")


# -- scoring ------------------------------------------------------------------------------------


def test_stripe_sums_and_no_fish_for_a_tie() -> None:
    state = setup(16, {"a1": "y2", "a3": "b2"}, to_move=0)
    stripes = {tuple(s["cells"]): s for s in state.view(None)["stripes"]}
    row_a = stripes[("a1", "a2", "a3")]
    assert row_a["sums"] == [2, 2] and row_a["fish"] is None
    assert stripes[("a1", "a2", "b1", "b2", "c1")]["fish"] == 0
    assert stripes[("a2", "a3", "b4", "b5", "c5")]["fish"] == 1
    empty = stripes[("d1", "d2", "d3")]
    assert empty["sums"] == [0, 0] and empty["fish"] is None, "0-0 wins no fish"
    assert state.fish() == [2, 2]
    assert state.scores() == [2, 2]


def test_an_empty_board_gives_no_fish() -> None:
    view = new(24).view(None)
    assert all(s["fish"] is None and s["sums"] == [0, 0] for s in view["stripes"])
    assert view["fish"] == [0, 0]


def test_most_fish_wins() -> None:
    state, _ = replay(16, GAME_16_FISH)
    outcome = state.outcome
    assert outcome is not None
    fish = outcome.details["fish"]
    assert fish[0] != fish[1]
    assert outcome.winners == [0 if fish[0] > fish[1] else 1]
    assert outcome.scores == fish == state.scores()
    assert outcome.details["tiebreak"] == "fish"


@pytest.mark.parametrize(
    ("size", "moves"), [(22, GAME_22_INTERIOR), (24, GAME_24_NO_MOVE_INTERIOR)]
)
def test_equal_fish_are_broken_by_the_interior_sums(size: int, moves: str) -> None:
    state, _ = replay(size, moves)
    outcome = state.outcome
    assert outcome is not None
    fish, interior = outcome.details["fish"], outcome.details["interior"]
    assert fish[0] == fish[1]
    assert interior[0] != interior[1]
    assert outcome.winners == [0 if interior[0] > interior[1] else 1]
    assert outcome.details["tiebreak"] == "interior"
    geo = state.board
    expected = [0, 0]
    for index in geo.interior:
        disc = state.disc(geo.cells[index].name)
        if disc is not None:
            expected[disc[1]] += disc[0]
    assert interior == expected


@pytest.mark.parametrize(
    ("size", "moves", "reason"),
    [(22, GAME_22_DRAW, "board-full"), (16, GAME_16_NO_MOVE_DRAW, "no-move")],
)
def test_equal_fish_and_interior_is_a_draw(size: int, moves: str, reason: str) -> None:
    state, _ = replay(size, moves)
    outcome = state.outcome
    assert outcome is not None
    assert outcome.winners == []
    assert outcome.reason == reason
    assert outcome.details["tiebreak"] == "draw"
    assert outcome.details["fish"][0] == outcome.details["fish"][1]
    assert outcome.details["interior"][0] == outcome.details["interior"][1]


# -- views and JSON -----------------------------------------------------------------------------


def test_view_shows_everything_to_everyone() -> None:
    state = play(new(22), "2b3", "3c4", "1a1")
    views = [state.view(seat) for seat in (None, 0, 1)]
    for view in views:
        assert json.loads(json.dumps(view)) == view
        assert view["board"] == 22
        assert view["to_move"] == 1
        assert view["colours"] == ["yellow", "blue"]
        assert view["hands"] == [{"1": 3, "2": 3, "3": 4}, {"1": 4, "2": 4, "3": 3}]
        assert view["last_move"] == "1a1"
        assert view["history"] == ["2b3", "3c4", "1a1"]
        assert view["outcome"] is None
        assert view["scores"] == view["fish"] == state.fish()
        assert view["interior"] == [2, 3]
        assert len(view["cells"]) == 22
        cells = {c["name"]: c for c in view["cells"]}
        assert cells["b3"] == {
            "name": "b3",
            "row": 1,
            "col": 3,
            "orientation": "up",
            "interior": True,
            "neighbours": ["b2", "b4", "c4"],
            "disc": {"number": 2, "colour": "yellow", "seat": 0},
        }
        assert cells["c4"]["disc"] == {"number": 3, "colour": "blue", "seat": 1}
        assert cells["d1"]["disc"] is None and cells["d1"]["orientation"] == "down"
        assert len(view["stripes"]) == 12
    assert {k: v for k, v in views[1].items() if k != "seat"} == {
        k: v for k, v in views[0].items() if k != "seat"
    }
    for bad in (2, -1):
        with pytest.raises(ValueError):
            state.view(bad)


def test_view_of_a_finished_game_carries_the_outcome() -> None:
    state, _ = replay(22, GAME_22_INTERIOR)
    view = state.view(None)
    assert view["to_move"] is None
    assert view["outcome"]["details"]["tiebreak"] == "interior"
    assert view["legal_moves"] == []


def test_json_round_trip_keeps_the_last_capture() -> None:
    state = setup(22, TRIPLE, to_move=0).play("3c4")
    data = json.loads(json.dumps(state.to_json()))
    again = GAME.from_json(data)
    assert again.to_json() == state.to_json()
    assert again.captured() == ["b3", "c3", "c5"]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "tamper",
    [
        lambda d: d["discs"].update({"a2": "y1"}),  # an extra disc from nowhere
        lambda d: d["discs"].update({"b2": "y2", "b1": "b2"}) or d["hands"][0].__setitem__(1, 2),
        lambda d: d["discs"].update({"z9": "y1"}),
        lambda d: d["hands"].pop(),
        lambda d: d.update({"to_move": None}),
        lambda d: d.update({"board": 18}),
        lambda d: d.pop("discs"),
    ],
)
def test_from_json_refuses_impossible_states(tamper: Any) -> None:
    data = play(new(22), "2b3", "3c4").to_json()
    tamper(data)
    with pytest.raises(ValueError):
        GAME.from_json(data)


def test_from_json_refuses_a_turn_for_a_player_who_cannot_place() -> None:
    data = setup(16, BLOCKED_16, to_move=0, hands=[[0, 1, 1], [2, 0, 0]]).to_json()
    data["to_move"] = 1
    with pytest.raises(ValueError, match="cannot place"):
        GAME.from_json(data)


def test_junk_that_is_not_text_is_an_invalid_move() -> None:
    with pytest.raises(InvalidMove):
        new().play(["2b3"])  # type: ignore[arg-type]
    with pytest.raises(InvalidMove):
        new().play(23)  # type: ignore[arg-type]


def test_from_json_of_a_finished_game() -> None:
    state, _ = replay(16, GAME_16_NO_MOVE_DRAW)
    again = GAME.from_json(state.to_json())
    assert again.outcome == state.outcome
    assert again.to_move is None


# -- renders ------------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [16, 22, 24])
def test_svg_draws_every_cell_with_its_disc(size: int) -> None:
    state = play(new(size), "2b3", "3a1", "1c2")
    svg = GAME.render_svg(state, seat=0)
    assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>")
    for cell in state.board.cells:
        assert f'data-cell="{cell.name}"' in svg
        assert f">{cell.name}</text>" in svg
    assert 'data-cell="b3" data-number="2" data-colour="yellow"' in svg
    assert 'data-cell="a1" data-number="3" data-colour="blue"' in svg
    # Blue's last move, and yellow's own since nobody has moved after it.
    assert '<g class="last-turn" data-seat="1" data-plies="1"' in svg
    assert '<g class="last-turn" data-seat="0" data-plies="2"' in svg
    assert svg.count('class="hand-disc"') == 6
    assert "Blue to move" in svg
    assert svg.count('class="stripe"') == len(state.board.stripes)
    assert GAME.render_svg(state, seat=None).startswith("<svg")


def test_svg_and_text_of_a_finished_game_name_the_result() -> None:
    state, _ = replay(22, GAME_22_DRAW)
    assert "draw" in GAME.render_svg(state)
    assert "draw" in GAME.render_text(state)


@pytest.mark.parametrize(
    ("size", "moves", "words"),
    [
        (16, GAME_16_FISH, "Board full: Yellow wins with 7 fish to 2"),
        (22, GAME_22_INTERIOR, "Board full: Blue wins on the interior, 8 to 0 (6 fish each)"),
        (16, GAME_16_NO_MOVE_DRAW, "No one can place: draw (4 fish each, interior 0 each)"),
    ],
)
def test_the_result_is_spelled_out(size: int, moves: str, words: str) -> None:
    state, _ = replay(size, moves)
    assert words in GAME.render_text(state)
    assert words in GAME.render_svg(state)


def test_text_board_has_the_rules_diagram_rows_and_the_discs() -> None:
    state = play(new(22), "2b3", "3a1")
    text = GAME.render_text(state, seat=1)
    lines = text.splitlines()
    assert "        a1^  a2v  a3^" in lines
    assert "c1^  c2v  c3^  c4v  c5^  c6v  c7^" in lines
    row_b = lines.index("    b1^  b2v  b3^  b4v  b5^")
    assert lines[row_b + 1].split() == [".", ".", "Y2", ".", "."]
    assert lines[row_b - 1].split() == ["B3*", ".", "."]
    assert "Blue   seat 1 (you)" in text and "1x4  2x4  3x3" in text
    assert "Yellow to move" in text


def test_render_refuses_other_games_states() -> None:
    with pytest.raises(TypeError):
        GAME.render_text(object())  # type: ignore[arg-type]


# -- invariants ---------------------------------------------------------------------------------


def _discs(state: GoramiState) -> dict[str, tuple[int, int]]:
    found = {}
    for cell in state.board.cells:
        disc = state.disc(cell.name)
        if disc is not None:
            found[cell.name] = disc
    return found


@settings(max_examples=120)
@given(size=st.sampled_from([16, 22, 24]), data=st.data())
def test_invariants_over_random_games(size: int, data: st.DataObject) -> None:
    state = new(size)
    geo = board(size)
    k = geo.discs_per_number
    all_moves = [f"{n}{cell.name}" for n in (1, 2, 3) for cell in geo.cells]
    while state.outcome is None:
        before_json = state.to_json()
        before = _discs(state)
        seat = state.to_move
        assert seat is not None
        legal = state.legal_moves()
        assert legal == sorted(set(legal))
        # Every legal move obeys the three placement rules.
        for move in legal:
            n, name = int(move[0]), move[1:]
            assert name not in before
            assert state.hand(seat)[n - 1] > 0
            for other in geo.neighbours[geo.by_name[name]]:
                assert before.get(geo.cells[other].name, (0, 0))[0] != n
        # Every other well-formed move is refused as illegal, leaving the state alone.
        for move in data.draw(st.lists(st.sampled_from(all_moves), max_size=3)):
            if move not in legal:
                with pytest.raises(IllegalMove, match=move):
                    state.play(move)
        move = data.draw(st.sampled_from(legal))
        after = state.play(move)
        assert state.to_json() == before_json
        assert after.history == [*state.history, move]
        discs = _discs(after)
        # Discs never move and never change number; the new one is the mover's.
        assert set(discs) == {*before, move[1:]}
        assert all(discs[c][0] == before[c][0] for c in before)
        assert discs[move[1:]] == (int(move[0]), seat)
        # Only the captured discs changed colour: opponents' next to the move, now enclosed.
        changed = sorted(c for c in before if discs[c] != before[c])
        assert changed == after.captured()
        for name in changed:
            index = geo.by_name[name]
            assert geo.by_name[move[1:]] in geo.neighbours[index]
            assert before[name][1] == 1 - seat and discs[name][1] == seat
            assert all(geo.cells[o].name in discs for o in geo.neighbours[index])
        # Discs are conserved: on the board plus in the hands, per number.
        for n in (1, 2, 3):
            on_board = sum(1 for d in discs.values() if d[0] == n)
            assert on_board + after.hand(0)[n - 1] + after.hand(1)[n - 1] == 2 * k
        assert len(discs) + sum(after.hand(0)) + sum(after.hand(1)) == 6 * k
        assert len(after.history) == len(discs)
        again = GAME.from_json(json.loads(json.dumps(after.to_json())))
        assert again.to_json() == after.to_json()
        state = after
    assert state.legal_moves() == []
    assert state.to_move is None


# --- the last turns, marked ---------------------------------------------------------------------


def test_the_last_moves_are_marked_in_the_movers_colour_with_the_discs_they_captured() -> None:
    import random
    import xml.etree.ElementTree as ET

    from pbem.games.gorami import render

    svg_ns = "{http://www.w3.org/2000/svg}"
    for seed in range(60):
        rng = random.Random(seed)
        state = new()
        while state.outcome is None:
            before = state
            state = state.play(rng.choice(state.legal_moves()))
            if before.to_move == 1 and state.captured() and state.to_move == 0:
                break
        else:
            continue
        break
    else:
        raise AssertionError("no capture by blue in 60 games")
    root = ET.fromstring(GAME.render_svg(state, 0, ["Ann", "Bob"]))
    marks = {el.get("data-seat"): el for el in root.iter() if el.get("class") == "last-turn"}
    assert set(marks) == {"1"}, "yellow's own earlier move is not marked"
    blue = marks["1"]
    assert blue.get("data-plies") == str(len(state.history) - 1)
    assert {p.get("stroke") for p in blue.iter(f"{svg_ns}path")} >= {render.DISC_FILL[1]}
    assert "".join(blue.find(f"{svg_ns}g").itertext()) == "B"  # type: ignore[union-attr]
    rings = [p for p in blue.iter(f"{svg_ns}path") if p.get("stroke-dasharray")]
    assert len(rings) == 2 * len(state.captured())  # each ring drawn over its dark edge
    title = blue.findtext(f"{svg_ns}title") or ""
    assert title.startswith(f"Bob placed a {state.history[-1][0]} on {state.history[-1][1:]}")
    assert "captured" in title
    # Seen by blue, both: yellow's last move and blue's own, the latest.
    both = ET.fromstring(GAME.render_svg(state, 1))
    assert {el.get("data-seat") for el in both.iter() if el.get("class") == "last-turn"} == {
        "0",
        "1",
    }
    # Blue's discs are hexagons, yellow's circles: told apart by shape as well as colour.
    b3 = setup(22, {"b3": "b2", "c1": "y1"}, to_move=0)
    drawn = GAME.render_svg(b3)
    assert re.search(r'data-cell="b3"[^>]*>.*?<path d="M[^"]+" fill="#2d6cdf"', drawn, re.S)
    assert re.search(r'data-cell="c1"[^>]*>.*?<circle [^>]*fill="#f5c518"', drawn, re.S)


def test_a_position_set_up_by_hand_marks_its_last_move_by_the_discs_colour() -> None:
    state = setup(22, {"b3": "b2", "c1": "y1"}, to_move=0, history=["2b3"])
    svg = GAME.render_svg(state, 0)
    assert '<g class="last-turn" data-seat="1" data-plies="0"' in svg
    assert "Blue placed a 2 on b3" in svg
