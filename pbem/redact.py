"""Tokens and addresses out of the logs: a link's token is the key to a seat, so a log line
keeps its first characters and drops the rest; an email address keeps its first character and
its domain (which mail provider refuses is worth knowing; who is not).

`redact(text)` masks the token in `/play/<token>`, `/invite/<token>`, `/me/<token>`,
`/signin/<token>`, `/block/<token>`, `?token=…`, `Bearer …` and anything shaped like a token,
and every email address (a reply address `play+<token>@…` with it); `RedactingFilter` applies
it to log records. `pbem.logs` puts it on the handler of every process's logs; `install()` puts
it on pbem's logger and the development server's (werkzeug) as well, and gunicorn's logs are
masked by `pbem.gunicorn_logging`.
"""

from __future__ import annotations

import logging
import re

# Enough to tell two links apart in a log, far too little to use: a token is about 100 characters
# and its first ones encode the same purpose for every link.
KEEP = 6
MASK = "…"

# The paths whose segment after the prefix is a token (pbem.web: play, invite, dashboard).
TOKEN_PATHS = ("play", "invite", "me", "signin", "block", "mail", "erase")

_PATHS = "|".join(TOKEN_PATHS)
_PATTERN = re.compile(
    # The lead kept as it is: a token path (also URL-encoded, as in a `next=` argument), a
    # `token=` argument (also the bare query string gunicorn logs), a Bearer header.
    r"(?P<lead>/(?:" + _PATHS + r")/|%2[fF](?:" + _PATHS + r")%2[fF]"
    r"|(?:^|(?<=[?&;\s\"']))token(?:=|%3[dD])|\b[Bb]earer\s+)"
    r"(?P<token>[^/?&;#%\s\"'<>]+)"
)
# A token anywhere else, by its shape: base64 claims, a timestamp and a signature, dot-separated
# (a leading dot when itsdangerous compressed the claims).
_BARE = re.compile(
    r"(?<![\w.-])(?P<lead>)(?P<token>\.?[\w-]{16,}\.[\w-]{4,12}\.[\w-]{20,})(?![\w.-])"
)


# An address as logs quote it: no spaces, brackets, quotes or commas around its parts (a
# password in a URL's user part goes the same way: `user:p…@host`).
_NOT_IN_ADDRESS = r"\s<>()\[\]\\,;:\"'@/"
_ADDRESS = re.compile(
    rf"(?P<first>[^{_NOT_IN_ADDRESS}…])[^{_NOT_IN_ADDRESS}]*@(?P<domain>[\w-]+(?:\.[\w-]+)+)"
)


def _mask(match: re.Match[str]) -> str:
    token = match["token"]
    if len(token) <= KEEP:
        return match[0]
    return match["lead"] + token[:KEEP] + MASK


def redact(text: str) -> str:
    """`text` with every token it carries cut to its first characters and "…", and every
    address to its first character, "…" and its domain."""
    masked = _BARE.sub(_mask, _PATTERN.sub(_mask, text))
    return _ADDRESS.sub(r"\g<first>…@\g<domain>", masked) if "@" in masked else masked


class RedactingFilter(logging.Filter):
    """Masks tokens in a record's message and traceback; lets every record through."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        masked = redact(message)
        if masked != message:
            record.msg, record.args = masked, ()
        if record.exc_info and not record.exc_text:
            # Formatters print exc_text when set: the traceback's messages may quote a URL.
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        return True


# pbem's own logger (the Flask app's, which logs "Exception on <path>") and werkzeug's, which
# logs every request line of `pbem serve`.
LOGGERS = ("pbem", "werkzeug")


def install(*names: str) -> None:
    """Puts the filter on these loggers (pbem's and werkzeug's by default), once each."""
    for name in names or LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactingFilter) for f in logger.filters):
            logger.addFilter(RedactingFilter())
