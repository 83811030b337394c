"""Reading replies as the common mail clients write them, and telling robots from people."""

from __future__ import annotations

import pytest

from pbem.mailin import parse
from tests.mailin import messages as m

ALICE = "alice@example.org"
ORIGINAL = m.Original(reply_to="play+aaaabbbbccccddddeeeeffffgggghhhh@pbem.test")


def _read(raw: bytes) -> parse.Reply:
    return parse.read_message(raw)


# --- the clients ---------------------------------------------------------------------------------


@pytest.mark.parametrize("wrapped", [False, True])
def test_gmail_top_posted_with_quote(wrapped: bool) -> None:
    reply = _read(m.gmail(ALICE, ORIGINAL, "2", wrap_attribution=wrapped))
    assert (reply.intent, reply.moves) == (parse.PLAY, ("2",))
    assert reply.sender == ALICE
    assert ORIGINAL.reply_to in reply.addresses[0]
    assert reply.message_id == "<CAKx9w+7=gmail.reply@mail.gmail.com>"


def test_gmail_html_part_alone_reads_the_same() -> None:
    raw = m.gmail(ALICE, ORIGINAL, "2")
    html = raw.split(b'Content-Type: text/html; charset="UTF-8"\r\n', 1)[1]
    headers = raw.split(b"Content-Type: multipart/alternative", 1)[0]
    html_only = headers + b'Content-Type: text/html; charset="UTF-8"\r\n' + html.split(b"--0000")[0]
    assert _read(html_only).moves == ("2",)


def test_apple_mail_flowed_with_sent_from_my_iphone() -> None:
    reply = _read(m.apple_mail(ALICE, ORIGINAL, "3"))
    assert (reply.intent, reply.moves) == (parse.PLAY, ("3",))


def test_apple_mail_flowed_command_wrapped_across_lines_is_one_line() -> None:
    raw = m.apple_mail(ALICE, ORIGINAL, "legal moves", width=8)
    assert b"legal=20\r\nmoves" in raw  # the client wrapped it (a soft break, in QP)
    assert _read(raw).intent == parse.LEGAL


def test_outlook_html_only_stops_at_the_reply_header() -> None:
    reply = _read(m.outlook_html(ALICE, ORIGINAL, "1"))
    assert (reply.intent, reply.moves) == (parse.PLAY, ("1",))


def test_outlook_plain_text_stops_at_from_sent_block() -> None:
    reply = _read(m.outlook_plain(ALICE, ORIGINAL, "1"))
    assert (reply.intent, reply.moves) == (parse.PLAY, ("1",))


@pytest.mark.parametrize("bottom", [False, True])
def test_thunderbird_flowed_delsp_with_signature(bottom: bool) -> None:
    reply = _read(m.thunderbird(ALICE, ORIGINAL, "2", bottom=bottom))
    assert (reply.intent, reply.moves) == (parse.PLAY, ("2",))


def test_thunderbird_delsp_unwraps_without_the_added_space() -> None:
    raw = m.thunderbird(ALICE, ORIGINAL, "legal moves", width=8)
    assert b"legal  \r\nmoves" in raw
    assert _read(raw).intent == parse.LEGAL


def test_two_actions_of_one_turn_on_two_lines() -> None:
    for raw in (
        m.gmail(ALICE, ORIGINAL, "a1 3\nb2 4"),
        m.apple_mail(ALICE, ORIGINAL, "a1 3\nb2 4"),
        m.outlook_html(ALICE, ORIGINAL, "a1 3\nb2 4"),
        m.thunderbird(ALICE, ORIGINAL, "a1 3\nb2 4"),
    ):
        reply = _read(raw)
        assert (reply.intent, reply.moves) == (parse.PLAY, ("a1 3", "b2 4"))


@pytest.mark.parametrize(
    "text",
    # English, French, Dutch, Danish.
    ["moves", "Moves", "MOVES.", "legal moves", "Coups", "coups légaux", "zetten", "Mulige træk"],
)
def test_moves_asks_for_the_legal_moves(text: str) -> None:
    assert _read(m.gmail(ALICE, ORIGINAL, text)).intent == parse.LEGAL


