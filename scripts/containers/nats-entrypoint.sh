#!/bin/sh
# The NATS stand-in's entrypoint (scripts/containers/stand-ins.ts), as the official image's: flags
# alone run nats-server with them; anything else runs as given.
set -eu
if [ "$#" -eq 0 ] || [ "${1#-}" != "$1" ]; then set -- nats-server "$@"; fi
exec "$@"
