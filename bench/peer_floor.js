// The same floor as bench/peer_floor.py in Node (node:http, tic-tac-toe in memory): what the
// gameroom-http driver's HTTP round trip costs at C = 1 with a server that does next to nothing.
//   node bench/peer_floor.js 8101
const http = require('http');
const crypto = require('crypto');

const LINES = [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]];
const matches = new Map();

function state(m) {
  const over = m.outcome !== null;
  return {
    version: m.version, status: over ? 'finished' : 'active', active_seats: over ? [] : [m.turn],
    view: { cells: m.cells, turn: m.turn, winner: m.winner, draw: m.draw }, outcome: m.outcome,
  };
}

function send(res, code, obj) {
  const body = JSON.stringify(obj);
  res.writeHead(code, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

http.createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => { body += chunk; });
  req.on('end', () => {
    if (req.method === 'POST' && req.url === '/api/matches') {
      const id = crypto.randomBytes(8).toString('hex');
      matches.set(id, { version: 0, cells: Array(9).fill(null), turn: 0, winner: null, draw: false, outcome: null, tokens: [] });
      return send(res, 201, { match: { id } });
    }
    const parts = req.url.split('/');
    const m = matches.get(parts[3]);
    if (!m) return send(res, 404, {});
    if (parts[4] === 'seats') {
      const token = crypto.randomBytes(16).toString('hex');
      m.tokens[Number(parts[5])] = token;
      return send(res, 201, { seat: Number(parts[5]), token });
    }
    if (parts[4] === 'state') return send(res, 200, state(m));
    const move = JSON.parse(body);
    const seat = m.tokens.indexOf((req.headers.authorization || '').slice(7));
    if (seat !== m.turn || move.expected_version !== m.version || m.cells[move.move.cell] !== null) return send(res, 409, {});
    m.cells[move.move.cell] = seat;
    m.version += 1;
    if (LINES.some((line) => line.every((c) => m.cells[c] === seat))) { m.winner = seat; m.outcome = { winner: seat }; }
    else if (m.cells.every((c) => c !== null)) { m.draw = true; m.outcome = { draw: true }; }
    m.turn = 1 - m.turn;
    return send(res, 201, { state: state(m) });
  });
}).listen(Number(process.argv[2] || 8101), '127.0.0.1');
