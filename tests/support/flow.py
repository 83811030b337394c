"""Playing games through the real web and mail, the way people do: links come from the emails."""

from __future__ import annotations

import random
import re
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from pbem import i18n
from tests.support.http import Http, Response
from tests.support.smtp import Received, SmtpSink

PLY_FIELD_RE = re.compile(r'name="ply"\s+value="(\d+)"')
CREATED_RE = re.compile(r"/created/([A-Za-z0-9_-]+)")


def addresses(count: int, tag: str | None = None) -> list[str]:
    """Fresh addresses, unique to one test, so its mail is told apart from every other test's."""
    tag = tag or secrets.token_hex(4)
    names = ["alice", "bob", "carol", "dave", "erin", "frank"]
    return [
        f"{names[i % len(names)]}{i // len(names) or ''}-{tag}@example.org" for i in range(count)
    ]


def token_of(link: str) -> str:
    """The token at the end of /play/<token> or /invite/<token>."""
    return urlsplit(link).path.rstrip("/").rsplit("/", 1)[-1]


@dataclass
class GameFlow:
    """One game driven over HTTP by its players, who read their links from the SMTP sink."""

    http: Http
    sink: SmtpSink
    engine: str = "gorami"
    options: dict[str, Any] = field(default_factory=lambda: {"board": 16})
    players: int = 2
    emails: list[str] = field(default_factory=list)
    game_id: str = ""
    timeout: float = 120.0
    # The game's language (the start form's), which its players' browsers ask for too.
    language: str = "en"

    def __post_init__(self) -> None:
        if not self.emails:
            self.emails = addresses(self.players)
        if self.language != "en":
            self.http = self.http.speaking(self.language)

    def said(self, text: str, **params: Any) -> str:
        """`text` of the service's catalog as this game's mail says it."""
        with i18n.using(self.language):
            return i18n.gettext(text, **params)

    # Mail of this game

    def mails(self, kind: str | None = None, to: str | None = None) -> list[Received]:
        """Messages of this game at the sink, in arrival order; `kind` matches the subject."""
        marker = f"({self.game_id}): "
        found = [m for m in self.sink.messages if marker in m.subject]
        if kind is not None:
            found = [m for m in found if kind in m.subject]
        if to is not None:
            found = [m for m in found if to.lower() in m.recipients()]
        return found

    def wait_mail(
        self, predicate: Callable[[Received], bool], count: int = 1, what: str = "a message"
    ) -> list[Received]:
        marker = f"({self.game_id}): "
        return self.sink.wait_for(
            lambda m: marker in m.subject and predicate(m),
            count=count,
            timeout=self.timeout,
            what=f"{what} of game {self.game_id}",
        )

    # Setting up

    def create(self) -> str:
        """Start the game from the web form on `/`; returns the game id."""
        form = {"game": self.engine, "emails": "\n".join(self.emails), **self.options}
        form["language"] = self.language
        response = self.http.post_form("/", form)
        match = CREATED_RE.search(response.url)
        assert response.status == 200 and match, f"creating a game failed: {response!r}"
        self.game_id = match.group(1)
        return self.game_id

    def invitation(self, email: str) -> Received:
        """The invitation to `email`, or the organiser's confirmation: both carry /invite/."""
        return self.wait_mail(
            lambda m: (
                (
                    self.said("you are invited to a game") in m.subject
                    or self.said("confirm your new game") in m.subject
                )
                and email.lower() in m.recipients()
            ),
            what=f"the invitation to {email}",
        )[0]

    def accept_all(self) -> None:
        """Each player opens the invitation link (GET changes nothing), then accepts (POST);
        the organiser first, whose acceptance confirms the game and sends the others theirs."""
        for email in self.emails:
            link = self.invitation(email).link("/invite/")
            assert link, f"no invitation link in the mail to {email}"
            shown = self.http.get(link)
            assert shown.status == 200, shown
            accepted = self.http.post_form(link, {})
            assert accepted.status == 200, accepted

    def start(self) -> GameFlow:
        self.create()
        self.accept_all()
        return self

    # Playing

    def turn_mail(self, ply: int) -> Received:
        """The email asking someone for move `ply + 1`, once it has arrived."""
        number = ply + 1
        return self.wait_mail(
            lambda m: f"your turn (move {number})" in m.subject,
            what=f"the turn email of move {number}",
        )[0]

    def next_mail(self, ply: int) -> Received:
        """The turn email for `ply`, or a result email if the game ended before it."""
        number = ply + 1
        return self.wait_mail(
            lambda m: f"your turn (move {number})" in m.subject or "game is over" in m.subject,
            what=f"the turn email of move {number} or the result",
        )[0]

    def legal(self, token: str) -> dict[str, Any]:
        response = self.http.get(f"/api/games/{self.game_id}/legal", token=token)
        assert response.status == 200, response
        data: dict[str, Any] = response.json()
        return data

    def page_ply(self, link: str) -> int:
        """The ply the game page's move form is for (a browser would post it back)."""
        page = self.http.get(link)
        assert page.status == 200, page
        match = PLY_FIELD_RE.search(page.text)
        assert match, f"no move form on the game page: {page.text[:500]}"
        return int(match.group(1))

    def follow(self, line: Sequence[str]) -> Callable[[Sequence[str], int], str]:
        """A chooser that plays a prepared line (checking each move is offered)."""

        def choose(moves: Sequence[str], ply: int) -> str:
            assert line[ply] in moves, f"{line[ply]} is not legal at ply {ply}: {moves}"
            return line[ply]

        return choose

    def seats(self) -> dict[int, tuple[str, str]]:
        """seat -> (its player's address, play token), from the first mail each player got
        after the game started."""
        found: dict[int, tuple[str, str]] = {}
        for email in self.emails:
            mail = self.wait_mail(
                lambda m, e=email: e.lower() in m.recipients() and "/play/" in m.text,
                what=f"a game link for {email}",
            )[0]
            token = token_of(mail.link("/play/") or "")
            game = self.http.get(f"/api/games/{self.game_id}", token=token)
            assert game.status == 200, game
            found[int(game.json()["seat"])] = (email, token)
        return found

    def seat_tokens(self) -> dict[int, str]:
        """seat -> play token."""
        return {seat: token for seat, (_, token) in self.seats().items()}

    def api_move(self, token: str, move: str, ply: int) -> Response:
        return self.http.post_json(
            f"/api/games/{self.game_id}/moves", {"move": move, "ply": ply}, token=token
        )

    def post_move(self, link: str, move: str, ply: int) -> Response:
        """Confirm a move on the game page (POST); returns the submission page."""
        return self.http.post_form(link, {"move": move, "ply": ply})

    def play_to_end(
        self, choose: Callable[[Sequence[str], int], str] | None = None, max_plies: int = 2000
    ) -> list[Received]:
        """Play every turn from its email until the result emails arrive; returns them.

        `choose(legal_moves, ply)` picks each move; by default a random legal one.
        """
        rng = random.Random(self.game_id)
        choose = choose or (lambda moves, ply: rng.choice(moves))
        ply = 0
        while ply < max_plies:
            mail = self.next_mail(ply)
            if "game is over" in mail.subject:
                break
            link = mail.link("/play/")
            assert link, f"no game link in {mail.subject!r}"
            assert self.page_ply(link) == ply
            legal = self.legal(token_of(link))
            assert legal["your_turn"] and legal["ply"] == ply, legal
            response = self.post_move(link, choose(legal["moves"], ply), ply)
            assert response.status == 200 and "/submission/" in response.url, response
            ply += 1
        return self.wait_mail(
            lambda m: "game is over" in m.subject, count=self.players, what="the result emails"
        )
