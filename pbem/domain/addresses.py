"""Email addresses as they enter pbem: checked and normalised once, at the door.

The syntax is email-validator's (RFC 5321/5322 and 6531 for internationalised addresses), without
DNS look-ups: a form post must not wait on DNS, and an address that does not exist is found out
by the mail server and reported to the organiser. What gets in can be written into a message:
no line breaks, no control or invisible direction-changing characters.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from email_validator import SPECIAL_USE_DOMAIN_NAMES, EmailNotValidError, validate_email

from pbem import i18n
from pbem.config import Settings
from pbem.domain.errors import SetupError
from pbem.mail import HIDDEN_CATEGORIES

# RFC 5321's limit on a path, and the width of players.email.
MAX_LENGTH = 320


def normalise_address(config: Settings, address: str) -> str:
    """The address as pbem stores it; SetupError saying what is wrong with it otherwise.

    The local part keeps its case (some servers tell it apart); the domain is lower-cased and
    IDNA-normalised, and the whole is in Unicode NFC, so one mailbox is one player.
    """
    address = address.strip()
    if len(address) > MAX_LENGTH:
        raise SetupError(
            i18n.gettext(
                "%(address)s… is not an email address: it is %(length)d characters long, and an "
                "address has at most %(most)d.",
                address=repr(address[:40]),
                length=len(address),
                most=MAX_LENGTH,
            )
        )
    hidden = [c for c in address if unicodedata.category(c) in HIDDEN_CATEGORIES]
    if hidden:
        names = ", ".join(sorted({_character_name(c) for c in hidden}))
        raise SetupError(
            i18n.gettext(
                "%(address)s is not an email address: it holds an invisible or control character "
                "(%(characters)s). Type the address again rather than pasting it.",
                address=repr(address),
                characters=names,
            )
        )
    # Special-use domains (.test, .localhost, .invalid …) cannot receive mail from the Internet,
    # but development and test setups address their own mail with them.
    local = config.env in ("development", "test")
    special = _special_use(address) if local else None
    checked = address
    if special is not None:
        # Checked as the same address under .test, the one special-use name the validator has a
        # switch for (its list of the others is global to the process).
        checked = address[: -len(special)] + "test"
    try:
        valid = validate_email(
            checked,
            check_deliverability=False,
            test_environment=local,
            globally_deliverable=not local,
        )
    except EmailNotValidError as exc:
        raise SetupError(
            i18n.gettext(
                "%(address)s is not an email address: %(problem)s Check it and try again.",
                address=repr(address),
                problem=exc,
            )
        ) from exc
    if special is not None:
        return valid.normalized[: -len("test")] + special
    return valid.normalized


def _special_use(address: str) -> str | None:
    """The special-use top-level name the address ends with (lower-cased), if any."""
    domain = address.rpartition("@")[2].lower()
    top = domain.rpartition(".")[2]
    return top if top in SPECIAL_USE_DOMAIN_NAMES and top != "test" else None


def _character_name(character: str) -> str:
    code = f"U+{ord(character):04X}"
    name = unicodedata.name(character, "")
    return f"{code} {name}" if name else code


def never_email(addresses: Sequence[str], reinviting: bool = False) -> SetupError:
    """The refusal of a game, or of another player for a seat (`reinviting`), naming addresses
    that asked pbem never to email them."""
    if reinviting:
        return SetupError(
            i18n.gettext(
                "%(address)s asked pbem never to email them: invite someone else.",
                address=", ".join(addresses),
            )
        )
    return SetupError(
        i18n.ngettext(
            "%(addresses)s asked pbem never to email them: start the game without that address.",
            "%(addresses)s asked pbem never to email them: start the game without those addresses.",
            len(addresses),
            addresses=", ".join(addresses),
        )
    )
