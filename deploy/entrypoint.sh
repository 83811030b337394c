#!/bin/sh
# The image's entry point: one process of the Procfile by its name (web, worker, picture, bot,
# beat, release), as `honcho start NAME` would run it, or any other command as given.
set -eu
procfile=${PBEM_PROCFILE:-/app/Procfile}
name=${1:-web}
line=$(sed -n "s/^${name}: //p" "$procfile" | head -n 1)
if [ -z "$line" ]; then
    exec "$@"
fi
# The line is the Procfile's own: ${PORT:-8000} and the like expand here, as in a Procfile.
exec sh -c "exec $line"
