#!/usr/bin/env bash
# Run ../shared/peer/compare.sh (boardgame.io beside gameroom, tic-tac-toe) on this checkout.
#
#   bench/peer_compare.sh                 # ROUNDS=3, ~14 min; any compare.sh setting passes through
#   ROUNDS=1 MODES=play bench/peer_compare.sh
#
# compare.sh, as stored in shared/, names the package by its old top-level name
# (`service.wsgi:app`, `service.eventstore.embedded`, the latter imported outside
# the checkout where no `service` exists). This runs a copy with `gameroom.` in
# their place and nothing else changed; the copy sits beside the results.
# PEER: the peer folder (default: ../shared/peer from this checkout).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
peer="$(cd "${PEER:-$here/../shared/peer}" && pwd)"
[[ -f "$peer/compare.sh" ]] || { echo "peer_compare.sh: no compare.sh in $peer (set PEER)" >&2; exit 1; }
copy="$(mktemp "${TMPDIR:-/tmp}/gameroom-compare.XXXXXX.sh")"
trap 'rm -f "$copy"' EXIT
sed -e "s|^HERE=.*|HERE=\"$peer\"|" \
    -e 's/service\.wsgi:app/gameroom.wsgi:app/g' \
    -e 's/from service\.eventstore\.embedded/from gameroom.eventstore.embedded/g' \
    "$peer/compare.sh" > "$copy"
GAMEROOM_CHECKOUT="${GAMEROOM_CHECKOUT:-$here}" bash "$copy"
