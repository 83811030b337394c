"""Reading a reply: raw bytes in, a `Reply` out, saying what the player asked for.

The moves are the first lines of the reply that are not quoted: whatever a mail client puts
after them (the quoted turn email under an "On … wrote:" line, Outlook's "From: … Sent: …"
block, a signature) is left out, and so are the quoted lines a bottom-poster writes first. The
text comes from the text/plain part (RFC 3676 `format=flowed` unwrapped), or from the HTML when
there is nothing else, its tags stripped and its quotes dropped.

Mail that no person wrote (auto-replies, vacation notices, bounces and other reports) is
`automatic`: it is never played and never answered, so two robots cannot email each other
forever. Everything is bounded: the bytes read, the lines looked at, the length of a line and
the number of moves.
"""

from __future__ import annotations

import email
import email.policy
import re
from dataclasses import dataclass, replace
from email.message import EmailMessage
from email.utils import getaddresses
from html.parser import HTMLParser

from babel.support import LazyProxy

from pbem import i18n

MAX_BYTES = 256 * 1024  # of the message read; a longer one is refused as too large
MAX_MOVES = 4  # lines of moves in one reply (a turn of two actions takes two)
MAX_LINE = 200  # characters in a line of moves (the longest a submission stores)
_MAX_TEXT = 64 * 1024  # characters of body text looked at
_MAX_LINES = 400  # lines of body text looked at
_SHOWN_LINES = 5  # lines quoted back in the answer to an unreadable reply
_SHOWN_CHARS = 120

# What the player asked for.
PLAY = "play"  # moves, one per line
RESIGN = "resign"
LEGAL = "legal"  # "moves": answer with the legal moves
UNREADABLE = "unreadable"
AUTOMATIC = "automatic"  # an auto-reply or a bounce: never acted on, never answered

# The commands a reply may be, in each language pbem speaks (English always understood), as they
# read lowercased with punctuation made spaces ("j'abandonne" reads "j abandonne"). The move
# notation is each game's own and the same in every language.
RESIGN_WORDS = frozenset(
    {
        "resign",
        "i resign",
        # French
        "abandon",
        "abandonner",
        "j abandonne",
        "je abandonne",
        # Dutch
        "opgeven",
        "ik geef op",
        "geef op",
        # Danish
        "opgiv",
        "opgiver",
        "jeg opgiver",
        "giv op",
        "jeg giver op",
    }
)
LEGAL_WORDS = frozenset(
    {
        "moves",
        "legal moves",
        "legal",
        "list moves",
        # French
        "coups",
        "coups possibles",
        "coups légaux",
        "coups legaux",
        "liste des coups",
        # Dutch
        "zetten",
        "mogelijke zetten",
        "legale zetten",
        "geldige zetten",
        # Danish
        "træk",
        "traek",
        "mulige træk",
        "lovlige træk",
        "gyldige træk",
    }
)
# Headers where the reply address may be, besides the envelope's recipients.
ADDRESS_HEADERS = ("To", "Cc", "Delivered-To", "X-Original-To")


@dataclass(frozen=True)
class Reply:
    intent: str
    moves: tuple[str, ...] = ()
    # For UNREADABLE and AUTOMATIC: what is wrong, for the answer and the logs. An UNREADABLE
    # reply's is quoted to its player, so it is said in their language when the answer is written.
    why: str | LazyProxy = ""
    sender: str = ""  # the From address, as written
    addresses: tuple[str, ...] = ()  # the header values the reply address may be in
    message_id: str = ""
    subject: str = ""
    read: tuple[str, ...] = ()  # the lines taken for the reply, shortened, as the answer shows
    # The Authentication-Results values as they arrived, topmost first (pbem.mailin.authentication)
    authentication: tuple[str, ...] = ()


