"""One conformance suite over every registered engine and every option value.

An engine joins by registering in `pbem.games`; nothing here names a game. Each (engine, option
value) pair plays seeded random games to the end (tests/support/conformance.py): DEFAULT_GAMES in
the default tier, up to AUDIT_GAMES in the audit tier; the other options and the player count
cycle with the seed, so every combination is played.
"""

from __future__ import annotations

import html
import json
import math
import random
import re
from collections.abc import Callable, Iterator
from typing import Any
from xml.etree import ElementTree

import pytest

from pbem import games, i18n
from pbem.games import (
    IllegalMove,
    InvalidMove,
    MoveError,
    Outcome,
    SeatSummary,
    Summary,
    fill_names,
)
from pbem.games.messages import Language, Message, english_listing
from tests.support import conformance

# Seeded random games per case (an engine and one value of one option), played to the end
# twice: the default tier plays the first DEFAULT_GAMES of each case, the audit tier the rest
# up to AUDIT_GAMES, in chunks of CHUNK games a test. bench/conformance.py plays any number
# (its last full run is in bench/RESULTS.md).
DEFAULT_GAMES = 25
AUDIT_GAMES = 500
CHUNK = 25

CASES = [
    pytest.param(
        name,
        option,
        value,
        start,
        id=f"{name}-{option}={value}-{start}",
        marks=[pytest.mark.audit] if start >= DEFAULT_GAMES else [],
    )
    for name, option, value in conformance.cases()
    for start in range(0, AUDIT_GAMES, CHUNK)
]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "option", "value", "start"), CASES)
def test_random_games_play_to_the_end(
    name: str, option: str | None, value: Any, start: int
) -> None:
    for seed in range(start, start + CHUNK):
        conformance.play_case_game(name, option, value, seed)


def _midgame_states(name: str, seeds: range) -> Iterator[games.State]:
    """A few positions from several random games, with at least one move played."""
    game = games.get(name)
    for seed in seeds:
        players, options = conformance.setup(name, None, None, seed)
        rng = random.Random(seed)
        state = game.new(players=players, options=options, seed=seed)
        for _ in range(rng.randint(1, 30)):
            if state.outcome is not None:
                break
            state = state.play(rng.choice(state.legal_moves()))
        yield state


@pytest.mark.parametrize("name", games.names())
def test_registry_metadata(name: str) -> None:
    game = games.get(name)
    assert game.name == name
    assert games.get(name.upper()) is game
    assert game.title
    assert 1 <= game.min_players <= game.max_players
    for option, values in game.options.items():
        assert isinstance(option, str)
        assert list(values), f"option {option} offers no value"
        assert len(set(values)) == len(list(values))
    assert isinstance(game.perfect_information, bool)


def test_unknown_game_is_named() -> None:
    with pytest.raises(KeyError, match="chess"):
        games.get("chess")


@pytest.mark.parametrize("name", games.names())
def test_bad_setup_is_refused(name: str) -> None:
    game = games.get(name)
    with pytest.raises(ValueError, match="players"):
        game.new(players=game.max_players + 1)
    with pytest.raises(ValueError, match="colour"):
        game.new(players=game.min_players, options={"colour": "green"})
    for option in game.options:
        with pytest.raises(ValueError, match=option):
            game.new(players=game.min_players, options={option: "no-such-value"})


@pytest.mark.parametrize("name", games.names())
def test_canonical_moves_parse_back_to_themselves(name: str) -> None:
    for state in _midgame_states(name, range(20)):
        for move in state.legal_moves():
            assert move == move.strip() and "  " not in move
            assert state.play(move).history[-1] == move
            shouted = state.play("  " + move.upper() + " ")
            assert shouted.history[-1] == move
            assert shouted.to_json() == state.play(move).to_json()


@pytest.mark.parametrize("name", games.names())
@pytest.mark.parametrize("junk", ["", "   ", "zz", "!!!", "9999", "place", "flip x", "-", "a1-"])
def test_malformed_moves_are_invalid(name: str, junk: str) -> None:
    for state in _midgame_states(name, range(3)):
        before = state.to_json()
        with pytest.raises(InvalidMove) as caught:
            state.play(junk)
        assert isinstance(caught.value, MoveError)
        assert isinstance(caught.value, ValueError)
        message = str(caught.value)
        assert len(message) > len(junk.strip()) + 10, "the message must say what is wrong"
        if junk.strip():
            assert junk.strip().lower() in message.lower(), "the message must name the move"
        assert state.to_json() == before


