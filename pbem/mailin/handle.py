"""Acting on a reply by mail: find its seat and ply, check who sent it, play or refuse, answer.

`handle_message` is the one entry: `pbem mail-in` (an MTA's pipe) and the embedded SMTP listener
both call it. What it will not do:

- act on mail a program wrote (auto-replies, vacation notices, bounces, reports), or answer it;
  the one exception is a delivery report sent to a message's own bounce address
  (`bounce+<token>@`, VERP): a permanent failure marks that message's recipient as bouncing
  (`pbem.domain.bounces`), and is never answered either;
- answer mail without a genuine, current reply address (none, forged, or withdrawn by a link
  rotation), or whose From is not the seat's player's address. From can be forged, so such mail
  is dropped and logged, never answered: pbem must not mail whoever a forger names;
- take a From that the MTA's Authentication-Results disown (`PBEM_MAIL_AUTHSERV_ID`,
  `pbem.mailin.authentication`): DMARC failed, or neither DKIM nor SPF passed for its domain.
  Such mail is dropped and logged too.

Moves go through the usual path: `moves.submit_move` checks and stores each one for the ply of
the address, then `moves.apply_moves` plays it here, at once, rather than through the queue:
the answer says whether it was played, and the second action of a turn can only be submitted
once the first is played (for the next ply, while the same seat is `mid_turn`). Applying is
idempotent and takes the game's row lock, so a worker given the same submission by the sweep
changes nothing. Should the process die between the two, the stored submission is the sweep's,
and the MTA's retry of the same message finds it (pending: applied now; applied: reported).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from email.utils import parseaddr
from typing import Any

from sqlalchemy import bindparam, func, select

from pbem import dispatch, games, i18n, models
from pbem.config import Settings
from pbem.domain import (
    bot_turns,
    bounces,
    endings,
    letters,
    move_groups,
    moves,
    turn_ending,
    turns,
    wording,
)
from pbem.domain.errors import ServiceError
from pbem.domain.outbox import Letter, write_letters
from pbem.domain.views import GAME_FACTS, GameFacts, SeatInfo, seat_names, settle
from pbem.extensions import db
from pbem.mailin import authentication, dsn, parse, tokens
from pbem.models import Game, OutboxMessage, Submission, utcnow

log = logging.getLogger(__name__)

# What happened to a message.
IGNORED = "ignored"  # written by a program: never acted on, never answered
DROPPED = "dropped"  # no genuine reply address, or not from the seat's player: not answered
APPLIED = "applied"  # moves played (perhaps not all of them), answered
REFUSED = "refused"  # nothing played, answered with the reason
ANSWERED = "answered"  # the legal moves, as asked
RESIGNED = "resigned"  # told by the result (or "left the game") email every seat gets
BOUNCED = "bounced"  # a delivery report of a permanent failure: the address marked, unanswered

ANSWERS_PER_HOUR = 10  # to one seat; what is asked beyond is still done, unanswered


@dataclass(frozen=True)
class Outcome:
    status: str
    detail: str
    game_id: str | None = None
    seat: int | None = None
    ply: int | None = None
    outbox_ids: tuple[int, ...] = ()

    def line(self) -> str:
        """One line for the MTA's log, the terminal and ours."""
        where = "" if self.game_id is None else f" game {self.game_id} seat {self.seat}"
        at = "" if self.ply is None else f" move {self.ply + 1}"
        return f"{self.status}{where}{at}: {self.detail}"


def handle_message(
    config: Settings,
    raw: bytes,
    recipients: Sequence[str] = (),
    envelope_sender: str | None = None,
) -> Outcome:
    """Read one RFC 5322 message and do what it asks; the database's errors propagate (the
    caller asks the MTA to try again later). `recipients` are the envelope's, checked for the
    reply address before the headers; `envelope_sender` is MAIL FROM when known (empty: a
    bounce)."""
    outcome = _handle(config, raw, recipients, envelope_sender)
    if outcome.status == DROPPED:
        log.warning("mail-in: %s", outcome.line())
    else:
        log.info("mail-in: %s", outcome.line())
    return outcome


