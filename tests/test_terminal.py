"""`pbem play`: the hot-seat loop over the engine contract."""

from __future__ import annotations

import io
import random

import pytest

from pbem import games, terminal


def _random_moves(name: str, options: dict[str, str], seed: int) -> tuple[list[str], games.State]:
    game = games.get(name)
    state = game.new(players=game.min_players, options=options, seed=seed)
    rng = random.Random(seed)
    moves = []
    while state.outcome is None:
        move = rng.choice(state.legal_moves())
        moves.append(move)
        state = state.play(move)
    return moves, state


@pytest.mark.parametrize(("name", "argv"), [("gorami", ["--board", "16"]), ("mmw", [])])
def test_a_whole_game_is_played_to_its_outcome(name: str, argv: list[str]) -> None:
    game = games.get(name)
    options = {option: arg for option, arg in zip(argv[::2], argv[1::2], strict=True)}
    options = {k.lstrip("-"): v for k, v in options.items()}
    moves, final = _random_moves(name, options, seed=11)
    script = ["help", "moves", "zz-not-a-move", "board", *moves[:1], "history", *moves[1:]]
    out = io.StringIO()
    code = terminal.main([name, *argv, "--seed", "11"], io.StringIO("\n".join(script) + "\n"), out)
    text = out.getvalue()
    assert code == 0
    assert "Not played: " in text and "zz-not-a-move" in text
    assert "Game over" in text and final.outcome is not None
    assert f"({final.outcome.reason})" in text
    assert game.title in text


def test_unknown_game_and_bad_options_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert terminal.main(["chess"]) == 2
    assert "unknown game" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        terminal.main(["gorami", "--board", "17"])


def test_input_ending_leaves_the_game_unfinished() -> None:
    out = io.StringIO()
    assert terminal.main(["mmw", "--seed", "1"], io.StringIO("moves\n"), out) == 1
    assert "left unfinished" in out.getvalue()
