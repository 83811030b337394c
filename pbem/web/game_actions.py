"""What a seat does to its game besides moving: resign, offer, accept or decline a draw, cancel a
game nobody has moved in (the organiser alone before the start, every player's agreement after:
propose, agree, decline), invite someone else to a seat whose invitation lapsed.

Each lives under the seat's token, as the move form does: the token in the URL is the
credential, checked again under the game's lock by the domain (`pbem.domain.endings`,
`pbem.domain.cancelling`, `pbem.domain.starting.reinvite`). GET only shows a confirmation page
(mail scanners open every link); each POST does its one thing and answers 303 to the game page,
which says what happened (`?done=…`). A refusal is a page that says why, with the way back to
the game.
"""

from __future__ import annotations

from collections.abc import Callable

from flask import Blueprint, redirect, render_template, request, url_for
from werkzeug.wrappers import Response

from pbem import dispatch, i18n, links
from pbem.domain import autopilot as autopilot_domain
from pbem.domain import bot_seats, bot_turns, cancelling, endings, starting, views
from pbem.domain.errors import ServiceError
from pbem.domain.titles import game_named
from pbem.domain.wording import and_list
from pbem.extensions import db, settings
from pbem.models import FINISHED, RUNNING, Game, Seat
from pbem.web import ratelimits
from pbem.web.access import claims_for, seat_for
from pbem.web.errors import refusal
from pbem.web.play import (
    STATE_WORDS,
    can_be_cancelled,
    cancel_offer_for,
    game_page,
    is_organiser,
)

bp = Blueprint("game_actions", __name__)

Answer = Response | tuple[str, int]


def _back(token: str) -> str:
    return url_for("play.page", token=token)


def _done(token: str, done: str) -> Response:
    return redirect(url_for("play.page", token=token, done=done), 303)


def _refused(token: str, code: str, message: str, status: int) -> Response:
    """The refusal page of an action, with the way back to the game."""
    return refusal(code, message, status, back=_back(token))


def _act(
    token: str,
    action: Callable[[links.LinkClaims], list[int]],
    done: str | Callable[[Game | None], str],
) -> Response:
    """Run `action` with the token's claims, send its emails and answer 303 to the game page
    saying `done` (or what `done` makes of the game as the action left it); the refusal page
    when the domain refuses."""
    claims = claims_for(token=token)
    try:
        outbox_ids = action(claims)
    except ServiceError as exc:
        return _refused(token, exc.code, exc.message, exc.status)
    dispatch.send_emails_later(outbox_ids)
    # A bot may answer a draw offer, or have the turn a player left.
    dispatch.play_bots_later(bot_turns.with_bots([claims.game_id]))
    if not isinstance(done, str):
        # The domain committed behind the session's back: read the game afresh.
        db.session.expire_all()
        done = done(db.session.get(Game, claims.game_id))
    return _done(token, done)


# What the game page says after an action, by the game as the action left it.


def _resigned(game: Game | None) -> str:
    # In a game of three or four the others play on without the seat.
    return "left" if game is not None and game.status == RUNNING else "resigned"


def _draw_offered(game: Game | None) -> str:
    # Offering while the opponent's offer stands accepts it.
    return "draw_accepted" if game is not None and game.status == FINISHED else "draw_offered"


def _cancel_agreed(game: Game | None) -> str:
    # The last agreement (or the organiser, before the start) cancels the game.
    return "cancel_agreed" if game is not None and game.status == RUNNING else "cancelled"


def _against(seat: Seat) -> str:
    names = views.names(seat.game)
    return and_list([name for index, name in enumerate(names) if index != seat.seat])


def _confirm_page(seat: Seat, token: str, action: str, **context: object) -> str:
    """The page asking to confirm `action`, whose form posts to the view of that name."""
    return render_template(
        "pages/confirm_action.html",
        seat=seat,
        game=seat.game,
        back=_back(token),
        action=action,
        post_to=url_for(f"game_actions.{action}", token=token),
        **context,
    )


# --- resigning -----------------------------------------------------------------------------------


@bp.get("/play/<token>/resign")
def resign_form(token: str) -> Answer | str:
    seat = seat_for(token=token)
    game = seat.game
    if game.status != RUNNING:
        inviting = game.status == "inviting"
        return _refused(
            token,
            "game_over" if not inviting else "game_not_started",
            i18n.gettext(
                "There is nothing to resign from: the game is not under way. It has not started "
                "yet."
            )
            if inviting
            else i18n.gettext(
                "There is nothing to resign from: the game is not under way. It is over."
            ),
            409,
        )
    if seat.state in STATE_WORDS:
        return _refused(
            token,
            "refused",
            i18n.gettext("You have left this game already; the others play on without you."),
            409,
        )
    called = game_named(game.title, views.engine(game).title, game.id)
    many = len(game.seats) > 2
    return _confirm_page(
        seat,
        token,
        action="resign",
        heading=i18n.gettext("Resign?"),
        question=i18n.gettext(
            "Resign from %(game)s against %(players)s?", game=called, players=_against(seat)
        ),
        consequence=(
            i18n.gettext("You leave the game and rank last; the others play on without you.")
            if many
            else i18n.gettext("You lose the game, and every player is told by email.")
        ),
        button=i18n.gettext("Yes, resign"),
    )


@bp.post("/play/<token>/resign")
def resign(token: str) -> Answer:
    return _act(token, lambda claims: endings.resign(settings(), claims), _resigned)