def _handle(
    config: Settings, raw: bytes, recipients: Sequence[str], envelope_sender: str | None
) -> Outcome:
    reply = parse.read_message(raw)
    bounce_to = _bounce_addresses(recipients, reply)
    if bounce_to:
        return _bounce(config, raw, bounce_to)
    if reply.intent == parse.AUTOMATIC:
        return Outcome(IGNORED, str(reply.why))
    if envelope_sender is not None and not envelope_sender.strip("<> "):
        return Outcome(IGNORED, "the envelope sender is empty (a bounce)")
    if _from_pbem(config, reply.sender):
        return Outcome(IGNORED, "sent by pbem itself")
    found = tokens.find_reply_address(config, [*recipients, *reply.addresses])
    if found is None:
        return Outcome(DROPPED, "no genuine reply address (none, forged or withdrawn)")
    game_id, seat_index, ply = found
    infos = turn_ending.read_seats(db.session.connection(), [game_id])[0].get(game_id, [])
    seat = next((info for info in infos if info.seat == seat_index), None)
    if seat is None:
        return Outcome(DROPPED, "the seat is gone", game_id, seat_index, ply)
    if not reply.sender or seat.email is None or reply.sender.casefold() != seat.email.casefold():
        # Not answered: the reply address leaked (a forwarded email) or From is forged.
        detail = f"from {reply.sender or 'nobody'}, not the seat's player"
        return Outcome(DROPPED, detail, game_id, seat_index, ply)
    refusal = _disowned(config, reply, game_id, seat_index)
    if refusal:
        return Outcome(DROPPED, refusal, game_id, seat_index, ply)
    db.session.commit()  # ends the read; what follows commits on its own
    facts = _facts(game_id)[0]
    # How pages and mail call the players (never by address): the answer's sentences.
    names = seat_names(facts, infos)
    # Refusals are written as the answer is: in the player's language, else the game's.
    with i18n.using(seat.language or facts.language):
        return _do(config, reply, seat, ply, names)


def _do(
    config: Settings, reply: parse.Reply, seat: SeatInfo, ply: int, names: list[str]
) -> Outcome:
    """What the seat's player asked for by mail, done and answered."""
    if reply.intent == parse.UNREADABLE:
        refusal = i18n.gettext("pbem could not read a move in it: %(why)s.", why=reply.why)
        letter = _now(seat.game_id).reply(config, seat, refused=refusal, sent=reply.read)
        ids = _answer(config, letter)
        return Outcome(REFUSED, f"unreadable: {reply.why}", seat.game_id, seat.seat, ply, ids)
    if reply.intent == parse.LEGAL:
        return _legal(config, seat, ply, names)
    if reply.intent == parse.RESIGN:
        return _resign(config, seat, ply)
    return _play(config, seat, ply, list(reply.moves), names)


def _disowned(config: Settings, reply: parse.Reply, game_id: str, seat: int) -> str:
    """Why the MTA's Authentication-Results disown the reply's From; "" when they do not, or
    when they are not checked."""
    authserv_id = config.mail.authserv_id
    if authserv_id is None:
        return ""
    verdict = authentication.check(authserv_id, reply.authentication, reply.sender)
    if not verdict.checked:
        # Nothing to go on (the MTA added no header to this message, or the setting names
        # another host): taken as without the setting, and said, so that a setting that never
        # matches shows in the log.
        log.warning(
            "mail-in: game %s seat %s: no Authentication-Results of %s, From not checked",
            game_id,
            seat,
            authserv_id,
        )
    if verdict.refusal:
        return f"From not authenticated by {authserv_id}: {verdict.refusal}"
    return ""


# Where a bounce address may be besides the envelope: the headers an MTA sets on delivery.
_BOUNCE_HEADERS = ("To", "Delivered-To", "X-Original-To")
_BOUNCE_TOKENS_CHECKED = 8


def _bounce_addresses(recipients: Sequence[str], reply: parse.Reply) -> list[str]:
    """The bounce addresses (`bounce+…@`, genuine or not) the message was sent to."""
    values = list(recipients)
    for name, value in zip(parse.ADDRESS_HEADERS, reply.addresses, strict=False):
        if name in _BOUNCE_HEADERS:
            values.append(value)
    return [m.group(0) for value in values for m in tokens.BOUNCE_RE.finditer(value)]