@pytest.mark.parametrize(
    "text", ["resign", "Resign.", "I resign!", "J'abandonne.", "Ik geef op", "Jeg opgiver!"]
)
def test_resign(text: str) -> None:
    assert _read(m.apple_mail(ALICE, ORIGINAL, text)).intent == parse.RESIGN


@pytest.mark.parametrize(
    "subject",
    [
        "Automatic reply: your turn",
        "Réponse automatique : votre tour",
        "Absent : votre tour",
        "Automatisch antwoord: jouw beurt",
        "Afwezig: jouw beurt",
        "Autosvar: din tur",
        "Fraværende: din tur",
        "Abwesenheitsnotiz: Ihr Zug",
    ],
)
def test_auto_reply_subjects_in_every_language_are_automatic(subject: str) -> None:
    """Some responders mark their answers by the subject alone."""
    raw = (
        f"From: {ALICE}\r\nTo: {ORIGINAL.reply_to}\r\nSubject: {subject}\r\n"
        "Message-ID: <away.1@example.org>\r\nContent-Type: text/plain; charset=utf-8\r\n"
        "MIME-Version: 1.0\r\n\r\n2\r\n"
    ).encode()
    reply = _read(raw)
    assert reply.intent == parse.AUTOMATIC, subject


@pytest.mark.parametrize("subject", ["Re: [pbem] Marram: your turn", "Absentee ballot", "Afwas"])
def test_a_persons_subject_is_not_an_auto_reply(subject: str) -> None:
    raw = (
        f"From: {ALICE}\r\nTo: {ORIGINAL.reply_to}\r\nSubject: {subject}\r\n"
        "Message-ID: <person.1@example.org>\r\nContent-Type: text/plain; charset=utf-8\r\n"
        "MIME-Version: 1.0\r\n\r\n2\r\n"
    ).encode()
    assert _read(raw).intent == parse.PLAY, subject


def test_subject_only_reply_is_unreadable() -> None:
    reply = _read(m.subject_only(ALICE, ORIGINAL))
    assert reply.intent == parse.UNREADABLE
    assert "no text above the quoted email" in reply.why


def test_too_many_lines_and_too_long_lines_are_unreadable() -> None:
    reply = _read(m.gmail(ALICE, ORIGINAL, "1\n2\n3\n1\n2"))
    assert reply.intent == parse.UNREADABLE and "more than 4 lines" in reply.why
    assert reply.read == ("1", "2", "3", "1", "2")
    reply = _read(m.gmail(ALICE, ORIGINAL, "x" * 300))
    assert reply.intent == parse.UNREADABLE and "longer than 200" in reply.why


def test_a_message_too_large_is_refused_after_its_headers_are_read() -> None:
    raw = m.gmail(ALICE, ORIGINAL, "2") + b"x" * (parse.MAX_BYTES + 1)
    reply = _read(raw)
    assert reply.intent == parse.UNREADABLE and "larger than 256 KiB" in reply.why
    assert reply.sender == ALICE


def test_greeting_paragraph_is_taken_as_written() -> None:
    # The first paragraph is the reply: the engine will say "Hi," is not a move.
    assert _read(m.gmail(ALICE, ORIGINAL, "Hi,\n\n2")).moves == ("Hi,",)


# --- robots --------------------------------------------------------------------------------------


def test_auto_reply_is_automatic() -> None:
    reply = _read(m.auto_reply(ALICE, ORIGINAL))
    assert reply.intent == parse.AUTOMATIC and "auto-replied" in reply.why


def test_vacation_responder_with_precedence_bulk_is_automatic() -> None:
    reply = _read(m.vacation(ALICE, ORIGINAL))
    assert reply.intent == parse.AUTOMATIC and reply.why == "Precedence: bulk"