# --- draws ---------------------------------------------------------------------------------------


@bp.post("/play/<token>/draw")
def offer_draw(token: str) -> Answer:
    return _act(token, lambda claims: endings.offer_draw(settings(), claims), _draw_offered)


@bp.post("/play/<token>/draw/accept")
def accept_draw(token: str) -> Answer:
    return _act(
        token, lambda claims: endings.answer_draw(settings(), claims, accept=True), "draw_accepted"
    )


@bp.post("/play/<token>/draw/decline")
def decline_draw(token: str) -> Answer:
    return _act(
        token, lambda claims: endings.answer_draw(settings(), claims, accept=False), "draw_declined"
    )


# --- cancelling ----------------------------------------------------------------------------------


@bp.get("/play/<token>/cancel")
def cancel_form(token: str) -> Answer | str:
    seat = seat_for(token=token)
    game = seat.game
    started = game.status == RUNNING
    if not started and not is_organiser(game, seat):
        return _refused(
            token,
            "refused",
            i18n.gettext("Only the player who started the game can cancel it before it starts."),
            409,
        )
    if not can_be_cancelled(game):
        message = (
            str(cancelling.MOVED)
            if started
            else i18n.gettext("The game is over already; there is nothing to cancel.")
        )
        return _refused(token, "refused", message, 409)
    called = game_named(game.title, views.engine(game).title, game.id)
    if not started:
        consequence = i18n.gettext(
            "The game has not started. It ends without a result, and every player invited is "
            "told by email."
        )
        button = i18n.gettext("Yes, cancel the game")
    else:
        offer = cancel_offer_for(game, views.names(game))
        if offer is None:
            consequence = i18n.gettext(
                "Nobody has moved yet. The game is cancelled, without a result, only if every "
                "player agrees; the others are asked by email. Until then it goes on, and the "
                "first move ends the proposal."
            )
        else:
            consequence = i18n.ngettext(
                "Nobody has moved yet. The game is cancelled, without a result, only if every "
                "player agrees: %(names)s already has. Until then it goes on, and the first move "
                "ends the proposal.",
                "Nobody has moved yet. The game is cancelled, without a result, only if every "
                "player agrees: %(names)s already have. Until then it goes on, and the first "
                "move ends the proposal.",
                len(offer.agreed),
                names=offer.agreed_names,
            )
        button = (
            i18n.gettext("Yes, agree to cancel")
            if offer is not None
            else i18n.gettext("Yes, propose cancelling")
        )
    return _confirm_page(
        seat,
        token,
        action="cancel",
        heading=i18n.gettext("Cancel the game?"),
        question=i18n.gettext(
            "Cancel %(game)s with %(players)s?", game=called, players=_against(seat)
        ),
        consequence=consequence,
        button=button,
    )


@bp.post("/play/<token>/cancel")
def cancel(token: str) -> Answer:
    """Before the start, the organiser cancels; after, the seat agrees (or proposes)."""
    return _act(token, lambda claims: cancelling.agree(settings(), claims), _cancel_agreed)


@bp.post("/play/<token>/cancel/decline")
def decline_cancel(token: str) -> Answer:
    return _act(token, lambda claims: cancelling.decline(settings(), claims), "cancel_declined")


# --- autopilot -----------------------------------------------------------------------------------


@bp.post("/play/<token>/autopilot")
def autopilot(token: str) -> Answer:
    """Hand the seat to one of pbem's bots (`autopilot=on`, `bot` greedy or mcts; greedy when
    not given) or take it back (`off`)."""
    choice = request.form.get("autopilot", "")
    if choice not in ("on", "off"):
        return _refused(
            token,
            "bad_request",
            i18n.gettext(
                "The form did not say whether to hand the seat over or take it back. Reload the "
                "game page and use its button."
            ),
            400,
        )
    on = choice == "on"
    try:
        bot = bot_seats.autopilot_bot(request.form.get("bot")) if on else None
    except ServiceError as exc:
        return _refused(token, exc.code, exc.message, exc.status)
    return _act(
        token,
        lambda claims: autopilot_domain.hand_over(settings(), claims, on, bot=bot),
        f"autopilot_{choice}",
    )


# --- another player for a lapsed invitation -------------------------------------------------------


@bp.post("/play/<token>/reinvite")
def reinvite(token: str) -> Answer:
    seat = seat_for(token=token)
    email = request.form.get("email", "").strip()
    try:
        index = int(request.form.get("seat", ""))
    except ValueError:
        return _refused(
            token,
            "bad_request",
            i18n.gettext(
                "The form did not say which seat to invite someone to. Reload the game page and "
                "use the form beside the seat."
            ),
            400,
        )
    if not is_organiser(seat.game, seat):
        # Refused before counting: only the organiser's invitations use up the address's.
        return _refused(
            token,
            "refused",
            i18n.gettext("Only the player who started the game can invite someone else."),
            409,
        )
    if not email:
        page = game_page(
            seat,
            token,
            reinvite_error=i18n.gettext("Give the email address of the player to invite."),
            reinvite_seat=index,
        )
        return page, 400
    ratelimits.check_invitations([email])
    try:
        outbox_ids = starting.reinvite(settings(), claims_for(token=token), index, email)
    except ServiceError as exc:
        page = game_page(
            seat, token, reinvite_error=exc.message, reinvite_seat=index, reinvite_email=email
        )
        return page, exc.status
    dispatch.send_emails_later(outbox_ids)
    return _done(token, "reinvited")
