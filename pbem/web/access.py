"""Who the request is: the one place that turns a request into a seat or a player, for pages and
API alike (the checks themselves are `pbem.domain.access`'s).

The token comes from the path (`/play/<token>`), an `Authorization: Bearer` header or `?token=`.
The seat it names must belong to the game in the URL, and a submission to that seat. Every
refusal is a `links.LinkError` or a domain `ServiceError`, which `pbem.web.errors` renders as a
page or as JSON.
"""

from __future__ import annotations

from flask import request

from pbem import i18n, links, logs
from pbem.domain import access
from pbem.domain.errors import NotFound
from pbem.extensions import db, settings
from pbem.models import Player, Seat, Submission
from pbem.web import language


def request_token(path_token: str | None = None) -> str:
    """The token of this request: from the path, else a Bearer header, else `?token=`."""
    if path_token:
        return path_token
    scheme, _, value = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    return request.args.get("token", "")


def claims_for(game_id: str | None = None, token: str | None = None) -> links.LinkClaims:
    """The claims of the request's seat token, which must name `game_id` when one is given.

    Revocation is not checked here: the caller's own statement checks it against the seat
    (`seat_for` does, and so does submitting a move), which saves a read on the hot path.
    """
    token = request_token(token)
    if not token:
        raise links.NoToken(
            i18n.gettext(
                "No token was sent: pass your seat token as 'Authorization: Bearer <token>' or "
                "'?token=<token>', or open the link from your email."
            )
        )
    claims = access.read_claims(settings(), token, links.SEAT)
    if game_id is not None and claims.game_id != game_id:
        raise links.WrongLink(i18n.gettext("This link belongs to another game."))
    # Undone with the request's id at its end (pbem.web.request_ids).
    logs.bind(game_id=claims.game_id, seat=claims.seat)
    language.speaks_for(claims.player_id)
    return claims


def seat_for(game_id: str | None = None, token: str | None = None) -> Seat:
    """The seat the request speaks for (in `game_id` when given), checked against the database."""
    return access.seat_for_claims(claims_for(game_id, token))


def invited_seat(token: str) -> Seat:
    """The seat an invitation link speaks for."""
    seat = access.seat_for_token(settings(), token, links.INVITE)
    language.speaks_for(seat.player_id)
    return seat


def invitation_claims(token: str) -> links.LinkClaims:
    """An invitation link's claims; the acceptance checks them under the game's lock."""
    claims = access.read_claims(settings(), token, links.INVITE)
    language.speaks_for(claims.player_id)
    return claims


def submission_for(seat: Seat, submission_id: int) -> Submission:
    """One of this seat's submissions; someone else's looks the same as a missing one."""
    row = db.session.get(Submission, submission_id)
    if row is None or row.game_id != seat.game_id or row.seat != seat.seat:
        raise NotFound(i18n.gettext("There is no such move submission for your seat."))
    return row


def player_for(token: str) -> Player:
    """The player a player link (the dashboard's, `/me/<token>`) speaks for."""
    return _speaking(access.player_for_token(settings(), token))


def _speaking(player: Player) -> Player:
    language.speaks_for(player.id, player.language, loaded=True)
    return player


def mail_player_for(token: str) -> Player:
    """The player a mail settings link (`/mail/<token>`, List-Unsubscribe) names."""
    return _speaking(access.mail_player(settings(), token))


def signin_player_for(token: str) -> Player:
    """The player a sign-in link names (the link is used up only by its POST)."""
    return _speaking(access.signin_player(settings(), token))


def blocking_player_for(token: str) -> Player:
    """The player a "never email me" link (`/block/<token>`) names."""
    return _speaking(access.blocked_player(settings(), token))


def erasing_player_for(token: str) -> Player:
    """The player an erase link (`/erase/<token>`, emailed on request) speaks for."""
    return _speaking(access.erasing_player(settings(), token))