@pytest.mark.parametrize("name", games.names())
def test_moves_of_other_positions_are_illegal(name: str) -> None:
    """A canonical move that is not legal here parses, so it must be refused as illegal."""
    checked = 0
    for state in _midgame_states(name, range(30)):
        if state.outcome is not None:
            continue
        legal = set(state.legal_moves())
        before = state.to_json()
        for move in dict.fromkeys(state.history):
            if move in legal:
                continue
            with pytest.raises(IllegalMove) as caught:
                state.play(move)
            message = str(caught.value)
            assert move.lower() in message.lower(), f"{message!r} must name {move!r}"
            assert len(message) > len(move) + 10, "the message must say what is wrong"
            assert state.to_json() == before
            checked += 1
    assert checked, "no stale move was found to try"


@pytest.mark.parametrize("name", games.names())
def test_finished_games_refuse_moves(name: str) -> None:
    game = games.get(name)
    state = conformance.play_out(name, game.min_players, {}, seed=3)
    assert state.outcome is not None
    with pytest.raises(IllegalMove, match="over"):
        state.play(state.history[-1])


@pytest.mark.parametrize("name", games.names())
def test_views_are_json_and_per_seat(name: str) -> None:
    for state in _midgame_states(name, range(5)):
        for seat in [None, *range(state.players)]:
            view = state.view(seat)
            assert json.loads(json.dumps(view)) == view
        with pytest.raises(ValueError):
            state.view(state.players)


@pytest.mark.parametrize("name", games.names())
def test_render_svg_is_an_svg_document(name: str) -> None:
    game = games.get(name)
    for state in _midgame_states(name, range(2)):
        for seat in [None, 0]:
            svg = game.render_svg(state, seat=seat)
            assert svg.lstrip().startswith(("<svg", "<?xml"))
            assert svg.rstrip().endswith("</svg>")
        assert game.render_text(state)


# -- the page contract: describe, describe_outcome, mid_turn, summary, names, board_assets -------

PLACEHOLDER = re.compile(r"\{(\d+)\}")
DESCRIBED_PER_STATE = 25  # legal moves described per sampled position
AWKWARD_NAMES = ['<b>Ann & "Bo"</b>', "Cy's {0} <&>", "Dee ]]> &amp;", "Eve\x07 </svg>"]


def _check_sentence(sentence: object, players: int) -> str:
    """A non-empty sentence naming seats only by placeholders of seats that exist."""
    assert isinstance(sentence, str) and sentence.strip(), f"{sentence!r} is not a sentence"
    seats = [int(n) for n in PLACEHOLDER.findall(sentence)]
    assert all(0 <= seat < players for seat in seats), f"{sentence!r} names a seat not playing"
    rest = PLACEHOLDER.sub("", sentence)
    assert "{" not in rest and "}" not in rest, f"{sentence!r} has a brace that is no placeholder"
    filled = fill_names(sentence, [f"<seat {s}>" for s in range(players)])
    assert not PLACEHOLDER.search(filled)
    return sentence


def _refusal(call: Callable[[str], object], move: str) -> tuple[type[BaseException], str] | None:
    try:
        call(move)
    except MoveError as exc:
        return type(exc), str(exc)
    return None


@pytest.mark.parametrize("name", games.names())
def test_states_and_engines_have_every_contract_member(name: str) -> None:
    game = games.get(name)
    assert isinstance(game, games.Game)
    for state in _midgame_states(name, range(2)):
        assert isinstance(state, games.State)


@pytest.mark.parametrize("name", games.names())
def test_every_legal_move_can_be_described(name: str) -> None:
    rng = random.Random(name)
    for state in _midgame_states(name, range(6)):
        moves = state.legal_moves()
        before = state.to_json()
        for move in rng.sample(moves, min(len(moves), DESCRIBED_PER_STATE)):
            _check_sentence(state.describe(move), state.players)
        assert state.to_json() == before, "describe must not change the state"


