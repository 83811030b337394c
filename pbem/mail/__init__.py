"""Email on the wire: a message's bytes, delivery over SMTP or into the local outbox folder.

Rows of the `outbox` table are written by `pbem.domain.outbox` in the same transaction as the
change they report, holding the message's parts but never its picture; `pbem.domain.delivery`
puts the message together at each attempt (`prepare`: `envelope` with the board picture it
carries, then DKIM). The build is deterministic from the row (Message-ID, Date, boundaries, the
picture's Content-ID and the DKIM timestamp all derive from it), so an attempt after a lost
record sends the same bytes.

- `building`: the message a row becomes (headers, parts, the picture; what is refused);
- `writer`: its bytes, written by pbem's own header objects and encodings on the `email`
  package, twenty times cheaper than the package's usual way (bench/RESULTS.md);
- `sending`: SMTP with a session kept between messages, or the outbox folder.
"""

from pbem.mail.building import (
    BOARD_MARKER,
    HIDDEN_CATEGORIES,
    Envelope,
    MailRow,
    Undeliverable,
    carries_board,
    envelope,
    mail_domain,
    message_bytes,
    new_message_id,
    prepare,
    signing_domain,
    wire_address,
)
from pbem.mail.sending import (
    LINK_RE,
    SavedMail,
    close_kept_session,
    delivering,
    read_saved,
    save_to_folder,
    saved_mails,
)

__all__ = [
    "BOARD_MARKER",
    "HIDDEN_CATEGORIES",
    "LINK_RE",
    "Envelope",
    "MailRow",
    "SavedMail",
    "Undeliverable",
    "carries_board",
    "close_kept_session",
    "delivering",
    "envelope",
    "mail_domain",
    "message_bytes",
    "new_message_id",
    "prepare",
    "read_saved",
    "save_to_folder",
    "saved_mails",
    "signing_domain",
    "wire_address",
]
