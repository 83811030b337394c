"""Marram: the dune tile-laying game (rules in docs/rules/marram.md).

The package:

- `tiles.py`: the tile description format (rules 1.5), validation, rotation tables and the
  standard set (`data/standard.json`);
- `board.py`: the grid of laid tiles, matching, the frontier of open positions and legal rotations;
- `features.py`: terrain regions and creatures, their completion, validity and value;
- `notation.py`: parsing moves and writing them in canonical form;
- `rules.py`: `MarramState`, turns, claims and bets, scoring, dead tiles and the end;
- `words.py`: sentences for moves and endings (a tile named by what it shows), and the page
  summary of a position;
- `claims.py`: what each claim takes, in words, for the interactive board's claim buttons;
- `render.py`: drawing a view as SVG (with the interactive board's previews) or as text;
- `board.js`, `board.css`: the game page's click-to-move controller and its styles.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pbem.games import base
from pbem.games.base import OptionValue
from pbem.games.marram.rules import LENGTHS, VARIANTS, MarramState, make_setup
from pbem.games.messages import ENGLISH, Language
from pbem.games.sprites import MailDrawing

__all__ = ["GAME", "MarramGame", "MarramState"]


class MarramGame:
    """The Marram rules: Classic, Pitchfork and Animals, short or long."""

    name = "marram"
    title = "Marram"
    min_players = 2
    max_players = 4
    options: Mapping[str, Sequence[OptionValue]] = {"variant": VARIANTS, "length": LENGTHS}
    # Hands and the bag order are secret: bots search over samples of what a seat sees.
    perfect_information = False

    def new(
        self, players: int, options: Mapping[str, Any] | None = None, seed: int = 0
    ) -> MarramState:
        base.check_players(self.name, players, self.min_players, self.max_players)
        opts = base.resolve_options(self.name, self.options, options, extra=("start", "deck"))
        setup = make_setup(
            players,
            str(opts["variant"]),
            str(opts["length"]),
            int(seed),
            opts.get("start"),
            opts.get("deck"),
        )
        return MarramState.new(setup)

    def from_json(self, data: Mapping[str, Any]) -> MarramState:
        return MarramState.from_json(data)

    def render_svg(
        self,
        state: base.State,
        seat: int | None = None,
        names: Sequence[str] | None = None,
        language: Language = ENGLISH,
    ) -> str:
        from pbem.games.marram import render

        return render.render_svg(state.view(seat), names, language)

    def render_text(
        self,
        state: base.State,
        seat: int | None = None,
        names: Sequence[str] | None = None,
        language: Language = ENGLISH,
    ) -> str:
        from pbem.games.marram import render

        return render.render_text(state.view(seat), names, language)

    def render_mail_svg(
        self,
        state: base.State,
        seat: int | None = None,
        names: Sequence[str] | None = None,
        last_turn: bool = True,
    ) -> str:
        return self.mail_drawing(state, seat, names, last_turn).svg()

    def mail_drawing(
        self,
        state: base.State,
        seat: int | None = None,
        names: Sequence[str] | None = None,
        last_turn: bool = True,
    ) -> MailDrawing:
        """The board as every reader sees it (a spectator's view: Marram's board has no side
        and hides nothing), so neither `seat` nor `names` changes it."""
        from pbem.games.marram import render

        del seat, names
        return render.mail_drawing(state.view(None), last_turn)

    def mail_side(self, seat: int | None) -> int | None:
        """North is up for everyone: one drawing for every seat."""
        return None

    def board_assets(
        self,
        state: base.State,
        seat: int,
        names: Sequence[str] | None = None,
        language: Language = ENGLISH,
    ) -> base.JSON:
        """On `seat`'s turn: `previews`, every tile it may lay or flip drawn in each legal
        rotation (keyed "face:tile:rotation"); `flips`, what each flip would cost, keyed by
        position ("x,y": its tile, the tokens lost, a warning naming them by `names`, and
        those tokens drawn crossed out for the preview; see `render.flips`); `warnings`, those
        sentences keyed by the flip's move prefix ("flip x,y") for the page; `claims`, per
        action ("place 17 1,0 90", "flip 1,0 180") what each claim it may carry takes ("boot
        NE": "boot: the grass tuft of 3 tiles (north-east quarter)"), for the claim buttons;
        and `glyphs`, its boot, pitchfork and bet drawn at the origin. An empty dict
        otherwise."""
        if state.outcome is not None or state.to_move != seat:
            return {}
        from pbem.games.marram import claims, render

        view = state.view(seat)
        legal = state.legal_moves()
        flips = render.flips(view, legal, names, language)
        return {
            "previews": render.previews(view, legal, language),
            "flips": flips,
            # Shown by the page under a chosen flip ("flip x,y …"), as MMW warns of a sinking.
            "warnings": {f"flip {pos}": f["warning"] for pos, f in flips.items() if f["warning"]},
            "claims": (
                claims.claim_labels(state, legal, language)
                if isinstance(state, MarramState)
                else {}
            ),
            "glyphs": {
                "boot": render.boot_glyph(0, 0, seat),
                "fork": render.fork_glyph(0, 0, seat),
                "bet": render.bet_glyph(0, 0, seat),
            },
        }


GAME = MarramGame()