@pytest.mark.parametrize("name", games.names())
def test_play_described_gives_the_state_of_play_and_the_sentence_of_describe(name: str) -> None:
    """What the service stores when it applies a move: one play, both results."""
    rng = random.Random(f"{name} described")
    for state in _midgame_states(name, range(4)):
        moves = state.legal_moves()
        before = state.to_json()
        for move in rng.sample(moves, min(len(moves), DESCRIBED_PER_STATE)):
            after, sentence = state.play_described(move)
            assert after.to_json() == state.play(move).to_json()
            assert after.history == state.play(move).history
            assert sentence == state.describe(move)
            _check_sentence(sentence, state.players)
        assert state.to_json() == before, "play_described must not change the state"


@pytest.mark.parametrize("name", games.names())
def test_whole_games_played_by_play_described_end_as_by_play(name: str) -> None:
    game = games.get(name)
    players, options = conformance.setup(name, None, None, 1)
    rng = random.Random(1)
    by_play = game.new(players=players, options=options, seed=1)
    described = game.new(players=players, options=options, seed=1)
    while by_play.outcome is None:
        move = rng.choice(by_play.legal_moves())
        by_play = by_play.play(move)
        described, sentence = described.play_described(move)
        _check_sentence(sentence, players)
        assert len(by_play.history) < conformance.MAX_PLIES
    assert described.to_json() == by_play.to_json()
    assert described.describe_outcome() == by_play.describe_outcome()


@pytest.mark.parametrize("name", games.names())
def test_describe_refuses_what_play_refuses(name: str) -> None:
    game = games.get(name)
    finished = conformance.play_out(name, game.min_players, {}, seed=3)
    states = [*_midgame_states(name, range(6)), finished]
    refused = 0
    for state in states:
        legal = set(state.legal_moves())
        tries = ["", "zz", "!!!", *dict.fromkeys(state.history)]
        for move in tries:
            if move in legal:
                continue
            by_play = _refusal(state.play, move)
            assert by_play is not None, f"play accepted {move!r}"
            assert _refusal(state.describe, move) == by_play, "describe must refuse as play does"
            assert _refusal(state.play_described, move) == by_play, (
                "play_described must refuse as play does"
            )
            refused += 1
    assert refused


@pytest.mark.parametrize("name", games.names())
def test_describe_outcome_and_mid_turn_through_whole_games(name: str) -> None:
    """describe_outcome is None until the end, then a sentence; a turn that passes to another
    seat (or ends the game) is never mid-turn, nor is the move after a turn's last action;
    actions_left counts a turn's actions down to 0 at the end; turn_number counts turns, not
    actions, from 1; the move played is described the same way."""
    game = games.get(name)
    for seed in range(2):
        players, options = conformance.setup(name, None, None, seed)
        rng = random.Random(seed)
        state = game.new(players=players, options=options, seed=seed)
        assert state.mid_turn is False, "nobody has acted at the start"
        assert state.turn_number == 1
        plies = 0
        while state.outcome is None:
            assert state.describe_outcome() is None
            assert isinstance(state.mid_turn, bool)
            mover = state.to_move
            move = rng.choice(state.legal_moves())
            if plies % 5 == 0:
                _check_sentence(state.describe(move), state.players)
            left = state.actions_left
            assert left >= 1, "a seat to move has an action left"
            nxt = state.play(move)
            if nxt.to_move != mover:
                assert nxt.mid_turn is False, f"{move!r} passed the turn on, yet it is mid-turn"
            if left == 1:
                assert nxt.mid_turn is False, f"{move!r} was the turn's last action"
            if nxt.mid_turn:
                assert nxt.actions_left == left - 1, "the turn goes on with one action fewer"
            # A turn's actions share its number; the next turn has the next one.
            assert nxt.turn_number == state.turn_number + (0 if nxt.mid_turn else 1)
            again = game.from_json(json.loads(json.dumps(nxt.to_json())))
            assert again.turn_number == nxt.turn_number, "the number survives a round trip"
            state = nxt
            plies += 1
            assert plies < conformance.MAX_PLIES
        assert state.actions_left == 0, "nobody acts in a finished game"
        ending = _check_sentence(state.describe_outcome(), state.players)
        reason = state.outcome.reason
        assert "-" not in reason or reason not in ending, f"{ending!r} shows the code {reason!r}"
        again = game.from_json(json.loads(json.dumps(state.to_json())))
        assert again.describe_outcome() == state.describe_outcome()