def test_dsn_is_automatic_even_stripped_of_its_other_marks() -> None:
    assert _read(m.dsn(ORIGINAL)).intent == parse.AUTOMATIC
    reply = _read(m.bare_dsn_headers_only(ORIGINAL))
    assert reply.intent == parse.AUTOMATIC and "delivery-status" in reply.why


@pytest.mark.parametrize(
    "header",
    [
        b"Auto-Submitted: auto-generated",
        b"Precedence: junk",
        b"Precedence: list",
        b"X-Autoreply: yes",
        b"X-Autorespond: vacation",
        b"Return-Path: <>",
    ],
)
def test_each_robot_mark_is_enough(header: bytes) -> None:
    raw = m.gmail(ALICE, ORIGINAL, "2").replace(b"MIME-Version", header + b"\r\nMIME-Version", 1)
    assert _read(raw).intent == parse.AUTOMATIC


def test_auto_submitted_no_is_a_person() -> None:
    raw = m.gmail(ALICE, ORIGINAL, "2").replace(
        b"MIME-Version", b"Auto-Submitted: no\r\nMIME-Version", 1
    )
    assert _read(raw).intent == parse.PLAY


def test_mailer_daemon_sender_is_automatic() -> None:
    raw = m.vacation("MAILER-DAEMON@mx.example.org", ORIGINAL).replace(b"Precedence: bulk\r\n", b"")
    assert _read(raw).intent == parse.AUTOMATIC


def test_garbage_never_raises_and_names_nobody() -> None:
    for raw in (
        b"",
        b"\x00\xff" * 100,
        b"From: \r\n\r\n",
        b"From: a@x.org, b@x.org\r\n\r\n2",
        b"Content-Type: multipart/mixed\r\n\r\nx",
        b"Content-Type: text/plain; charset=no-such-charset\r\n\r\n2",
    ):
        assert _read(raw).sender == ""  # so nobody is answered (pbem.mailin.handle)


# --- the pieces ----------------------------------------------------------------------------------


def test_unflow_rfc3676() -> None:
    assert parse.unflow("take \r\ntwo\r\nnext", delsp=False) == "take two\nnext"
    assert parse.unflow("take  \r\ntwo", delsp=True) == "take two"
    assert parse.unflow(" From here\r\n>quoted \r\n>on", delsp=False) == "From here\n> quoted on"
    # A soft break does not cross quote depths, and the signature line is not flowed.
    assert parse.unflow("a \r\n> b", delsp=False) == "a \n> b"
    assert parse.unflow("-- \r\nAlice", delsp=False) == "-- \nAlice"


def test_html_text_drops_quotes_and_hidden_parts() -> None:
    html = (
        "<html><head><style>p{}</style><title>t</title></head><body><p>c3</p>"
        '<blockquote type="cite">old move</blockquote><div>d4</div>'
        '<div class="moz-cite-prefix">On … wrote:</div><p>never</p></body></html>'
    )
    assert parse.reply_lines(parse.clean_lines(parse.html_text(html))) == ["c3"]
    assert parse.html_text("<div>a&nbsp;&amp;&lt;b</div>").strip() == "a\xa0&<b"


def test_spaces_of_every_kind_are_spaces_and_controls_unreadable() -> None:
    assert _read(m.gmail(ALICE, ORIGINAL, "a1\u202f3\tx")).moves == ("a1 3 x",)
    reply = _read(m.gmail(ALICE, ORIGINAL, "a1\u202e3"))  # a bidi override
    assert reply.intent == parse.UNREADABLE and "control character" in reply.why


def test_pbems_own_mail_come_back_is_automatic() -> None:
    raw = m.gmail(ALICE, ORIGINAL, "2").replace(
        b"Message-ID: <CAKx9w+7=gmail.reply@mail.gmail.com>",
        b"Message-ID: <JTfe53ceH71o.0123456789ab@pbem.test>",
    )
    assert _read(raw).intent == parse.AUTOMATIC
