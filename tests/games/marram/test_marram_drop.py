"""A seat leaving a game of three or four: rules section 9, one scenario per rule."""

from __future__ import annotations

import json
import random
from typing import Any
from xml.etree import ElementTree

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.games.marram.render import describe_event
from pbem.games.marram.rules import BET, BOOT, FORK, MarramState
from tests.games.marram.scenario import GAME, GRASS, edit, events, filler_move, new, play
from tests.games.marram.test_marram_props import check_invariants

# Fits nowhere next to plain grass: every side carries a creature.
KNOT: dict[str, Any] = {"q": "gggg", "pieces": ["o:mid:N-S", "w:mid:E-W"]}


def grass(players: int, tiles: int = 40, **options: Any) -> MarramState:
    """A game on plain grass: every tile fits every open position."""
    return new([GRASS] * tiles, start=GRASS, players=players, **options)


def step(state: MarramState) -> MarramState:
    """One plain action: a placement without tokens, or the pass when that is all there is."""
    moves = state.legal_moves()
    return state.play("pass" if moves == ["pass"] else filler_move(state))


def reload(state: MarramState) -> MarramState:
    again = GAME.from_json(json.loads(json.dumps(state.to_json())))
    assert isinstance(again, MarramState)
    return again


def check_moves_belong_to_the_mover(state: MarramState) -> None:
    seat = state.to_move
    assert seat is not None and seat not in state.dropped
    for move in state.legal_moves():
        if move.startswith("place"):
            assert int(move.split()[1]) in state.hands[seat]


# -- the seat to move, a seat not to move -------------------------------------------------------


@pytest.mark.parametrize("players", [3, 4])
def test_the_seat_to_move_leaves_at_the_start_of_its_turn(players: int) -> None:
    state = grass(players)
    before = state.to_json()
    hand = list(state.hands[0])
    after = state.drop(0)
    assert state.to_json() == before, "drop leaves the old state alone"
    assert after.dropped == [0] and state.dropped == []
    assert after.to_move == 1 and after.actions_left == 2 and after.mid_turn is False
    assert after.history == [] and after.outcome is None
    assert after.hands[0] == [] and after.discarded == hand, "the hand is discarded face up"
    assert after.bag == state.bag, "nobody draws for the seat that left"
    check_moves_belong_to_the_mover(after)
    (event,) = events(after, "dropped")
    assert event == {"ply": 0, "type": "dropped", "seat": 0, "tiles": hand, "lost": []}


@pytest.mark.parametrize("players", [3, 4])
def test_a_seat_leaving_between_its_two_actions_keeps_the_first(players: int) -> None:
    state = grass(players).play("place 1 1,0 0 boot NE")
    assert state.mid_turn and state.to_move == 0
    after = state.drop(0)
    assert (1, 0) in after.board, "the action already made stands"
    assert after.history == ["place 1 1,0 0 boot NE"]
    assert after.to_move == 1 and after.actions_left == 2 and after.mid_turn is False
    assert after.tokens == [], "its boot left the game"
    assert after.supplies[0][BOOT] == 6 and after.lost[0][BOOT] == 1
    assert after.hands[0] == [] and after.discarded == [2, 3]
    assert after.bag == state.bag, "its turn ends without a draw"
    (event,) = events(after, "dropped")
    assert event["ply"] == 1 and event["tiles"] == [2, 3]
    assert event["lost"] == [{"kind": "boot", "x": 1, "y": 0, "loc": "NE"}]
    check_moves_belong_to_the_mover(after)


@pytest.mark.parametrize("players", [3, 4])
def test_a_seat_not_to_move_leaves_and_is_skipped(players: int) -> None:
    state = grass(players).play("place 1 1,0 0")
    after = state.drop(1)
    assert after.to_move == 0 and after.actions_left == 1 and after.mid_turn is True
    assert after.dropped == [1] and after.hands[1] == [] and after.discarded == [4, 5, 6]
    after = step(after)
    assert after.to_move == 2, "seat 1 is skipped"
    seen = []
    for _ in range(4 * players):
        seen.append(after.to_move)
        after = step(after)
    assert 1 not in seen and set(seen) == set(range(players)) - {1}


def test_turn_order_skips_every_seat_that_left() -> None:
    state = grass(4).drop(3).drop(1)
    order = []
    for _ in range(8):
        order.append(state.to_move)
        state = step(state)
    assert order == [0, 0, 2, 2, 0, 0, 2, 2]
    assert state.dropped == [3, 1]