@pytest.mark.parametrize("name", games.names())
def test_summary_has_a_line_per_seat(name: str) -> None:
    game = games.get(name)
    finished = conformance.play_out(name, game.min_players, {}, seed=4)
    for state in [*_midgame_states(name, range(4)), finished]:
        for seat in [None, *range(state.players)]:
            summary = state.summary(seat)
            assert isinstance(summary, Summary)
            assert isinstance(summary.score_label, str) and summary.score_label
            assert len(summary.seats) == state.players
            for line in summary.seats:
                assert isinstance(line, SeatSummary)
                assert isinstance(line.colour, str) and isinstance(line.supplies, str)
            assert isinstance(summary.hand, str) and isinstance(summary.notes, str)
            if seat is None:
                assert summary.hand == "", "a spectator holds nothing"


@pytest.mark.parametrize("name", games.names())
def test_renders_take_awkward_names(name: str) -> None:
    game = games.get(name)
    finished = conformance.play_out(name, game.min_players, {}, seed=5)
    for state in [*_midgame_states(name, range(3)), finished]:
        names = AWKWARD_NAMES[: state.players]
        for seat in [None, 0]:
            svg = game.render_svg(state, seat=seat, names=names)
            ElementTree.fromstring(svg)  # well-formed, whatever the names hold
            assert "<b>Ann" not in svg, "names must be escaped"
            plain = game.render_svg(state, seat=seat)
            assert game.render_svg(state, seat=seat, names=None) == plain
            ElementTree.fromstring(plain)
            text = game.render_text(state, seat=seat, names=names)
            assert isinstance(text, str) and text
            assert game.render_text(state, seat=seat, names=None) == game.render_text(state, seat)


@pytest.mark.parametrize("name", games.names())
def test_board_assets_are_json(name: str) -> None:
    game = games.get(name)
    for state in _midgame_states(name, range(3)):
        for seat in range(state.players):
            assets = game.board_assets(state, seat)
            assert isinstance(assets, dict)
            assert json.loads(json.dumps(assets)) == assets


# -- seats leaving: dropped and drop --------------------------------------------------------------


def _check_departed(state: games.State) -> None:
    """A seat that left never moves and never wins; the engine's view and JSON keep the list."""
    dropped = state.dropped
    assert isinstance(dropped, list) and len(set(dropped)) == len(dropped)
    assert all(isinstance(s, int) and 0 <= s < state.players for s in dropped)
    assert state.to_move not in dropped
    assert len(dropped) <= state.players - 1
    if state.outcome is not None:
        assert not set(state.outcome.winners) & set(dropped), "a seat that left never wins"
        assert state.outcome.details.get("dropped", []) == dropped
    for seat in [None, *range(state.players)]:
        assert state.view(seat)["dropped"] == dropped
    summary = state.summary(None)
    for seat in dropped:
        assert "left the game" in summary.seats[seat].supplies


@pytest.mark.parametrize("name", games.names())
def test_every_engine_says_who_left_and_refuses_what_cannot_leave(name: str) -> None:
    game = games.get(name)
    finished = conformance.play_out(name, game.min_players, {}, seed=6)
    for state in [*_midgame_states(name, range(8)), finished]:
        assert state.dropped == []
        _check_departed(state)
        before = state.to_json()
        for seat in (-1, state.players, True):
            with pytest.raises(ValueError):
                state.drop(seat)
        if state.players == 2 or state.outcome is not None:
            for seat in range(state.players):
                with pytest.raises(ValueError):
                    state.drop(seat)
            assert state.to_json() == before
            continue
        for seat in range(state.players):
            after = state.drop(seat)
            assert state.to_json() == before, "drop must not change the old state"
            assert after.dropped == [seat]
            assert after.history == state.history, "leaving is not a move"
            conformance.check_state(after)
            _check_departed(after)
            conformance.roundtrip(name, after)
            if after.outcome is None and seat == state.to_move:
                assert after.to_move != seat and after.mid_turn is False
            with pytest.raises(ValueError):
                after.drop(seat)


MULTI = [name for name in games.names() if games.get(name).max_players > 2]