def read_message(raw: bytes) -> Reply:
    """What a message asks for. Never raises: a message that cannot be read is UNREADABLE, and
    one whose headers cannot be read at all is AUTOMATIC (nobody can be answered)."""
    try:
        message = email.message_from_bytes(raw[:MAX_BYTES], policy=email.policy.default)
        assert isinstance(message, EmailMessage)
        sender = _sender(message)
        reply = Reply(
            AUTOMATIC,
            sender=sender,
            addresses=tuple(_header(message, name) for name in ADDRESS_HEADERS),
            message_id=_header(message, "Message-ID"),
            subject=_header(message, "Subject"),
            authentication=_raw_values(message, "Authentication-Results"),
        )
        robot = automatic(message, sender)
    except Exception:
        return Reply(AUTOMATIC, why="the headers could not be read")
    if robot:
        return replace(reply, why=robot)
    if len(raw) > MAX_BYTES:
        too_large = i18n.lazy_gettext(
            "it is larger than %(size)d KiB: write the move as plain text, without attachments",
            size=MAX_BYTES // 1024,
        )
        return replace(reply, intent=UNREADABLE, why=too_large)
    try:
        lines = first_lines(message)
    except Exception:
        return replace(
            reply, intent=UNREADABLE, why=i18n.lazy_gettext("its text could not be decoded")
        )
    intent, moves, why = intent_of(lines)
    return replace(reply, intent=intent, moves=moves, why=why, read=_shown(lines))


def intent_of(lines: list[str]) -> tuple[str, tuple[str, ...], str | LazyProxy]:
    """(intent, moves, why) of the first lines of a reply."""
    if not lines:
        return UNREADABLE, (), i18n.lazy_gettext("there was no text above the quoted email")
    command = " ".join(re.sub(r"[^\w\s]", " ", lines[0]).lower().split())
    if command in RESIGN_WORDS and len(lines) == 1:
        return RESIGN, (), ""
    if command in LEGAL_WORDS and len(lines) == 1:
        return LEGAL, (), ""
    if len(lines) > MAX_MOVES:
        return (
            UNREADABLE,
            (),
            i18n.lazy_gettext(
                "it has more than %(count)d lines above the quoted email: write each move on a "
                "line of its own, and nothing else above the quote",
                count=MAX_MOVES,
            ),
        )
    if any(len(line) > MAX_LINE for line in lines):
        return (
            UNREADABLE,
            (),
            i18n.lazy_gettext("a line is longer than %(most)d characters", most=MAX_LINE),
        )
    if not all(line.isprintable() for line in lines):
        # Control and format characters: no notation has them, and a database refuses some.
        return UNREADABLE, (), i18n.lazy_gettext("a line holds a control character")
    return PLAY, tuple(lines), ""


# --- auto-replies and bounces --------------------------------------------------------------------

_ROBOT_HEADERS = (
    "X-Autoreply",
    "X-Autorespond",
    "X-Autorespond-From",
    "X-AutoReply-From",
    "X-Autogenerated",
    "X-Mail-Autoreply",
    "X-Auto-Reply",
)
_ROBOT_SENDERS = frozenset({"mailer-daemon", "postmaster"})
# The Message-IDs pbem gives its mail (`pbem.mail.new_message_id`): a message still carrying one
# is ours, forwarded or reflected back.
_OUR_MESSAGE_ID = re.compile(r"^<[A-Za-z0-9_-]{12}\.[0-9a-f]{12}@[^>]+>$")
# Subjects of auto-replies in the languages pbem speaks (and German, common among responders):
# "Automatisch antwoord", "Afwezig(heidsbericht)", "Autosvar", "Fraværende", "Absent(e)", …
_ROBOT_SUBJECT = re.compile(
    r"^\s*(auto(matic)?[ -]?(reply|response)|auto:|out of (the )?office|"
    r"undeliver(able|ed)|delivery (status notification|failure)|"
    r"(mail )?delivery (has )?failed|returned mail|abwesenheitsnotiz|"
    r"r[ée]ponse automatique|absente?\b|message d'absence|"
    r"automatisch(e)? (antwoord|beantwoording)|afwezig|niet aanwezig|"
    r"autosvar|automatisk svar|frav[æa]r|ikke til stede|"
    r"automatisk (besked|meddelelse))",
    re.IGNORECASE,
)