# -- the end --------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [3, 4])
def test_when_one_seat_is_left_it_wins_whatever_the_scores(players: int) -> None:
    state = step(grass(players))
    state = edit(state, scores=[5, 40, 3, 30][:players])
    leave = [1, 0, 3][: players - 1]
    for seat in leave[:-1]:
        state = state.drop(seat)
        assert state.outcome is None
    state = state.drop(leave[-1])
    assert state.outcome is not None and state.to_move is None and state.legal_moves() == []
    assert state.outcome.reason == "others-left"
    assert state.outcome.winners == [2]
    assert state.outcome.scores == [5, 40, 3, 30][:players], "no end bonus, scores as they were"
    assert state.outcome.details == {"dropped": leave}
    assert events(state, "end-bonus") == []
    names = " and ".join(f"{{{s}}}" for s in leave) if players == 3 else "{1}, {0} and {3}"
    assert state.describe_outcome() == f"{names} left the game; {{2}} wins with 3 points"
    assert reload(state).describe_outcome() == state.describe_outcome()


def test_seats_that_left_never_win() -> None:
    state = grass(3, tiles=9)
    state = edit(state, scores=[50, 2, 1]).drop(0)
    while state.outcome is None:
        state = step(state)
    assert state.outcome.reason == "tiles-out"
    assert 0 not in state.outcome.winners and state.outcome.scores[0] == 50
    assert state.outcome.details == {"dropped": [0]}
    text = state.describe_outcome()
    assert text is not None and text.startswith("The tiles ran out")
    assert text.endswith("; {0} left the game")


def test_the_threshold_counts_only_the_seats_still_playing() -> None:
    state = grass(3, length="short")  # threshold 60
    high = edit(state, scores=[70, 0, 0]).drop(0)
    assert high.outcome is None and high.to_move == 1, "a departed score reaches nothing"
    reached = edit(state, scores=[0, 65, 0]).drop(0)
    assert reached.outcome is not None and reached.outcome.reason == "threshold"
    assert reached.outcome.winners == [1]
    assert reached.outcome.details == {"threshold": 60, "turn_of": 0, "dropped": [0]}
    assert reached.describe_outcome() == (
        "The threshold of 60 points was reached at the end of {0}'s turn; "
        "{1} wins with 65 points to {2}'s 0; {0} left the game"
    )


def test_the_threshold_is_looked_at_only_when_a_turn_ends() -> None:
    state = edit(grass(3, length="short"), scores=[0, 65, 0]).drop(2)
    assert state.outcome is None and state.to_move == 0, "seat 0's turn goes on"
    state = step(step(state))
    assert state.outcome is not None and state.outcome.reason == "threshold"
    assert state.outcome.details == {"threshold": 60, "turn_of": 0, "dropped": [2]}


def test_a_seat_leaving_with_the_last_tiles_ends_the_game_at_once() -> None:
    state = edit(grass(3, tiles=9), hands=[[], [4], []], bag=[])
    assert state.legal_moves() == ["pass"]
    after = state.drop(1)
    assert after.outcome is not None and after.outcome.reason == "tiles-out"
    assert after.outcome.details == {"dropped": [1]}


def test_a_seat_leaving_when_nobody_else_can_act_ends_the_game() -> None:
    state = new([GRASS] * 8 + [KNOT], start=GRASS, players=3)
    state = edit(state, hands=[[], [4], [9]], bag=[])
    assert state.legal_moves() == ["pass"], "seat 1 can still act, so seat 0 passes"
    after = state.drop(1)
    assert after.outcome is not None and after.outcome.reason == "no-action"
    assert after.outcome.details == {"seat": 0, "dropped": [1]}
    assert after.describe_outcome() == (
        "{0} had no tile to lay and nothing to flip, and nobody else could act; "
        "{0} and {2} share the win with 0 points each; {1} left the game"
    )


# -- tokens and scores ------------------------------------------------------------------------


