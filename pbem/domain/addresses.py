"""Email addresses as they enter pbem: checked and normalised once, at the door.

The syntax is email-validator's (RFC 5321/5322 and 6531 for internationalised addresses), without
DNS look-ups: a form post must not wait on DNS, and an address that does not exist is found out
by the mail server and reported to the organiser. What gets in can be written into a message:
no line breaks, no control or invisible direction-changing characters.
"""

from __future__ import annotations

import unicodedata

from email_validator import SPECIAL_USE_DOMAIN_NAMES, EmailNotValidError, validate_email

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
            f"{address[:40]!r}… is not an email address: it is {len(address)} characters long, "
            f"and an address has at most {MAX_LENGTH}."
        )
    hidden = [c for c in address if unicodedata.category(c) in HIDDEN_CATEGORIES]
    if hidden:
        names = ", ".join(sorted({_character_name(c) for c in hidden}))
        raise SetupError(
            f"{address!r} is not an email address: it holds an invisible or control character "
            f"({names}). Type the address again rather than pasting it."
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
            f"{address!r} is not an email address: {exc} Check it and try again."
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
