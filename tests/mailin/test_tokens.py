"""Reply addresses as mail-in reads them: unique to a seat and ply, case-proof, unforgeable,
withdrawn by a rotation (made by `pbem.links`)."""

from __future__ import annotations

import base64
import re

from flask import Flask

from pbem import links
from pbem.domain import rotation
from pbem.extensions import db, settings
from pbem.mailin import tokens
from pbem.models import Game, Seat
from tests.domain.flow import mails, start

TOKEN = re.compile(r"^play\+([a-z2-7]{32})@pbem\.test$")


def _seat(game: Game, index: int = 0) -> Seat:
    db.session.refresh(game)
    return game.seats[index]


def test_the_address_is_short_lowercase_base32_at_mail_froms_domain(app: Flask) -> None:
    game = start()
    address = links.reply_address(settings(), _seat(game), 0)
    assert address is not None
    match = TOKEN.match(address)
    assert match is not None and len(match.group(1)) <= 32


def test_round_trip_for_every_seat_and_ply(app: Flask) -> None:
    config = settings()
    game = start()
    for index in (0, 1):
        for ply in (0, 1, 57, (1 << 21) - 1):
            address = links.reply_address(config, _seat(game, index), ply)
            assert address is not None
            assert tokens.read_reply_address(config, address) == (game.id, index, ply)
    addresses = {links.reply_address(config, _seat(game, s), p) for s in (0, 1) for p in (0, 1)}
    assert len(addresses) == 4  # unique to the seat and the ply


def test_any_case_brackets_and_display_names_are_read(app: Flask) -> None:
    config = settings()
    game = start()
    address = links.reply_address(config, _seat(game), 3)
    assert address is not None
    expected = (game.id, 0, 3)
    for form in (
        address.upper(),
        address.title(),
        f"<{address}>",
        f'"pbem" <{address.upper()}>',
        f"Someone <someone@example.org>, pbem <{address}>",
    ):
        assert tokens.read_reply_address(config, form) == expected, form


def test_forged_or_altered_tokens_are_refused(app: Flask) -> None:
    config = settings()
    game = start()
    address = links.reply_address(config, _seat(game), 4)
    assert address is not None
    token = TOKEN.match(address).group(1)  # type: ignore[union-attr]
    # Every single character changed: the MAC, or the seat and ply it covers, no longer fit.
    for position in range(len(token)):
        changed = "a" if token[position] != "a" else "b"
        forged = token[:position] + changed + token[position + 1 :]
        assert tokens.read_reply_address(config, f"play+{forged}@pbem.test") is None
    # Another ply or seat under the same MAC, another key, nonsense.
    raw = base64.b32decode(token.upper())
    for where in (4 + 1, 1 << 21 | 4):
        moved = raw[:9] + where.to_bytes(3, "big") + raw[12:]
        assert links.unpack_reply_token(base64.b32encode(moved).decode())[1:3] == divmod(
            where, 1 << 21
        )
        assert (
            tokens.read_reply_address(config, f"play+{base64.b32encode(moved).decode()}@x") is None
        )
    game_id, seat, ply, _ = links.unpack_reply_token(token)  # type: ignore[misc]
    wrong_key = links.reply_token("another-key-0123456789", game_id, seat, ply, _seat(game).nonce)
    assert tokens.read_reply_address(config, f"play+{wrong_key}@pbem.test") is None
    for nonsense in ("play+short@pbem.test", "bob@example.org", "", "play+" + "1" * 32 + "@x"):
        assert tokens.read_reply_address(config, nonsense) is None


def test_rotating_the_seats_links_withdraws_its_reply_addresses(app: Flask) -> None:
    config = settings()
    game = start()
    address = links.reply_address(config, _seat(game), 0)
    assert address is not None and tokens.read_reply_address(config, address) is not None
    rotation.rotate_seat_links(config, game.id, 0, notify=False)
    db.session.commit()
    assert tokens.read_reply_address(config, address) is None
    fresh = links.reply_address(config, _seat(game), 0)
    assert fresh is not None and tokens.read_reply_address(config, fresh) == (game.id, 0, 0)


def test_turn_emails_store_their_reply_address(app: Flask) -> None:
    game = start()
    (turn,) = mails(kind="turn")
    seat = _seat(game, game.to_move)
    assert turn.to == seat.player.email
    assert turn.reply_to == links.reply_address(settings(), seat, game.ply)
    # Other mail has none: its replies go to MAIL_FROM.
    assert {m.reply_to for m in mails() if m.kind != "turn"} == {None}


def test_find_reply_address_checks_a_bounded_number(app: Flask) -> None:
    config = settings()
    game = start()
    address = links.reply_address(config, _seat(game), 0)
    assert address is not None
    junk = [f"play+{'a' * 32}@x"] * 20
    assert tokens.find_reply_address(config, [*junk, address]) is None
    assert tokens.find_reply_address(config, ["", address]) == (game.id, 0, 0)
