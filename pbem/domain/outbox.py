"""The outbox: every email pbem sends is a row written here, in the transaction of the change it
reports (a move, an invitation, a sign-in request), and sent later by `pbem.domain.delivery`.

Each kind of mail is `templates/mail/<kind>.subject`, `.txt` and `.html`; `write_letters` is the
one function that renders them and stores the rows, threading each game's mail together.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from functools import cache
from typing import Any, Protocol

from jinja2 import Environment, select_autoescape
from sqlalchemy import Connection, bindparam, insert, select

from pbem import i18n, mail, resources
from pbem.config import Settings
from pbem.models import PENDING, Game, OutboxMessage, Player, utcnow
from pbem.ops import metrics


class Thread(Protocol):
    """The game a letter is about (a game, or its facts): its mail threads under the game's root
    Message-ID."""

    id: str
    thread_message_id: str


@dataclass(frozen=True)
class Letter:
    """One email to write: its kind names the templates, `context` fills them."""

    to: str
    kind: str
    game: Thread | None  # None for mail about no game (sign-in)
    context: Mapping[str, Any] = field(default_factory=dict)
    # Where the player's reply goes (a seat's play+<token>@ address, pbem.links); None: MAIL_FROM.
    reply_to: str | None = None
    # False: not written at all (the player turned this kind of mail off, or their address
    # bounces); write_letters skips it, so every caller may write its letters regardless.
    wanted: bool = True
    # The one-click unsubscribe link (List-Unsubscribe, RFC 8058): every email to a player has
    # one (their mail settings), an invitation its block link.
    list_unsubscribe: str | None = None
    # The board picture the email carries (a `pictures` key, "<game>/<ply>/<seat>"): the row
    # waits for it up to PBEM_PICTURE_TIMEOUT_SECONDS, then goes without it.
    picture: str | None = None
    # The language it is written in; None: the recipient's, else its game's, else English
    # (`languages_of`).
    language: str | None = None


@cache
def _templates() -> Environment:
    # One environment for every language: its gettext asks pbem.i18n for the current one.
    # The mail templates need nothing of Flask (no request, session or url_for), so a worker
    # renders them with a plain Jinja environment: HTML escaped, text and subjects as written.
    # Templates are read once per process, as Flask does outside debug mode: checking each
    # file's date at every message would cost a stat per template per email.
    env = Environment(
        loader=resources.template_loader(),
        autoescape=select_autoescape(["html"], default_for_string=False),
        auto_reload=False,
    )
    i18n.install(env)
    env.filters["wrap"] = wrap
    return env


def wrap(text: str, width: int = 78) -> str:
    """A paragraph of a text email folded at `width` (a translation is as long as it is), links
    and other long words left whole."""
    return textwrap.fill(str(text), width=width, break_long_words=False, break_on_hyphens=False)


def render(
    kind: str, context: Mapping[str, Any], language: str | None = None
) -> tuple[str, str, str]:
    """The subject, plain text and HTML of a `templates/mail/<kind>` message, in `language`
    (English when None)."""
    env = _templates()
    with i18n.using(language):
        subject = env.get_template(f"mail/{kind}.subject").render(context)
        return (
            " ".join(subject.split()),
            env.get_template(f"mail/{kind}.txt").render(context),
            env.get_template(f"mail/{kind}.html").render(context),
        )


def languages_of(conn: Connection, letters: Sequence[Letter]) -> list[str]:
    """The language of each letter: its own when set, else its recipient's (a player who chose
    one, or acted on a page), else that of the game it is about (the organiser's choice, which
    an invitation to someone new is written in), else English."""
    unset = [letter for letter in letters if letter.language is None]
    players: dict[str, str | None] = {}
    games: dict[str, str] = {}
    if unset:
        addresses = sorted({letter.to for letter in unset})
        for email, spoken in conn.execute(
            select(Player.email, Player.language).where(Player.email.in_(addresses))
        ):
            if email is not None:
                players[email] = spoken
        game_ids = sorted({x.game.id for x in unset if x.game is not None})
        if game_ids:
            for game_id, spoken in conn.execute(
                select(Game.id, Game.language).where(Game.id.in_(game_ids))
            ):
                games[game_id] = spoken
    chosen = []
    for letter in letters:
        found = letter.language or players.get(letter.to)
        if found is None and letter.game is not None:
            found = games.get(letter.game.id)
        chosen.append(i18n.valid(found) or i18n.ENGLISH)
    return chosen


_INSERT_OUTBOX = insert(OutboxMessage).returning(OutboxMessage.id)
_LAST_MESSAGE_IDS = (
    select(OutboxMessage.game_id, OutboxMessage.to, OutboxMessage.message_id)
    .where(OutboxMessage.game_id.in_(bindparam("game_ids", expanding=True)))
    .order_by(OutboxMessage.id)
)


def last_message_ids(conn: Connection, game_ids: Iterable[str]) -> dict[str, dict[str, str]]:
    """For each game, the last Message-ID each address got in it."""
    found: dict[str, dict[str, str]] = {}
    wanted = sorted(set(game_ids))
    if wanted:
        for row in conn.execute(_LAST_MESSAGE_IDS, {"game_ids": wanted}):
            found.setdefault(row.game_id, {})[row.to] = row.message_id
    return found


def write_letters(
    conn: Connection,
    config: Settings,
    letters: Sequence[Letter],
    previous: dict[str, dict[str, str]] | None = None,
) -> list[int]:
    """Render `letters` and store them as pending outbox rows, in the caller's transaction.

    Returns the new rows' ids, for the caller to hand to the mail task after its commit. Each
    letter about a game is threaded after the last message its address got in that game
    (`previous`: game -> address -> Message-ID, read here when not given, and updated); the
    game's root Message-ID heads every chain, so a mail client shows a game as one conversation.
    """
    letters = [letter for letter in letters if letter.wanted]
    if not letters:
        return []
    if previous is None:
        previous = last_message_ids(conn, (x.game.id for x in letters if x.game is not None))
    now = utcnow()
    picture_due = now + timedelta(seconds=config.mail.picture_timeout_seconds)
    rows = []
    for letter, language in zip(letters, languages_of(conn, letters), strict=True):
        subject, text, html = render(letter.kind, letter.context, language)
        if letter.game is None:
            message_id = mail.new_message_id(letter.kind, config.mail_from)
            in_reply_to = references = None
        else:
            root = letter.game.thread_message_id
            chain = previous.setdefault(letter.game.id, {})
            before = chain.get(letter.to)
            message_id = mail.new_message_id(letter.game.id, config.mail_from)
            chain[letter.to] = message_id
            in_reply_to = before or root
            references = f"{root} {before}" if before else root
        rows.append(
            {
                "game_id": letter.game.id if letter.game is not None else None,
                "kind": letter.kind,
                "to": letter.to,
                "subject": subject,
                "text": text,
                "html": html,
                "message_id": message_id,
                "in_reply_to": in_reply_to,
                "references": references,
                "reply_to": letter.reply_to,
                "list_unsubscribe": letter.list_unsubscribe,
                "picture": letter.picture,
                "language": language,
                "status": PENDING,
                "attempts": 0,
                # A row waiting for its picture is due when the wait is over: the sweep sends
                # it then, without the picture, if the picture task has not sent it first.
                "next_attempt_at": picture_due if letter.picture else now,
                "created_at": now,
            }
        )
    ids = list(conn.execute(_INSERT_OUTBOX, rows).scalars())
    # Counted when written: a transaction that rolls back afterwards (rare: the database's
    # refusal) leaves a letter counted that was never queued.
    for letter in letters:
        metrics.EMAILS_QUEUED.labels(letter.kind).inc()
    return ids