def test_every_token_of_the_seat_leaves_the_game() -> None:
    state = play(grass(3, variant="animals"), "place 1 1,0 0", "place 2 2,0 0")
    mine: list[list[Any]] = [[0, "boot", 1, 0, "NE"], [0, "fork", 1, 0, "N"], [0, "bet", 2, 0, "E"]]
    theirs: list[list[Any]] = [[1, "boot", 2, 0, "SW"], [2, "bet", 1, 0, "S"]]
    supplies = [[4, 2, 3, 1], [4, 3, 3, 2], [5, 3, 3, 1]]
    state = edit(state, tokens=mine + theirs, supplies=supplies)
    after = state.drop(0)
    assert [[t.seat, t.kind, *t.pos, t.loc] for t in after.tokens] == theirs
    assert after.lost[0] == [1, 1, 0, 1]
    assert after.supplies[0] == [4, 2, 3, 1], "what was in its supply stays there"
    assert [after.lost[0][k] for k in (BOOT, FORK, BET)] == [1, 1, 1]
    (event,) = events(after, "dropped")
    assert [(t["kind"], t["x"], t["y"], t["loc"]) for t in event["lost"]] == [
        ("boot", 1, 0, "NE"),
        ("fork", 1, 0, "N"),
        ("bet", 2, 0, "E"),
    ]


def _shared_region(drop: bool) -> MarramState:
    """Seats 0 and 1 each stand a boot on the one grass region; seat 0 may leave; play out."""
    state = grass(3, tiles=12)
    state = play(state, "place 1 1,0 0 boot NE", "place 2 2,0 0")
    state = play(state, "place 4 -1,0 0 boot NW", "place 5 -2,0 0")
    if drop:
        state = state.drop(0)
    while state.outcome is None:
        state = step(state)
    return state


def test_a_feature_the_seat_shared_goes_to_the_others() -> None:
    # The one grass region covers every laid tile: its end bonus is 1 per bulge.
    both = _shared_region(drop=False)
    bonus = {e["seat"]: e["points"] for e in events(both, "end-bonus")}
    assert bonus == {0: len(both.board), 1: len(both.board)}, "a tie shares fully"
    alone = _shared_region(drop=True)
    bonus = {e["seat"]: e["points"] for e in events(alone, "end-bonus")}
    assert bonus == {1: len(alone.board)}, "seat 1 alone holds the region now"
    assert alone.scores()[0] == 0, "the seat that left scores nothing more"
    assert alone.outcome is not None and alone.outcome.winners == [1]


# -- refusals -------------------------------------------------------------------------------------


def test_drop_refuses_what_cannot_leave() -> None:
    with pytest.raises(ValueError, match="two-player game"):
        grass(2).drop(0)
    state = grass(3)
    for seat in (-1, 3, True, "1"):
        with pytest.raises(ValueError, match="not in this 3-player game"):
            state.drop(seat)  # type: ignore[arg-type]
    gone = state.drop(2)
    with pytest.raises(ValueError, match="already left"):
        gone.drop(2)
    over = gone.drop(1)
    assert over.outcome is not None
    with pytest.raises(ValueError, match="over"):
        over.drop(0)


# -- JSON, views, words and drawings --------------------------------------------------------


def test_the_seats_that_left_survive_json() -> None:
    state = grass(4).play("place 1 1,0 0").drop(2).drop(0)
    again = reload(state)
    assert again.dropped == [2, 0]
    assert again.to_json() == state.to_json()
    assert again.legal_moves() == state.legal_moves()
    assert again.view(1)["dropped"] == [2, 0]


def test_a_snapshot_from_before_drops_loads_with_nobody_gone() -> None:
    state = grass(3).play("place 1 1,0 0")
    data = state.to_json()
    del data["dropped"]
    old = GAME.from_json(data)
    assert old.dropped == [] and old.view(None)["dropped"] == []
    assert old.drop(1).to_move == 0


def test_new_moves_drop_moves_is_the_same_game_as_its_snapshots() -> None:
    """Playing on from the live state and from a snapshot reloaded after every step (as the
    service does) gives the same game; so does a replay from the seed that drops each seat at
    the ply its log event gives."""
    live = grass(4, tiles=60)
    stored = reload(live)
    for what in [5, "mover", 7, "other", 6]:
        if isinstance(what, int):
            for _ in range(what):
                live, stored = step(live), reload(step(stored))
            continue
        assert live.to_move is not None and live.mid_turn, "leaving between two actions"
        others = [s for s in live.playing() if s != live.to_move]
        seat = live.to_move if what == "mover" else others[0]
        live, stored = live.drop(seat), reload(stored.drop(seat))
        assert stored.to_json() == live.to_json()
    assert live.outcome is None and len(live.dropped) == 2
    assert stored.to_json() == live.to_json()
    replayed = grass(4, tiles=60)
    drops = [(e["ply"], e["seat"]) for e in events(live, "dropped")]
    for ply, move in enumerate([*live.history, None]):
        for at, seat in drops:
            if at == ply:
                replayed = replayed.drop(seat)
        if move is not None:
            replayed = replayed.play(move)
    assert replayed.to_json() == live.to_json()