@pytest.mark.parametrize("name", MULTI)
def test_random_games_with_departures_play_to_the_end(name: str) -> None:
    """Random games of three or more where seats leave at random moments; the last one left wins."""
    game = games.get(name)
    for seed in range(40):
        players, options = conformance.setup(name, None, None, seed)
        players = max(players, 3)
        rng = random.Random(seed)
        state = game.new(players=players, options=options, seed=seed)
        plies = 0
        while state.outcome is None:
            conformance.check_state(state)
            if rng.random() < 0.02:
                seat = rng.choice([s for s in range(players) if s not in state.dropped])
                mover = state.to_move
                state = state.drop(seat)
                if state.outcome is None and seat == mover:
                    assert state.mid_turn is False
            else:
                state = state.play(rng.choice(state.legal_moves()))
            _check_departed(state)
            if plies % 10 == 0:
                conformance.roundtrip(name, state)
            plies += 1
            assert plies < conformance.MAX_PLIES, "game does not end"
        conformance.check_state(state)
        conformance.roundtrip(name, state)
        _check_sentence(state.describe_outcome(), state.players)
        if len(state.dropped) == players - 1:
            (last,) = set(range(players)) - set(state.dropped)
            assert state.outcome.winners == [last], "the one seat left wins"


def _sampled_positions(name: str) -> Iterator[games.State]:
    """Positions of random games of every player count, from the first action to the end, some
    with seats that left."""
    game = games.get(name)
    for seed in range(6):
        players, options = conformance.setup(name, None, None, seed)
        rng = random.Random(seed)
        state = game.new(players=players, options=options, seed=seed)
        while state.outcome is None:
            if rng.random() < 0.3:
                yield state
            if players > 2 and not state.dropped and rng.random() < 0.01:
                state = state.drop(rng.randrange(players))
            else:
                state = state.play(rng.choice(state.legal_moves()))
        yield state


@pytest.mark.parametrize("name", games.names())
def test_sample_agrees_with_the_view_it_was_drawn_from(name: str) -> None:
    """A sample is a position the seat cannot tell from the true one, plays on like one, and
    follows from its random generator alone."""
    for state in _sampled_positions(name):
        before = state.to_json()
        for seat in [None, *range(state.players)]:
            sample = state.sample(seat, random.Random(7))
            assert sample.view(seat) == state.view(seat)
            assert sample.sample(seat, random.Random(7)).view(seat) == state.view(seat)
            assert state.sample(seat, random.Random(7)).to_json() == sample.to_json()
            assert sample.to_move == state.to_move and sample.history == state.history
            assert sample.scores() == state.scores() and sample.dropped == state.dropped
            if seat == state.to_move:
                assert sample.legal_moves() == state.legal_moves()
            conformance.check_state(sample)
        assert state.to_json() == before, "sample must not change the position"


@pytest.mark.parametrize("name", games.names())
def test_samples_play_on_to_the_end(name: str) -> None:
    for state in list(_sampled_positions(name))[::7]:
        rng = random.Random(len(state.history))
        seat = state.to_move
        sample = state.sample(seat, rng)
        plies = 0
        while sample.outcome is None:
            sample = sample.play(rng.choice(conformance.check_state(sample)))
            plies += 1
            assert plies < conformance.MAX_PLIES, "a sample's game does not end"
        conformance.check_state(sample)


@pytest.mark.parametrize("name", games.names())
def test_sample_draws_only_what_is_hidden(name: str) -> None:
    """Perfect information: the sample is the position. Hidden information: what the seat
    cannot see varies from sample to sample, and what it can see never does."""
    game = games.get(name)
    for state in _sampled_positions(name):
        for seat in (-1, state.players, True, "0"):
            with pytest.raises(ValueError):
                state.sample(seat, random.Random(0))  # type: ignore[arg-type]
    varied = 0
    for state in _sampled_positions(name):
        seat = state.to_move if state.to_move is not None else 0
        drawn = {json.dumps(state.sample(seat, random.Random(r)).to_json()) for r in range(6)}
        if game.perfect_information:
            assert drawn == {json.dumps(state.to_json())}
        else:
            varied += len(drawn) > 1
    if not game.perfect_information:
        assert varied, "no sample drew anything the seat cannot see"


@pytest.mark.parametrize("name", games.names())
def test_worth_is_a_number_per_seat_and_the_score_once_the_game_is_over(name: str) -> None:
    """What bots weigh a position by: one finite number per seat, read from what every seat can
    see (a sample is worth what the position is), the scores themselves at the end; and a
    point of it weighs something positive, the same in a sample."""
    for state in _sampled_positions(name):
        worth = state.worth()
        assert len(worth) == state.players
        assert all(isinstance(w, float) and math.isfinite(w) for w in worth)
        if state.outcome is not None:
            assert worth == [float(s) for s in state.scores()]
        sample = state.sample(state.to_move, random.Random(3))
        assert sample.worth() == worth, "a seat's view decides what the position is worth"
        weight = state.point_weight()
        assert isinstance(weight, float) and math.isfinite(weight) and weight > 0
        assert sample.point_weight() == weight, "and what a point of it weighs"


