"""A player's dashboard: all their games, those waiting for them first.

There are no accounts: any seat link of a player opens it (`/me/<seat token>`), and so does a
sign-in link asked for by email (`/signin`), signed for the `signin` purpose. A sign-in link names
the player only, so it lives a short time (SIGNIN_MAX_AGE_DAYS) instead of the seat links' months.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from flask import Blueprint, current_app, render_template, render_template_string, request, url_for
from sqlalchemy import select

from pbem import dispatch, links, mail, service
from pbem.app import settings
from pbem.extensions import db
from pbem.models import FINISHED, INVITING, RUNNING, OutboxMessage, Player, Seat, utcnow

bp = Blueprint("dashboard", __name__)

SIGNIN_MAX_AGE_DAYS = 7

SIGNIN_TEXT = """Hello,

someone (we hope you) asked for a link to your games on pbem. Open it to see every game you play,
those waiting for your move first:

{{ link }}

The link works for {{ days }} days. If you did not ask for it, ignore this message: nothing happens
until the link is opened, and it shows only games you already play.
"""

SIGNIN_HTML = """<p>Hello,</p>
<p>someone (we hope you) asked for a link to your games on pbem. Open it to see every game you
play, those waiting for your move first:</p>
<p><a href="{{ link }}">Your games on pbem</a></p>
<p>The link works for {{ days }} days. If you did not ask for it, ignore this message.</p>
"""


def signin_token(player: Player) -> str:
    # No game and no seat: the claims name the player alone. The nonce field carries nothing to
    # rotate, so these links are revoked only by expiry, hence their short life.
    claims = links.LinkClaims(links.SIGNIN, "", -1, player.id, "")
    return links.make_token(current_app.config["SECRET_KEY"], claims)


def player_for_token(token: str) -> Player:
    """The player a seat, invitation or sign-in link speaks for; links.LinkError otherwise."""
    for purpose in (links.SEAT, links.INVITE):
        try:
            return service.seat_for_token(token, purpose).player
        except links.WrongLink:
            continue
    claims = links.read_token(
        current_app.config["SECRET_KEY"],
        token,
        links.SIGNIN,
        max_age_seconds=SIGNIN_MAX_AGE_DAYS * 86400,
    )
    player = db.session.get(Player, claims.player_id)
    if player is None:
        raise links.ForgedLink("This link names a player who does not exist.")
    return player


@dataclass
class GameLine:
    game_id: str
    title: str
    status: str
    your_turn: bool
    move_number: int
    opponents: list[str]
    scores: str
    href: str
    invited: bool
    last_activity: datetime

    @property
    def order(self) -> tuple[int, float]:
        # Waiting for this player first: their move, then an invitation to answer; then games
        # waiting for others, then those still gathering players, then the finished ones.
        if self.your_turn:
            rank = 0
        elif self.invited:
            rank = 1
        else:
            rank = {RUNNING: 2, INVITING: 3, FINISHED: 4}.get(self.status, 5)
        return rank, -self.last_activity.timestamp()


def game_lines(player: Player) -> list[GameLine]:
    seats = db.session.execute(select(Seat).where(Seat.player_id == player.id)).scalars().all()
    lines = []
    for seat in seats:
        game = seat.game
        names = service.names(game)
        state = service.load_state(game)
        your_turn = game.status == RUNNING and game.to_move == seat.seat
        invited = seat.accepted_at is None and game.status == INVITING
        purpose = links.INVITE if invited else links.SEAT
        path = "invite" if invited else "play"
        scores = ""
        if state is not None:
            scores = " : ".join(str(s) for s in state.scores())
        lines.append(
            GameLine(
                game_id=game.id,
                title=service.engine(game).title,
                status=game.status,
                your_turn=your_turn,
                move_number=game.ply + 1,
                opponents=[n for i, n in enumerate(names) if i != seat.seat],
                scores=scores,
                href=f"/{path}/{links.token_for(seat, purpose)}",
                invited=invited,
                last_activity=game.finished_at or game.started_at or game.created_at,
            )
        )
    lines.sort(key=lambda line: line.order)
    return lines


@bp.get("/me/<token>")
def mine(token: str) -> str:
    player = player_for_token(token)
    lines = game_lines(player)
    return render_template(
        "pages/_dashboard.html",
        player=player,
        lines=lines,
        waiting=sum(1 for line in lines if line.your_turn or line.invited),
    )


@bp.get("/me")
def from_seat() -> str:
    """`/me?token=<seat token>`: the 'your games' link of a game page."""
    return mine(request.args.get("token", ""))


@bp.get("/signin")
def signin_form() -> str:
    return render_template("pages/_signin.html", sent=False, email="")


@bp.post("/signin")
def signin() -> tuple[str, int]:
    email = request.form.get("email", "").strip()
    try:
        address = service.normalise_email(email)
    except service.SetupError as exc:
        page = render_template("pages/_signin.html", sent=False, email=email, error=exc.message)
        return page, 400
    player = db.session.execute(select(Player).where(Player.email == address)).scalar_one_or_none()
    if player is not None:
        outbox_id = _write_signin_mail(player)
        dispatch.send_emails_later([outbox_id])
    # The same answer either way: the page must not tell who plays here.
    return render_template("pages/_signin.html", sent=True, email=address), 200


def _write_signin_mail(player: Player) -> int:
    config = settings()
    link = config.base_url + url_for("dashboard.mine", token=signin_token(player))
    context = {"link": link, "days": SIGNIN_MAX_AGE_DAYS}
    row = OutboxMessage(
        game_id=None,
        kind="signin",
        to=player.email,
        subject="[pbem] your games",
        text=render_template_string(SIGNIN_TEXT, **context),
        html=render_template_string(SIGNIN_HTML, **context),
        message_id=mail.new_message_id("signin", config.mail_from),
        next_attempt_at=utcnow(),
    )
    db.session.add(row)
    db.session.commit()
    return row.id