def test_summary_and_drawings_show_who_left() -> None:
    state = grass(3).play("place 1 1,0 0 boot NE").drop(0)
    summary = state.summary(None)
    assert summary.seats[0].supplies == "left the game"
    assert "left the game" not in summary.seats[1].supplies
    assert state.summary(0).hand == "your tiles: none"
    svg = GAME.render_svg(state, seat=0, names=["Ann", "Bo", "Cy"])
    ElementTree.fromstring(svg)
    assert "left the game" in svg
    text = GAME.render_text(state, seat=0)
    assert "left the game" in text and "Red left the game" in text
    (event,) = events(state, "dropped")
    assert describe_event(event, ["Ann", "Bo", "Cy"]) == "Ann left the game"
    assert GAME.board_assets(state, 0) == {}
    finished = state.drop(1)
    ElementTree.fromstring(GAME.render_svg(finished, seat=None))
    assert "Game over" in GAME.render_text(finished)


# -- random play with random departures --------------------------------------------------------


def check_departures(state: MarramState, frozen: dict[int, int]) -> None:
    """What must hold in every position, whoever has left."""
    assert state.to_move not in state.dropped
    assert len(set(state.dropped)) == len(state.dropped)
    for seat, score in frozen.items():
        assert state.scores()[seat] == score, "a seat that left scores nothing more"
        assert state.hands[seat] == []
        assert all(t.seat != seat for t in state.tokens)
    if state.outcome is None:
        assert len(state.playing()) >= 2
        check_moves_belong_to_the_mover(state)
    else:
        assert state.to_move is None and state.legal_moves() == []
        assert state.outcome.winners, "somebody still playing always wins"
        assert not set(state.outcome.winners) & set(state.dropped)
        assert state.outcome.details.get("dropped", []) == state.dropped
        assert isinstance(state.describe_outcome(), str)
    again = reload(state)
    assert again.to_json() == state.to_json()
    assert again.dropped == state.dropped
    assert again.legal_moves() == state.legal_moves()
    assert again.to_move == state.to_move and again.mid_turn == state.mid_turn
    assert state.view(None)["dropped"] == state.dropped
    for seat in state.dropped:
        assert state.summary(None).seats[seat].supplies == "left the game"


@settings(max_examples=40)
@given(
    seed=st.integers(0, 10_000),
    players=st.integers(3, 4),
    variant=st.sampled_from(["classic", "pitchfork", "animals"]),
    length=st.sampled_from(["short", "long"]),
    departures=st.lists(st.tuples(st.integers(0, 200), st.integers(0, 3)), max_size=3),
)
def test_random_play_with_random_departures(
    seed: int, players: int, variant: str, length: str, departures: list[tuple[int, int]]
) -> None:
    """Random legal play to the end, with seats leaving after the drawn numbers of moves."""
    state = GAME.new(players, {"variant": variant, "length": length}, seed=seed)
    assert isinstance(state, MarramState)
    rng = random.Random(seed)
    due: dict[int, list[int]] = {}
    for ply, pick in departures:
        due.setdefault(ply, []).append(pick)
    frozen: dict[int, int] = {}
    for _ in range(2000):
        if state.outcome is not None:
            break
        picks = due.get(len(state.history))
        if picks:
            playing = state.playing()
            seat = playing[picks.pop(0) % len(playing)]
            before = state.to_json()
            after = state.drop(seat)
            assert state.to_json() == before, "drop leaves the old state alone"
            assert after.history == state.history and after.dropped == [*state.dropped, seat]
            if after.outcome is None and seat == state.to_move:
                assert after.to_move != seat and after.mid_turn is False
                assert after.actions_left == 2
            elif after.outcome is None:
                assert after.to_move == state.to_move
                assert after.actions_left == state.actions_left
            frozen[seat] = state.scores()[seat]
            state = after
        else:
            state = state.play(rng.choice(state.legal_moves()))
        check_invariants(state)
        check_departures(state, frozen)
    assert state.outcome is not None, "the game ends"
