#!/usr/bin/env bash
# Move latency at C = 1, interleaved rounds: boardgame.io's server (raw driver) beside three floors
# and gameroom itself, each with ../shared/peer's bench.js (mode play, C = 1, tic-tac-toe):
#
#   bgio-raw         boardgame.io's own server (Node, socket.io, in memory)
#   pyfloor-xadd     bench/peer_floor.py: a bare gevent server, no framework, one XADD per move
#   flaskfloor       bench/peer_floor_flask.py: one Flask route served as gameroom is served,
#                    the move loaded with MoveRequestSchema, in memory
#   flaskfloor-xadd  the same with one XADD per move
#   gameroom-1w/-2w  gameroom (deploy/gunicorn.conf.py), 1 and 2 workers
#
#   bench/peer_floors.sh            # ROUNDS=3, ~4 min; an idle machine
#
# Every server runs for the whole script (an idle one costs nothing); the benches take turns.
# One redis-server (AOF everysec, unix socket, as compare.sh's) serves the floors' XADDs and
# gameroom. Results: one bench.js JSON per round and server in $OUT, and a table of medians.
# PEER: the peer folder (default ../shared/peer); BGIO_DEPS_DIR: where boardgame.io is installed.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
peer="$(cd "${PEER:-$here/../shared/peer}" && pwd)/boardgameio"
ROUNDS="${ROUNDS:-3}"
OUT="${OUT:-/tmp/gameroom-peer-floors/$(date +%Y%m%d-%H%M%S)}"
DEPS="${BGIO_DEPS_DIR:-/tmp/bgio-peer-deps}"
[[ -f "$peer/bench.js" ]] || { echo "peer_floors.sh: no bench.js in $peer (set PEER)" >&2; exit 1; }
[[ -x "$here/.venv/bin/gunicorn" ]] || { echo "peer_floors.sh: run make install first" >&2; exit 1; }
if [[ ! -d "$DEPS/node_modules/boardgame.io" ]]; then
  mkdir -p "$DEPS" && cp "$peer/package.json" "$peer/package-lock.json" "$DEPS/"
  (cd "$DEPS" && npm ci --no-audit --no-fund --loglevel=error)
fi
export NODE_PATH="$DEPS/node_modules" NODE_ENV=production
mkdir -p "$OUT"
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT
"$here/.venv/bin/redis-server" --port 0 --unixsocket "$OUT/redis.sock" --unixsocketperm 700 --dir "$OUT" \
  --appendonly yes --appendfsync everysec --save "" --daemonize no >"$OUT/redis.log" 2>&1 &
pids+=($!)
sock="$OUT/redis.sock"
for _ in $(seq 50); do [[ -S "$sock" ]] && break; sleep 0.1; done
BGIO_PORT=8511 BGIO_HOST=127.0.0.1 node "$peer/server.js" >"$OUT/bgio.log" 2>&1 &
pids+=($!)
(cd "$here" && exec .venv/bin/python bench/peer_floor.py --port 8512 --redis-socket "$sock" >"$OUT/pyfloor.log" 2>&1) &
pids+=($!)
serve() { # PORT WORKERS LABEL FLOOR_REDIS_SOCKET|- GUNICORN_ARGS...
  local port="$1" workers="$2" label="$3" floor="$4"
  shift 4
  local env=(GAMEROOM_REDIS_URL="unix://$sock" GAMEROOM_BIND="127.0.0.1:$port" GAMEROOM_WEB_WORKERS="$workers")
  [[ "$floor" == - ]] || env+=(FLOOR_REDIS_SOCKET="$floor")
  (cd "$here" && exec env "${env[@]}" .venv/bin/gunicorn -c deploy/gunicorn.conf.py "$@" >"$OUT/$label.log" 2>&1) &
  pids+=($!)
}
serve 8513 1 flaskfloor - --chdir bench peer_floor_flask:app
serve 8514 1 flaskfloor-xadd "$sock" --chdir bench peer_floor_flask:app
serve 8515 1 gameroom-1w - gameroom.wsgi:app
serve 8516 2 gameroom-2w - gameroom.wsgi:app
sleep 6
servers=("8511 raw bgio-raw" "8512 gameroom-http pyfloor-xadd" "8513 gameroom-http flaskfloor"
  "8514 gameroom-http flaskfloor-xadd" "8515 gameroom-http gameroom-1w" "8516 gameroom-http gameroom-2w")
for r in $(seq "$ROUNDS"); do
  for spec in "${servers[@]}"; do
    read -r port driver label <<<"$spec"
    node "$peer/bench.js" --server "http://127.0.0.1:$port" --driver "$driver" --mode play --concurrency 1 \
      --duration 10 --warmup 3 --seed "$r" --label "$label" --json "$OUT/r$r-$label.json" |
      grep -o 'p50.*p99 [0-9.]* ms' | sed "s/^/round $r $label: /"
  done
done
echo "move latency at C = 1, median over $ROUNDS rounds (results in $OUT):"
python3 - "$OUT" <<'EOF'
import glob, json, statistics, sys
rows = {}
for path in sorted(glob.glob(f"{sys.argv[1]}/r*-*.json")):
    label = path.rsplit("/", 1)[1].split("-", 1)[1][:-5]
    data = json.load(open(path))
    rows.setdefault(label, []).append((data["latency_ms"]["p50"], data["latency_ms"]["p99"]))
for label, runs in rows.items():
    p50 = statistics.median(r[0] for r in runs)
    p99 = statistics.median(r[1] for r in runs)
    print(f"  {label:16} p50 {p50:.2f} ms  p99 {p99:.2f} ms  ({len(runs)} rounds)")
EOF
