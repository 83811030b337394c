"""move words restated: the moves of engines that began speaking in messages after 0016

Revision ID: 0017_move_words_restated
Revises: 0016_move_words_as_messages
Create Date: 2026-12-07 23:00:00

Revision 0016 stored as messages the moves of the engines that spoke in messages then; the others
kept their English. Now that every engine does, the stored games are replayed again
(pbem.domain.restating), which rewrites only the moves whose words change.

The downgrade leaves the messages as they are: the code of 0016 reads any stored message, and
says it in English where the game's catalog lacks its words. Going down to 0015 writes English
back for every game.
"""

from alembic import op

from pbem.domain.restating import restate_moves

revision = "0017_move_words_restated"
down_revision = "0016_move_words_as_messages"
branch_labels = None
depends_on = None


def upgrade() -> None:
    restate_moves(op.get_bind())


def downgrade() -> None:
    """Nothing to undo (see above)."""
