// Seat tokens live in localStorage (and in invitation links' fragments), never in a query string.

const KEY = 'gameroom.tokens';

function load() {
  try { return JSON.parse(localStorage.getItem(KEY) || '{}') || {}; } catch { return {}; }
}

export function get(matchId, seat) {
  return load()[matchId]?.[String(seat)] || null;
}

export function seats(matchId) {
  return Object.keys(load()[matchId] || {}).map(Number).sort((a, b) => a - b);
}

export function put(matchId, seat, token) {
  const all = load();
  all[matchId] = { ...(all[matchId] || {}), [String(seat)]: token };
  localStorage.setItem(KEY, JSON.stringify(all));
}

/** Forget a seat's token (it no longer plays the seat: the seat was left to an AI). */
export function remove(matchId, seat) {
  const all = load();
  if (!all[matchId]) return;
  delete all[matchId][String(seat)];
  if (!Object.keys(all[matchId]).length) delete all[matchId];
  localStorage.setItem(KEY, JSON.stringify(all));
}

/** The invitation link for a seat: the token rides in the fragment, which browsers never send. */
export function invitation(matchId, seat, token) {
  return `${location.origin}/#/join/${encodeURIComponent(matchId)}/${seat}/${encodeURIComponent(token)}`;
}