def _bounce(config: Settings, raw: bytes, addresses: list[str]) -> Outcome:
    """Mail to a bounce address: a delivery report of a permanent failure marks the recipient
    of the message it reports on. Nothing here is ever answered: a forged address, mail that is
    no delivery report (an auto-reply), a delay."""
    outbox_id = None
    for address in addresses[:_BOUNCE_TOKENS_CHECKED]:
        outbox_id = tokens.read_bounce_address(config, address)
        if outbox_id is not None:
            break
    if outbox_id is None:
        return Outcome(DROPPED, "a bounce address with a forged token")
    report = dsn.read_report(raw)
    if report is None:
        return Outcome(IGNORED, f"mail to the bounce address of outbox {outbox_id}, no report")
    what = f"outbox {outbox_id}: {report.verdict} {report.status or '(no status)'}"
    if not report.failed:
        return Outcome(IGNORED, f"{what}, nothing recorded")
    written = bounces.mark_bouncing(db.session.connection(), config, outbox_id, report.diagnostic)
    db.session.commit()
    dispatch.send_emails_later(written)
    return Outcome(BOUNCED, f"{what}: {report.diagnostic}", outbox_ids=tuple(written))


def _from_pbem(config: Settings, sender: str) -> bool:
    """Mail from pbem's own address or a reply address: something sent ours back."""
    ours = parseaddr(config.mail_from)[1].casefold()
    return bool(sender) and (
        sender.casefold() == ours or tokens.ADDRESS_RE.search(sender) is not None
    )


_GAME = select(*GAME_FACTS, Game.state, Game.deadline, Game.paused_at).where(
    Game.id == bindparam("game_id")
)


@dataclass(frozen=True)
class _Now:
    """The game as it is now: its facts, its engine state (None before it started; settled once
    the service ended it, `settle`) and its row, for `turns.may_act`."""

    facts: GameFacts
    state: games.State | None
    row: Any

    def may_act(self, seat: SeatInfo) -> turns.Verdict:
        gone = self.state is not None and seat.seat in self.state.dropped
        sitter = turns.Sitter(seat.seat, not gone, seat.played_by is not None)
        return turns.may_act(self.row, sitter, utcnow())

    def reply(self, config: Settings, seat: SeatInfo, **answer: Any) -> Letter:
        """The answer to `seat`'s reply: another reply to it plays only while the seat may."""
        yours = bool(self.may_act(seat))
        return letters.reply(config, self.facts, seat, yours=yours, state=self.state, **answer)


def _now(game_id: str) -> _Now:
    row = db.session.connection().execute(_GAME, {"game_id": game_id}).one()
    if row.state is None:
        return _Now(GameFacts.of(row), None, row)
    state = settle(games.get(row.engine).from_json(row.state), row.outcome)
    return _Now(GameFacts.of(row), state, row)


def _facts(game_id: str) -> tuple[GameFacts, games.State | None]:
    now = _now(game_id)
    return now.facts, now.state


_ANSWERS_SINCE = select(func.count(OutboxMessage.id)).where(
    OutboxMessage.kind == "reply",
    OutboxMessage.game_id == bindparam("game_id"),
    OutboxMessage.to == bindparam("to"),
    OutboxMessage.created_at >= bindparam("since"),
)


def _answer(config: Settings, letter: Letter) -> tuple[int, ...]:
    """Write the answer, threaded under the game, and hand it to the mail task; none beyond
    ANSWERS_PER_HOUR to one seat, the last stop of a loop no header gave away (a forwarder
    that strips Auto-Submitted and sends our answers back as the player)."""
    assert letter.game is not None
    conn = db.session.connection()
    since = utcnow() - timedelta(hours=1)
    answered = conn.execute(
        _ANSWERS_SINCE, {"game_id": letter.game.id, "to": letter.to, "since": since}
    ).scalar_one()
    if answered >= ANSWERS_PER_HOUR:
        db.session.commit()
        log.warning("mail-in: %s had %d answers this hour; not answered", letter.to, answered)
        return ()
    outbox_ids = write_letters(conn, config, [letter])
    db.session.commit()
    dispatch.send_emails_later(outbox_ids)
    return tuple(outbox_ids)


def _legal(config: Settings, seat: SeatInfo, ply: int, names: list[str]) -> Outcome:
    """The legal moves where the game is now (asking changes nothing, so an older email of
    the seat's does as well), when it is the seat's turn: the first few, in words, those that
    do the same thing together (`move_groups`); the game page has them all."""
    now = _now(seat.game_id)
    verdict = now.may_act(seat)
    if verdict.refusal is not None:
        refused = verdict.refusal.message
        ids = _answer(config, now.reply(config, seat, refused=refused))
        return Outcome(REFUSED, refused, seat.game_id, seat.seat, ply, ids)
    assert now.state is not None
    listed = move_groups.listed(now.state, seat.seat, names)
    letter = now.reply(config, seat, legal=listed.groups, more_legal=listed.left_out)
    ids = _answer(config, letter)
    return Outcome(ANSWERED, f"{listed.total} legal moves", seat.game_id, seat.seat, ply, ids)


