#!/bin/sh
# As the official image's: a bare `redis-server …` listens on every interface of the
# container's network without protected mode (the network is the boundary).
set -e
if [ "$1" = "redis-server" ]; then
    shift
    exec redis-server --bind 0.0.0.0 --protected-mode no "$@"
fi
exec "$@"
