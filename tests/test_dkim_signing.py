"""DKIM: what pbem signs verifies with dkimpy against the key's published record, covers the
headers a reader relies on, and is the same bytes when the message is built again."""

from __future__ import annotations

import base64
import dataclasses
import re
import shutil
import subprocess
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace

import dkim
import pytest
import time_machine

from pbem import dkim_signing, mail
from pbem.config import Settings, load_settings
from tests.support.needs import missing

# When the test's messages were written (their Date and the signature's t=).
WRITTEN = datetime(2026, 12, 1, 8, 0, 0)


@pytest.fixture(autouse=True)
def read_a_minute_later() -> Iterator[None]:
    """dkimpy refuses a signature dated in the future: each test verifies just after WRITTEN."""
    with time_machine.travel(WRITTEN.replace(tzinfo=UTC) + timedelta(minutes=1), tick=True):
        yield


@pytest.fixture(scope="module")
def key(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, bytes]:
    """A fresh 2048-bit RSA key (as `openssl genrsa` makes one) and its DNS TXT record."""
    if shutil.which("openssl") is None:
        missing("openssl is not installed (it makes the test's DKIM key)")
    path = tmp_path_factory.mktemp("dkim") / "dkim.pem"
    subprocess.run(
        ["openssl", "genrsa", "-out", str(path), "2048"], check=True, capture_output=True
    )
    public = subprocess.run(
        ["openssl", "rsa", "-in", str(path), "-pubout", "-outform", "DER"],
        check=True,
        capture_output=True,
    ).stdout
    return path, b"v=DKIM1; k=rsa; p=" + base64.b64encode(public)


def _dns(record: bytes) -> Callable[..., bytes | None]:
    """dkimpy's DNS lookup, answering for pbem._domainkey.pbem.test only."""

    def lookup(name: bytes, timeout: int = 5) -> bytes | None:
        return record if name == b"pbem._domainkey.pbem.test." else None

    return lookup


def _config(key_file: Path) -> Settings:
    return load_settings(
        {
            "PBEM_ENV": "test",
            "SECRET_KEY": "dkim-test-secret-0123456789",
            "MAIL_FROM": "Pbem Größe <pbem@pbem.test>",
            "PBEM_DKIM_KEY_FILE": str(key_file),
            "PBEM_DKIM_SELECTOR": "pbem",
        }
    )


def _row(**changes: object) -> SimpleNamespace:
    row = SimpleNamespace(
        id=9,
        kind="turn",
        to="jürgen@example.org",
        subject="[pbem] Zoë’s game: your turn (move 4)",
        text="Hello,\n\nyour turn  with  spaces   \n",
        html="<p>Hello</p><!-- pbem:board -->\n",
        message_id="<g1.aa@pbem.test>",
        in_reply_to="<g1@pbem.test>",
        references="<g1@pbem.test>",
        reply_to="play+abcdefghijklmnopqrstuvwxyz234567@pbem.test",
        list_unsubscribe="https://pbem.test/mail/token",
        created_at=WRITTEN,
    )
    for name, value in changes.items():
        setattr(row, name, value)
    return row


def test_a_signed_message_verifies_against_the_published_key(key: tuple[Path, bytes]) -> None:
    path, record = key
    built = mail.prepare(_row(), _config(path), "bounce+x@pbem.test")
    assert built.message.startswith(b"DKIM-Signature: ")
    assert dkim.verify(built.message, dnsfunc=_dns(record))
    tags = dkim.util.parse_tag_value(
        re.search(rb"DKIM-Signature: (.*?)\r\n(?! )", built.message, re.S).group(1)  # type: ignore[union-attr]
    )
    assert tags[b"d"] == b"pbem.test" and tags[b"s"] == b"pbem"
    assert tags[b"c"] == b"relaxed/relaxed" and tags[b"a"] == b"rsa-sha256"
    signed = {h.strip() for h in tags[b"h"].split(b":")}
    wanted = {name.lower().encode() for name in dkim_signing.SIGNED_HEADERS}
    assert signed == wanted and {b"list-unsubscribe", b"list-unsubscribe-post"} <= signed
    # Dated by the row, not the clock: built again, it is the same message.
    assert int(tags[b"t"]) == int(WRITTEN.replace(tzinfo=UTC).timestamp())
    assert mail.prepare(_row(), _config(path), "bounce+x@pbem.test").message == built.message


def test_a_signature_survives_relaxed_rewrapping_but_not_a_change(
    key: tuple[Path, bytes],
) -> None:
    path, record = key
    message = mail.prepare(_row(), _config(path)).message
    # A relay re-folding a header and dropping trailing spaces: still valid (relaxed).
    rewrapped = message.replace(
        b"Auto-Submitted: auto-generated", b"Auto-Submitted:\r\n  auto-generated"
    ).replace(b"with  spaces   \r\n", b"with spaces\r\n")
    assert rewrapped != message and dkim.verify(rewrapped, dnsfunc=_dns(record))
    for old, new in [
        (b"Reply-To: play+abc", b"Reply-To: play+xyz"),
        (b"<p>Hello</p>", b"<p>Hellp</p>"),
        (b"<https://pbem.test/mail/token>", b"<https://evil.test/mail/token>"),
        (b"One-Click", b"one-click"),
    ]:
        assert old in message
        assert not dkim.verify(message.replace(old, new), dnsfunc=_dns(record)), old
    # A List-Unsubscribe added on the way breaks it too (signed as absent).
    bare = mail.prepare(_row(list_unsubscribe=None), _config(path)).message
    head, _, body = bare.partition(b"\r\n\r\n")
    added = head + b"\r\nList-Unsubscribe: <https://evil.test/>\r\n\r\n" + body
    assert dkim.verify(bare, dnsfunc=_dns(record)) and not dkim.verify(added, dnsfunc=_dns(record))


def test_with_the_board_picture_too(key: tuple[Path, bytes]) -> None:
    from pbem import games, pictures

    path, record = key
    state = games.get("mmw").new(2, seed=1)
    png = pictures.board_png("mmw", state, 1, ["Zoë", "Bob"])
    built = mail.prepare(_row(board_png=png, board_alt="the board"), _config(path))
    assert b"image/png" in built.message and dkim.verify(built.message, dnsfunc=_dns(record))


def test_a_key_that_cannot_sign_is_a_settings_problem_not_the_messages(tmp_path: Path) -> None:
    bad = tmp_path / "bad.pem"
    bad.write_text("-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----\n")
    with pytest.raises(dkim_signing.DkimKeyError, match="not a PEM private key"):
        mail.prepare(_row(), _config(bad))
    gone = dataclasses.replace(
        _config(bad), mail=dataclasses.replace(_config(bad).mail, dkim_key_file=tmp_path / "x")
    )
    with pytest.raises(dkim_signing.DkimKeyError, match="cannot be read"):
        mail.prepare(_row(), gone)
    # Delivery takes it as a failure worth retrying (a fix of the settings cures it).
    from pbem.domain.delivery import classify

    permanent, _ = classify(dkim_signing.DkimKeyError("x"))
    assert not permanent
