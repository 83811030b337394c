"""The daily digest: one email a day to each player who asked for it instead of an email for
every turn (`Player.mail_preference == "digest"`), listing the games where it is their move
(the letter: `letters.digest`).

`run_digest(config, now)` is run often (Celery beat, a thread of `pbem serve`, `pbem digest`);
each player's digest is due at PBEM_DIGEST_HOUR o'clock in their time zone (UTC without one),
or at the first run after that hour when no run came at it. `Player.digest_sent_at` records that
the day's digest is done, sent or not: a day when no game awaits the player sends nothing and
is done all the same (the digest is the state of things at that hour, not a queue of turns).

Two runs at once never send a player two digests: each locks the players it works on with
`FOR UPDATE SKIP LOCKED` and reads their `digest_sent_at` again under the lock, and the letters
are written and `digest_sent_at` set in that same transaction. Not to addresses that bounce,
and not to players away on vacation (their games are paused; the digest resumes on their
return). The games are read from the running games, not from the players' seats: those with a
clock through the clock task's partial index (`ix_games_running_deadline`), so finished games
cost nothing there; games without a clock have no such index, and PostgreSQL reaches them
through the players' seats or a scan of the games, whichever it finds cheaper.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import BindParameter, Connection, and_, bindparam, select, union_all, update
from sqlalchemy.orm import selectinload

from pbem.config import Settings
from pbem.domain import letters, when
from pbem.domain.outbox import write_letters
from pbem.extensions import db
from pbem.models import ACTIVE, DIGEST, RUNNING, Game, Player, Seat, utcnow

BATCH = 200  # players per transaction
# How often the digest task runs (beat, and the embedded server's thread): a digest goes at most
# this long after its hour, and a run with nothing due costs one read of the digest players.
PERIOD_SECONDS = 300


@dataclass
class DigestReport:
    """What one run did: `due` players had their day's digest done; `sent` of them got one,
    the others had no game waiting. `outbox_ids` are the digests to send."""

    due: int = 0
    sent: int = 0
    outbox_ids: list[int] = field(default_factory=list)

    @property
    def empty(self) -> int:
        return self.due - self.sent

    def summary(self) -> str:
        sent = f"{self.sent} digest{'' if self.sent == 1 else 's'} sent"
        if not self.empty:
            return sent
        nobody = f"{self.empty} player{'' if self.empty == 1 else 's'}"
        return f"{sent}, {nobody} with no game waiting"


def last_digest_time(now: datetime, zone: str | None, hour: int) -> datetime:
    """The latest `hour` o'clock in `zone` (UTC when unknown) at or before `now`, as naive UTC
    like every stored instant."""
    tz = ZoneInfo(when.valid_zone(zone) or "UTC")
    utc_now = now.replace(tzinfo=UTC)
    day = utc_now.astimezone(tz).date()
    for back in (0, 1, 2):  # 2: a day whose `hour` fell in a clock change's gap
        slot = datetime.combine(day - timedelta(days=back), time(hour), tzinfo=tz).astimezone(UTC)
        if slot <= utc_now:
            return slot.replace(tzinfo=None)
    raise AssertionError("an hour o'clock always passed within two days")


def is_due(sent_at: datetime | None, zone: str | None, hour: int, now: datetime) -> bool:
    """Whether a player whose last digest was done at `sent_at` is due one at `now`."""
    return sent_at is None or sent_at < last_digest_time(now, zone, hour)


# Players who take the digest and may be due; which are is decided in Python, by their zone.
_WANTING = (
    Player.mail_preference == DIGEST,
    Player.bounced_at.is_(None),
    Player.vacation_since.is_(None),
)
_CANDIDATES = (
    select(Player.id, Player.time_zone, Player.digest_sent_at)
    .where(*_WANTING, Player.id > bindparam("after"))
    .order_by(Player.id)
    .limit(bindparam("limit"))
)
# The same players locked, their fields read again under the lock; another run holding one
# is doing that player's digest.
_CLAIM = (
    select(Player)
    .where(*_WANTING, Player.id.in_(bindparam("player_ids", expanding=True)))
    .order_by(Player.id)
    .with_for_update(skip_locked=True)
)
_DONE = update(Player).where(Player.id == bindparam("player_id"))


def _awaiting_query() -> Any:
    """(game id, player id) of every running game where one of `player_ids` is to move.

    Read from the running games, never from the players' seats (which finished games would
    swell): games with a clock through the clock task's partial index
    (`ix_games_running_deadline`; a paused game is its player's on vacation, who gets no digest
    anyway), and games without one, each joined to the seat to move by (game, seat).
    """
    players: BindParameter[Any] = bindparam("player_ids", expanding=True)
    to_move = and_(Seat.game_id == Game.id, Seat.seat == Game.to_move, Seat.state == ACTIVE)

    def running(*condition: Any) -> Any:
        return (
            select(Game.id.label("game_id"), Seat.player_id)
            .join(Seat, to_move)
            .where(Game.status == RUNNING, *condition, Seat.player_id.in_(players))
        )

    clocked = running(Game.deadline.is_not(None), Game.paused_at.is_(None))
    return union_all(clocked, running(Game.deadline.is_(None)))


_AWAITING = _awaiting_query()


def run_digest(config: Settings, now: datetime | None = None, batch: int = BATCH) -> DigestReport:
    """Do every digest due at `now` (naive UTC; the present when None); a batch of players per
    transaction. The caller sends `outbox_ids` after the return."""
    now = now or utcnow()
    hour = config.mail.digest_hour
    report = DigestReport()
    after = 0
    while True:
        conn = db.session.connection()
        rows = conn.execute(_CANDIDATES, {"after": after, "limit": batch}).all()
        if not rows:
            db.session.commit()
            return report
        after = rows[-1].id
        due = [row.id for row in rows if is_due(row.digest_sent_at, row.time_zone, hour, now)]
        if due:
            _do(conn, config, due, now, report)
        db.session.commit()


def _do(
    conn: Connection, config: Settings, player_ids: list[int], now: datetime, report: DigestReport
) -> None:
    """The digests of these players that are still due once they are locked."""
    hour = config.mail.digest_hour
    players = [
        player
        for player in db.session.execute(
            _CLAIM,
            {"player_ids": player_ids},
            execution_options={"populate_existing": True},
        ).scalars()
        if is_due(player.digest_sent_at, player.time_zone, hour, now)
    ]
    if not players:
        return
    waiting: dict[int, list[str]] = {}
    for row in conn.execute(_AWAITING, {"player_ids": [p.id for p in players]}):
        waiting.setdefault(row.player_id, []).append(row.game_id)
    games = _games(sorted({game_id for ids in waiting.values() for game_id in ids}))
    written = [
        letters.digest(config, player, [games[g] for g in waiting[player.id]], hour)
        for player in players
        if waiting.get(player.id)
    ]
    report.outbox_ids += write_letters(conn, config, written)
    conn.execute(_DONE, [{"player_id": p.id, "digest_sent_at": now} for p in players])
    report.due += len(players)
    report.sent += len(written)


def _games(game_ids: Sequence[str]) -> dict[str, Game]:
    if not game_ids:
        return {}
    found = db.session.execute(
        select(Game)
        .where(Game.id.in_(game_ids))
        .options(selectinload(Game.seats).joinedload(Seat.player))
    ).scalars()
    return {game.id: game for game in found}