def automatic(message: EmailMessage, sender: str) -> str:
    """Why this message was written by a program (RFC 3834 and what the common responders and
    mail servers actually send), or "" when a person wrote it."""
    auto_submitted = _header(message, "Auto-Submitted").split(";")[0].strip().lower()
    if auto_submitted and auto_submitted != "no":
        return f"Auto-Submitted: {auto_submitted}"
    precedence = _header(message, "Precedence").strip().lower()
    if precedence in ("bulk", "junk", "list"):
        return f"Precedence: {precedence}"
    for name in _ROBOT_HEADERS:
        if message.get(name) is not None:
            return f"{name} is set"
    if message.get_content_type() == "multipart/report":
        return f"a report ({_param(message, 'report-type') or 'of some kind'})"
    if message.get_content_maintype() == "message" and message.get_content_subtype() in (
        "delivery-status",
        "disposition-notification",
    ):
        return "a delivery report"
    if _OUR_MESSAGE_ID.match(_header(message, "Message-ID")):
        return "pbem's own message, come back"
    return_path = _header(message, "Return-Path").strip()
    if return_path in ("<>", "") and message.get("Return-Path") is not None:
        return "Return-Path: <> (a bounce)"
    local = sender.rpartition("@")[0].lower()
    if local in _ROBOT_SENDERS:
        return f"sent by {sender}"
    if _ROBOT_SUBJECT.match(_header(message, "Subject")):
        return "its subject says it is automatic"
    return ""


# --- the text ------------------------------------------------------------------------------------


def _header(message: EmailMessage, name: str) -> str:
    value = message.get(name)
    return "" if value is None else " ".join(str(value).split())


def _raw_values(message: EmailMessage, name: str) -> tuple[str, ...]:
    """A header's values as written, encoded words and all: an MTA compares the text it sees, so
    a value decoded here could claim a name the MTA never saw in it."""
    folded = name.lower()
    return tuple(str(value) for key, value in message.raw_items() if key.lower() == folded)


def _param(part: EmailMessage, name: str) -> str:
    """A Content-Type parameter, lowercased ("" when absent)."""
    value = part.get_param(name)
    if isinstance(value, tuple):  # RFC 2231: (charset, language, value)
        value = value[2]
    return str(value or "").strip().lower()


def _sender(message: EmailMessage) -> str:
    """The one From address; "" when there is none or more than one."""
    found = [addr for _, addr in getaddresses([_header(message, "From")]) if addr]
    return found[0].strip() if len(found) == 1 else ""


def first_lines(message: EmailMessage) -> list[str]:
    """The reply's first lines that are not quoted: from the plain text, else from the HTML."""
    texts: list[str] = []
    plain = message.get_body(preferencelist=("plain",))
    if isinstance(plain, EmailMessage):
        text = str(plain.get_content())[:_MAX_TEXT]
        if _param(plain, "format") == "flowed":
            text = unflow(text, _param(plain, "delsp") == "yes")
        texts.append(text)
    html = message.get_body(preferencelist=("html",))
    if isinstance(html, EmailMessage):
        texts.append(html_text(str(html.get_content())[:_MAX_TEXT]))
    for text in texts:  # the HTML when the plain text has nothing above the quote
        found = reply_lines(clean_lines(text))
        if found:
            return found
    return []


_INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad"))


