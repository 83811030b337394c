"""The Celery queues, each consumed by a worker of its own (the Procfile's `worker`, `picture` and
`bot`): a drawing or a bot's thinking never delays a person's move or its email."""

from __future__ import annotations

# Celery's default queue: moves, emails, the sweep, the clock, the digest.
DEFAULT_QUEUE = "celery"
# render_pictures: board pictures for mail.
PICTURES_QUEUE = "pictures"
# play_bot: bots' turns and autopilot.
BOTS_QUEUE = "bots"
QUEUES = (DEFAULT_QUEUE, PICTURES_QUEUE, BOTS_QUEUE)