def _resign(config: Settings, seat: SeatInfo, ply: int) -> Outcome:
    """Resign, as the game page's button does (at any ply): the result email, or the "left the
    game" one in a larger game, is the answer."""
    try:
        outbox_ids = endings.resign(config, seat)
    except ServiceError as exc:
        ids = _answer(config, _now(seat.game_id).reply(config, seat, refused=exc.message))
        return Outcome(REFUSED, exc.message, seat.game_id, seat.seat, ply, ids)
    dispatch.send_emails_later(outbox_ids)
    dispatch.play_bots_later(bot_turns.with_bots([seat.game_id]))
    return Outcome(RESIGNED, "resigned", seat.game_id, seat.seat, ply, tuple(outbox_ids))


_EARLIER = (
    select(Submission.id, Submission.status)
    .where(
        Submission.game_id == bindparam("game_id"),
        Submission.seat == bindparam("seat"),
        Submission.ply == bindparam("ply"),
        Submission.move == bindparam("move"),
        Submission.status.in_([models.PENDING, models.APPLIED]),
    )
    .order_by(Submission.id.desc())
    .limit(1)
)
_DECIDED = select(Submission.status, Submission.error).where(
    Submission.id == bindparam("submission_id")
)


def _play(
    config: Settings, seat: SeatInfo, ply: int, lines: list[str], names: list[str]
) -> Outcome:
    """Play the lines in order, each for the ply after the last; a line after the seat's turn
    ended is left unplayed (and said so)."""
    played: list[str] = []
    refused = ""
    sent: list[str] = []
    unplayed: list[str] = []
    for index, line in enumerate(lines):
        at = ply + index
        conn = db.session.connection()
        facts, state = _facts(seat.game_id)
        earlier = conn.execute(
            _EARLIER, {"game_id": seat.game_id, "seat": seat.seat, "ply": at, "move": line}
        ).one_or_none()
        if earlier is not None and earlier.status == models.APPLIED:
            played.append(
                i18n.gettext(
                    "%(move)s (played already, by an earlier copy of this reply)", move=line
                )
            )
            continue
        if index and not _same_turn(facts, state, seat.seat, at):
            unplayed = lines[index:]
            break
        sentence = _describe(state, line, names, facts.engine)
        db.session.commit()
        try:
            if earlier is not None:  # stored by an earlier copy of this reply, not played yet
                submission_id = int(earlier.id)
            else:
                submission_id = moves.submit_move(seat, line, at)
        except ServiceError as exc:
            refused, sent = exc.message, lines[index:]
            break
        applied = moves.apply_submissions(config, [submission_id])
        dispatch.send_emails_later(applied.outbox_ids)
        dispatch.play_bots_later(applied.bot_games)
        status, error = (
            db.session.connection().execute(_DECIDED, {"submission_id": submission_id}).one()
        )
        if status != models.APPLIED:
            told = wording.read_words(error) if error else i18n.gettext("It was not played.")
            refused, sent = told, lines[index:]
            break
        played.append(sentence)
    answer = {"played": played, "refused": refused, "sent": sent, "unplayed": unplayed}
    letter = _now(seat.game_id).reply(config, seat, **answer)
    ids = _answer(config, letter)
    if not played:
        return Outcome(REFUSED, refused, seat.game_id, seat.seat, ply, ids)
    detail = "; ".join(played) + (f"; then refused: {refused}" if refused else "")
    if unplayed:
        detail += f"; {len(unplayed)} line(s) after the turn ended not played"
    return Outcome(APPLIED, detail, seat.game_id, seat.seat, ply, ids)


def _same_turn(facts: GameFacts, state: games.State | None, seat: int, ply: int) -> bool:
    """Whether `seat` is still in the turn it started, at `ply` (a turn of several actions)."""
    return (
        state is not None
        and facts.status == models.RUNNING
        and facts.ply == ply
        and facts.to_move == seat
        and state.mid_turn
    )


def _describe(state: games.State | None, line: str, names: list[str], game: str) -> str:
    """The move in words, in the reader's language, with the players' names; the line itself
    when the engine cannot say (submitting will refuse it with the engine's reason)."""
    if state is None:
        return line
    try:
        return games.fill_names(wording.game_words(state.describe(line), game), names)
    except Exception:
        return line
