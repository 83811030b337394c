#!/bin/sh
# The mail server beside pbem (the image's `mta` target): Postfix relays what pbem sends
# (SMTP_URL=smtp://mta:25 from pbem's network only) and takes the replies and bounces of
# PBEM_MAIL_DOMAIN, piping them into `pbem mail-in` as the pbem user. Configured from the
# environment at each start: PBEM_MAIL_DOMAIN (required), RELAYHOST (optional smarthost,
# "[smtp.example.org]:587"), PBEM_NETWORKS (who may send through it; the compose network).
set -eu
: "${PBEM_MAIL_DOMAIN:?set PBEM_MAIL_DOMAIN to the domain of MAIL_FROM}"
postconf -e \
    "myhostname=${MTA_HOSTNAME:-mail.${PBEM_MAIL_DOMAIN}}" \
    "mydestination=" \
    "mynetworks=127.0.0.0/8 ${PBEM_NETWORKS:-172.16.0.0/12 10.0.0.0/8 192.168.0.0/16}" \
    "relayhost=${RELAYHOST:-}" \
    "recipient_delimiter=+" \
    "virtual_mailbox_domains=" \
    "relay_domains=" \
    "maillog_file=/dev/stdout" \
    "transport_maps=hash:/etc/postfix/pbem/transport" \
    "virtual_alias_domains=${PBEM_MAIL_DOMAIN}" \
    "virtual_alias_maps=hash:/etc/postfix/pbem/virtual" \
    "smtpd_recipient_restrictions=permit_mynetworks,reject_unauth_destination"
sed "s/@DOMAIN@/${PBEM_MAIL_DOMAIN}/g" /etc/postfix/pbem/virtual.in > /etc/postfix/pbem/virtual
sed "s/@DOMAIN@/${PBEM_MAIL_DOMAIN}/g" /etc/postfix/pbem/transport.in > /etc/postfix/pbem/transport
postmap /etc/postfix/pbem/virtual /etc/postfix/pbem/transport
# The pipe transport that hands a message to pbem (master.cf), as docs/operations.md describes
# it; the pipe gives a command no environment, so pbem's settings come from a file only the
# pbem user reads (deploy/mail-in.sh).
postconf -M "pbem/unix=pbem unix - n n - 4 pipe flags=DORq user=pbem argv=/app/mail-in.sh \${original_recipient}"
umask 027
env | grep -E '^(DATABASE_URL|REDIS_URL|SECRET_KEY|BASE_URL|MAIL_FROM|SMTP_URL|PBEM_[A-Z_]+)=' \
    | sed "s/'/'\\\\''/g; s/=\(.*\)/='\1'/; s/^/export /" > /etc/postfix/pbem/environment
chown root:pbem /etc/postfix/pbem/environment
exec postfix start-fg
