"""`pbem play`: a hot-seat game in the terminal, over the engine contract only."""

from __future__ import annotations

import argparse
import secrets
import sys
from typing import TextIO

from pbem import games

HELP = "Type a move, or: moves (list legal moves), board, history, help, quit."


def _parser(game: games.Game) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=f"pbem play {game.name}", description=f"Play {game.title} hot-seat in the terminal."
    )
    parser.add_argument(
        "--players",
        type=int,
        default=game.min_players,
        help=f"number of players ({game.min_players}-{game.max_players})",
    )
    parser.add_argument("--seed", type=int, default=None, help="seed for a reproducible game")
    for option, values in game.options.items():
        choices = [str(v) for v in values]
        parser.add_argument(
            f"--{option}", choices=choices, default=choices[0], help=f"default {choices[0]}"
        )
    return parser


def _announce_outcome(state: games.State, out: TextIO) -> None:
    outcome = state.outcome
    assert outcome is not None
    scores = ", ".join(f"seat {seat}: {score}" for seat, score in enumerate(outcome.scores))
    if not outcome.winners:
        verdict = "Nobody wins"
    elif len(outcome.winners) == 1:
        verdict = f"Seat {outcome.winners[0]} wins"
    else:
        verdict = "Shared win for seats " + ", ".join(str(w) for w in outcome.winners)
    print(f"Game over ({outcome.reason}). {verdict}. Scores: {scores}.", file=out)


def play(game: games.Game, state: games.State, inp: TextIO, out: TextIO) -> games.State:
    """Run the read-move-apply loop until the game ends or the input does."""
    print(game.render_text(state, state.to_move), file=out)
    print(HELP, file=out)
    while state.outcome is None:
        out.write(f"seat {state.to_move} to move> ")
        out.flush()
        line = inp.readline()
        if not line:
            print("\nInput ended; the game is left unfinished.", file=out)
            return state
        command = line.strip()
        if not command:
            continue
        lowered = command.lower()
        if lowered in {"quit", "exit"}:
            print("Game abandoned.", file=out)
            return state
        if lowered in {"help", "?"}:
            print(HELP, file=out)
        elif lowered == "moves":
            print(" ".join(state.legal_moves()), file=out)
        elif lowered == "board":
            print(game.render_text(state, state.to_move), file=out)
        elif lowered == "history":
            print(" ".join(state.history) or "(no moves yet)", file=out)
        else:
            try:
                state = state.play(command)
            except games.MoveError as error:
                print(f"Not played: {error}", file=out)
                continue
            print(game.render_text(state, state.to_move), file=out)
    _announce_outcome(state, out)
    return state


def main(argv: list[str] | None = None, inp: TextIO = sys.stdin, out: TextIO = sys.stdout) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0].startswith("-"):
        print(
            f"usage: pbem play GAME [options]; games: {', '.join(games.names())}", file=sys.stderr
        )
        return 2
    try:
        game = games.get(argv[0])
    except KeyError as error:
        print(error.args[0], file=sys.stderr)
        return 2
    args = _parser(game).parse_args(argv[1:])
    options = {option: getattr(args, option) for option in game.options}
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    try:
        state = game.new(players=args.players, options=options, seed=seed)
    except ValueError as error:
        print(f"Cannot start: {error}", file=sys.stderr)
        return 2
    print(f"{game.title} — seed {seed}", file=out)
    final = play(game, state, inp, out)
    return 0 if final.outcome is not None else 1