# -- endings the service decides: `settled` --------------------------------------------------

SETTLED_NAMES = ["Ann", "Bo", "Cy", "Dee"]


def _service_endings(players: int) -> Iterator[Outcome]:
    """A resignation (seat 0 resigned, the others win), a draw agreed and a cancellation, each
    with the sentence the service gives its ending."""
    others = list(range(1, players))
    won = " and ".join(f"{{{seat}}}" for seat in others)
    verb = "wins" if len(others) == 1 else "share the win"
    yield Outcome(
        others, [0] * players, "resignation", {"seat": 0, "said": f"{{0}} resigned; {won} {verb}"}
    )
    yield Outcome([], [0] * players, "draw_agreed", {"said": "Drawn by agreement"})
    yield Outcome([], [0] * players, "cancelled", {"said": "Cancelled before anyone moved"})


@pytest.mark.parametrize("name", games.names())
def test_a_game_the_service_ends_is_over_on_every_surface(name: str) -> None:
    """`settled`: nobody to move, nothing legal, the board as it was, and every drawing and
    `describe_outcome` saying the service's sentence instead of whose turn it is."""
    game = games.get(name)
    for state in _midgame_states(name, range(4)):
        if state.outcome is not None:
            continue
        before = state.to_json()
        names = SETTLED_NAMES[: state.players]
        for outcome in _service_endings(state.players):
            ended = state.settled(outcome)
            assert state.to_json() == before, "settled must not change the old state"
            assert ended.outcome == outcome and ended.to_move is None
            assert ended.legal_moves() == [] and ended.actions_left == 0 and not ended.mid_turn
            assert ended.history == state.history and ended.scores() == state.scores()
            assert ended.dropped == state.dropped
            assert ended.describe_outcome() == outcome.said
            said = fill_names(outcome.said or "", names)
            for seat in [None, *range(state.players)]:
                view, was = ended.view(seat), state.view(seat)
                assert json.loads(json.dumps(view)) == view
                changed = {key for key in was if view.get(key) != was[key]}
                assert changed <= {"to_move", "outcome", "actions_left", "legal_moves"}, changed
                assert view["outcome"]["winners"] == outcome.winners
            for seat in [None, 0]:
                drawings = {
                    "page": game.render_svg(ended, seat, names),
                    "text": game.render_text(ended, seat, names),
                }
                for where, drawing in drawings.items():
                    assert "to move" not in drawing, f"the {where} drawing still says whose turn"
                    assert said in html.unescape(drawing), f"the {where} drawing lacks {said!r}"
                # The mail picture has no words: the email around it says how the game ended.
                mail = game.render_mail_svg(ended, seat, names)
                assert "to move" not in mail and mail == game.render_mail_svg(ended, seat, None)
            with pytest.raises(ValueError, match="already over"):
                ended.settled(outcome)
            with pytest.raises(IllegalMove):
                ended.play(state.legal_moves()[0])


@pytest.mark.parametrize("name", games.names())
def test_a_game_the_rules_ended_cannot_be_settled(name: str) -> None:
    game = games.get(name)
    finished = conformance.play_out(name, game.min_players, {}, seed=4)
    with pytest.raises(ValueError, match="already over"):
        finished.settled(Outcome([], [0] * finished.players, "draw_agreed", {"said": "Drawn"}))


def _said_everywhere(message: Message, game: str) -> None:
    """A message survives its JSON and is said in every language with its parameters."""
    again = Message.from_json(json.loads(json.dumps(message.to_json())))
    assert again == message and again.to_json() == message.to_json()
    for language in i18n.LANGUAGES:
        catalog = i18n.translations(language, game)
        said = message.say(Language(catalog.gettext, catalog.ngettext, english_listing))
        assert sorted(PLACEHOLDER.findall(said)) == sorted(PLACEHOLDER.findall(message)), said


