"""move words as messages: each move's sentence stored as its engine's message, not English

Revision ID: 0016_move_words_as_messages
Revises: 0015_languages
Create Date: 2026-12-07 19:30:00

`moves.words` held the engine's English sentence. It now holds what says it in any language:
the engine's message and its parameters as JSON (pbem.domain.wording.stored_words). The games
already stored are replayed from their seeds and records through their engines
(pbem.domain.restating), which is what gives those messages; an engine that still speaks
English leaves its moves' words as they were, and a game that does not replay keeps its own.
The downgrade writes every message back as its English.
"""

from alembic import op

from pbem.domain.restating import english_moves, restate_moves

revision = "0016_move_words_as_messages"
down_revision = "0015_languages"
branch_labels = None
depends_on = None


def upgrade() -> None:
    restate_moves(op.get_bind())


def downgrade() -> None:
    english_moves(op.get_bind())
