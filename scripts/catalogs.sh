#!/usr/bin/env bash
# The gettext catalogs brought up to date with the code: every string marked for translation
# extracted (pybabel extract), merged into each language's .po (pybabel update; a new string
# comes in empty, a changed one fuzzy: tests/i18n fails until both are translated), then
# compiled. The service's catalog is pbem/translations; each game's, its package's translations.
# scripts/catalogs.sh [messages|<game>...]: only those catalogs (all when none is named).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PYBABEL=${PYBABEL:-.venv/bin/pybabel}
KEYWORDS=(-k lazy_gettext -k lazy_ngettext:1,2 -k N_ -k t -k tn:1,2 -k Message -k counted:1,2 -k lang)
pot=$(mktemp --suffix=.pot)
trap 'rm -f "$pot"' EXIT

update() {  # domain, folder, extraction arguments...
    local domain=$1 folder=$2
    shift 2
    "$PYBABEL" -q extract --no-location --sort-output --project pbem "${KEYWORDS[@]}" -o "$pot" "$@"
    for lang in fr nl da; do
        "$PYBABEL" -q update --init-missing --ignore-obsolete --no-fuzzy-matching \
            -D "$domain" -i "$pot" -d "$folder" -l "$lang"
    done
    "$PYBABEL" -q compile -D "$domain" -d "$folder"
}

# Which catalogs: those named (messages, or a game's name), else all.
wanted() { [ $# -eq 0 ] || [[ " ${DOMAINS[*]} " == *" $1 "* ]]; }
DOMAINS=("$@")
if [ ${#DOMAINS[@]} -eq 0 ] || wanted messages; then
    update messages pbem/translations -F pbem/translations/babel.cfg .
fi
shopt -s nullglob
# Every game with a rules page has a catalog (made on its first run).
for page in pbem/games/*/guide.html; do
    package=$(dirname "$page")
    game=$(basename "$package")
    if [ ${#DOMAINS[@]} -eq 0 ] || wanted "$game"; then
        update "$game" "$package/translations" -F pbem/translations/games.cfg "$package"
    fi
done