@pytest.mark.parametrize("name", games.names())
def test_what_an_engine_says_is_a_message_in_every_language(name: str) -> None:
    game = games.get(name)
    players, options = conformance.setup(name, None, None, 2)
    rng = random.Random(f"{name} messages")
    state = game.new(players=players, options=options, seed=2)
    said: list[str] = []
    while state.outcome is None:
        moves = state.legal_moves()
        refused = _refusal(state.play, "zz")
        assert refused is not None
        state, sentence = state.play_described(rng.choice(moves))
        said.append(sentence)
        said.extend(line.supplies for line in state.summary(None).seats)
        assert len(state.history) < conformance.MAX_PLIES
    ended = state.describe_outcome()
    assert ended is not None
    said.append(ended)
    for sentence in said:
        assert isinstance(sentence, Message), f"{sentence!r} is not a message"
        _said_everywhere(sentence, name)
    try:
        state.play("zz")
    except MoveError as exc:
        assert isinstance(exc.args[0], Message)
        _said_everywhere(exc.args[0], name)


# -- drawings in the reader's language ------------------------------------------------------------

# A language that marks each thing it says: what a drawing writes outside the marks did not go
# through the game's catalog.
OPEN, CLOSE = "\u27e6", "\u27e7"
MARKING = Language(
    lambda key: f"{OPEN}{key}{CLOSE}",
    lambda one, many, n: f"{OPEN}{one if n == 1 else many}{CLOSE}",
    english_listing,
)
_MARKED = re.compile(f"{OPEN}[^{OPEN}{CLOSE}]*{CLOSE}")
# What a drawing may write in no language: the game's name, and English's list words, which
# `english_listing` adds (the service lists in the reader's language).
_ANY_LANGUAGE = {"gorami", "marram", "martian", "mud", "wrestling", "and"}
_WORD = re.compile(r"[A-Za-z]{3,}")
_BLOCK_LETTERS = "gscGSOWHTobw"
_SAID = re.compile(r'(?:aria-label|data-name)="([^"]*)"|<title>([^<]*)</title>|>([^<>]+)<')


def _unmarked(text: str) -> set[str]:
    """The words of `text` outside every mark. A sentence a drawing cut short ("…") has lost
    its closing marks: what follows an open mark left open counts as said."""
    while _MARKED.search(text):
        text = _MARKED.sub(" ", text)
    text = re.sub(f"{OPEN}[^{CLOSE}]*", " ", text)
    return {w for w in _WORD.findall(text) if w.lower() not in _ANY_LANGUAGE}


def _drawn_words(svg: str) -> str:
    """What an SVG drawing says to a reader: its text, titles and accessible names."""
    return " | ".join(html.unescape(next(g for g in m.groups() if g)) for m in _SAID.finditer(svg))


def _positions(
    name: str, option: str | None, value: Any
) -> Iterator[tuple[games.State, int | None]]:
    """A game of `name` (`option` set to `value`) at its start, on its way (each seat's turn
    marked) and at its end."""
    game = games.get(name)
    players, options = conformance.setup(name, option, value, 7)
    state = game.new(players=players, options=options, seed=7)
    yield state, 0
    rng = random.Random(f"{name} drawn words")
    plies = 0
    while state.outcome is None:
        state = state.play(rng.choice(state.legal_moves()))
        plies += 1
        if plies in (6, 7):
            yield state, state.to_move
    yield state, None


@pytest.mark.parametrize(("name", "option", "value"), list(conformance.cases()))
def test_every_word_a_drawing_writes_is_in_the_readers_language(
    name: str, option: str | None, value: Any
) -> None:
    """The page board, the text board and the board's assets say every word through the game's
    catalog (`language`), so a French page draws no English: for every option of every game."""
    game = games.get(name)
    for state, seat in _positions(name, option, value):
        drawings = {
            "page": _drawn_words(game.render_svg(state, seat, None, MARKING)),
            "text": game.render_text(state, seat, None, MARKING),
        }
        if seat is not None and state.to_move == seat:
            assets = game.board_assets(state, seat, None, MARKING)
            # Keyed by moves in the notation, which is the same in every language.
            said = list(assets.get("warnings", {}).values())
            said += [w for claims in assets.get("claims", {}).values() for w in claims.values()]
            said += [_drawn_words(svg) for svg in assets.get("previews", {}).values()]
            drawings["assets"] = " | ".join(said)
        for where, said in drawings.items():
            found = _unmarked(said)
            if where == "text":
                # A text board draws pieces and ground in letters ("gcW": grass, coin, worm end).
                found = {w for w in found if not set(w) <= set(_BLOCK_LETTERS)}
            assert not found, f"{where}, ply {len(state.history)}: {found}"
