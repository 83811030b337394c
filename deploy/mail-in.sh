#!/bin/sh
# Postfix's pipe into pbem (the image's `mta` target): pbem's settings, which the pipe does not
# pass on, then `pbem mail-in RECIPIENT` with the message on standard input. Its exit status is
# the MTA's answer: 0 handled, 75 try again later (the database is away).
set -eu
. /etc/postfix/pbem/environment
exec /usr/local/bin/pbem mail-in "$@"
