"""The domain: what pbem does with games, independent of the web and the task queue.

One module per concern; each function takes the settings it needs and commits its own
transaction, returning the ids of the rows a task must pick up next (submissions to apply, outbox
rows to send), which the caller enqueues after the commit (`pbem.dispatch`).

- `starting`: create a game, invitations, accept a seat, the deal
- `moves`: submit a move (the checks), apply moves under the game's row lock
- `letters`, `outbox`: each kind of email, and the one writer of outbox rows
- `delivery`: send outbox rows over SMTP (or into the outbox folder)
- `sweep`: find work the queue lost
- `rotation`: revoke a seat's links
- `access`: which seat or player a link speaks for
- `views`: what pages, mail and the API show of a game
- `dashboard`: a player's games
- `errors`: the refusals, with their API codes
"""