def clean_lines(text: str) -> list[str]:
    """Lines with their ends, non-breaking spaces and invisible characters tidied."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").translate(_INVISIBLE)
    text = re.sub(r"[^\S\n]", " ", text)  # tabs, no-break and thin spaces: spaces
    return [line.rstrip() for line in text.split("\n")[:_MAX_LINES]]


def _shown(lines: list[str]) -> tuple[str, ...]:
    shown = []
    for line in lines[:_SHOWN_LINES]:
        printable = "".join(ch if ch.isprintable() else " " for ch in line)
        shown.append(printable[:_SHOWN_CHARS] + ("…" if len(printable) > _SHOWN_CHARS else ""))
    return tuple(shown)


def unflow(text: str, delsp: bool) -> str:
    """RFC 3676: join the soft-broken lines of a `format=flowed` text (a line ending in a space
    goes on in the next line of the same quote depth); undo space-stuffing; with `delsp=yes`
    the space before a soft break is not part of the text."""
    out: list[str] = []
    paragraph: str | None = None
    depth_of = 0
    for line in text.replace("\r\n", "\n").split("\n"):
        depth = len(line) - len(line.lstrip(">"))
        content = line[depth:]
        if content.startswith(" "):
            content = content[1:]  # space-stuffed (or the space after a quote mark)
        flowed = content.endswith(" ") and content != "-- "
        if flowed and delsp:
            content = content[:-1]
        if paragraph is not None and depth != depth_of:
            out.append(_quoted(depth_of, paragraph))
            paragraph = None
        paragraph = content if paragraph is None else paragraph + content
        depth_of = depth
        if not flowed:
            out.append(_quoted(depth, paragraph))
            paragraph = None
    if paragraph is not None:
        out.append(_quoted(depth_of, paragraph))
    return "\n".join(out)


def _quoted(depth: int, text: str) -> str:
    return f"{'>' * depth} {text}" if depth else text


_QUOTED = re.compile(r"^\s*>")
_WROTE = re.compile(
    r"(wrote|writes|schrieb|a [ée]crit|escribi[óo]|ha scritto|schreef|skrev|kirjoitti|"
    r"napisa[łl]|escreveu)\s*:\s*$",
    re.IGNORECASE,
)
_ATTRIBUTION_START = re.compile(r"^(on|le|am|el|il|op|em|den|w dniu)\s", re.IGNORECASE)
_SIGNATURE = re.compile(
    r"^(--$|sent from |sent with |sent via |get outlook for |envoy[ée] de |von meinem |"
    r"enviado desde |inviato da |verzonden met |outlook for (ios|android))",
    re.IGNORECASE,
)
_FORWARD_MARK = re.compile(
    r"^(-{2,}\s*(original message|forwarded message|message d'origine|"
    r"urspr[üu]ngliche nachricht)\s*-{2,}|_{10,}|-{10,})\s*$",
    re.IGNORECASE,
)
_HEADER_LINE = re.compile(r"^\*?(from|de|von|van|da)\s*:\*?\s", re.IGNORECASE)
_NEXT_HEADER = re.compile(
    r"^\*?(sent|date|to|subject|envoy[ée]|gesendet|datum|enviado|an|objet|betreff)\s*:",
    re.IGNORECASE,
)


def _attribution(lines: list[str], index: int) -> int:
    """How many lines from `index` make an "On … wrote:" line (a client may wrap a long one):
    0 when there is none."""
    first = lines[index].strip()
    if len(first) > 300:
        return 0
    if _WROTE.search(first):
        return 1
    if not _ATTRIBUTION_START.match(first):
        return 0
    joined = first
    for extra in range(1, 4):
        if index + extra >= len(lines) or not lines[index + extra].strip():
            return 0
        joined += " " + lines[index + extra].strip()
        if _WROTE.search(joined):
            return extra + 1
    return 0


def _quote_header(lines: list[str], index: int) -> bool:
    """Outlook's "From: … / Sent: …" block (or a forward marker): the original starts here,
    unquoted."""
    line = lines[index].strip()
    if _FORWARD_MARK.match(line):
        return True
    if not _HEADER_LINE.match(line):
        return False
    following = lines[index + 1 : index + 4]
    return any(_NEXT_HEADER.match(later.strip()) for later in following)


def reply_lines(lines: list[str]) -> list[str]:
    """The first paragraph of the reply that is not quoted: what the player wrote."""
    found: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index].strip()
        if _quote_header(lines, index) or _SIGNATURE.match(line):
            break
        skip = _attribution(lines, index)
        if skip:
            if found:
                break
            index += skip
            continue
        if not line or _QUOTED.match(line):
            if found:
                break
            index += 1
            continue
        found.append(line)
        if len(found) > MAX_MOVES:
            break
        index += 1
    return found


# --- HTML ----------------------------------------------------------------------------------------

_BLOCKS = frozenset(
    {
        "address", "article", "aside", "blockquote", "dd", "div", "dl", "dt", "footer", "form",
        "h1", "h2", "h3", "h4", "h5", "h6", "header", "li", "ol", "p", "pre", "section", "table",
        "td", "th", "tr", "ul",
    }
)  # fmt: skip
_HIDDEN = frozenset({"head", "script", "style", "title", "template"})
# Where a client puts what is quoted (Gmail, Apple Mail, Thunderbird, Outlook, Yahoo) and the
# signature: the reply is above it.
_QUOTE_MARKS = re.compile(
    r"gmail_quote|gmail_attr|gmail_signature|moz-cite-prefix|moz-signature|divrplyfwdmsg|"
    r"appendonsend|yahoo_quoted|protonmail_quote|outlookmessageheader|mail-signature|"
    r"x_divrplyfwdmsg|ms-outlook-mobile-signature",
    re.IGNORECASE,
)


class _TextOf(HTMLParser):
    """An HTML part's text, a line per block, without what is quoted or hidden; it stops at the
    first quote marker a client leaves."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skipping: str | None = None  # the tag whose content is skipped
        self.depth = 0
        self.stopped = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.stopped:
            return
        if self.skipping is not None:
            if tag == self.skipping:
                self.depth += 1
            return
        marks = " ".join(value or "" for name, value in attrs if name in ("class", "id", "type"))
        if _QUOTE_MARKS.search(marks):
            self.stopped = True
            return
        if tag in _HIDDEN or tag == "blockquote":
            self.skipping, self.depth = tag, 1
            if tag == "blockquote":  # a quote, as plain text marks it
                self._line_break()
                self.parts.append(">\n")
            return
        if tag == "br":
            self.parts.append("\n")
        elif tag == "hr":
            self._line_break()
            self.parts.append("__________\n")  # Outlook's rule above the original
        elif tag in _BLOCKS:
            self._line_break()

    def handle_endtag(self, tag: str) -> None:
        if self.stopped:
            return
        if self.skipping is not None:
            if tag == self.skipping:
                self.depth -= 1
                if self.depth == 0:
                    self.skipping = None
                    self._line_break()
            return
        if tag in _BLOCKS:
            self._line_break()

    def handle_data(self, data: str) -> None:
        if self.stopped or self.skipping is not None:
            return
        # Whitespace in HTML text is a space, whatever it is in the source, and none at all
        # at the start of a line.
        text = re.sub(r"[ \t\r\n\f]+", " ", data)
        if text.strip() or not self._at_line_start():
            self.parts.append(text)

    def _at_line_start(self) -> bool:
        return not self.parts or self.parts[-1].endswith("\n")

    def _line_break(self) -> None:
        """A block's edge: the text goes on on a new line (only <br> makes an empty one)."""
        if not self._at_line_start():
            self.parts.append("\n")


def html_text(html: str) -> str:
    """The text a reader sees above the quote of an HTML-only reply, a line per block."""
    parser = _TextOf()
    try:
        parser.feed(html)
        parser.close()
    except Exception:  # HTMLParser is lenient; this is for the odd assertion inside it
        pass
    lines = (line.strip() for line in "".join(parser.parts).split("\n"))
    return "\n".join(lines)
