"""Replies by mail: a turn email's Reply-To is an address of its seat and ply; a player's answer
to it plays the moves written in it (`handle.handle_message`).

`tokens` makes and reads those addresses (and each message's bounce address, VERP), `parse`
reads a message (and spots auto-replies and bounces), `authentication` weighs the MTA's
Authentication-Results on its From, `dsn` reads a delivery report sent to a bounce address,
`handle` acts on it and answers, `listener` is the embedded SMTP server. This
package imports none of its modules itself: the domain (`pbem.domain.letters`) uses `tokens` alone.
"""
