"""The move path, in three modules, each readable in one sitting:

1. `pbem.domain.submitting`: a player's (or a bot's) move checked against the game as it
   stands (`turns.may_act`, the ply, the engine) and stored as a pending submission.
2. `pbem.domain.applying`: a worker plays pending submissions under their games' row locks,
   asking `turns.may_act` again at the instant each was stored.
3. `pbem.domain.turn_ending`: the next turn's clock and the turn or result emails, in the
   transaction of the move that ended the turn.

The web, the reply-by-mail path, the bots and the workers call the names below.
"""

from __future__ import annotations

from pbem.domain.applying import apply_moves, apply_submissions
from pbem.domain.submitting import submit_move
from pbem.domain.turn_ending import Applied
from pbem.domain.turns import LEFT_THE_GAME

__all__ = ["LEFT_THE_GAME", "Applied", "apply_moves", "apply_submissions", "submit_move"]
