// Tic-tac-toe: the 3 x 3 grid as nine buttons, X for the first seat and O for the
// second, the winning line highlighted. A cell is a button only while marking it
// is one of ctx.legalMoves: this module draws the game, the server says what is allowed.
//
// People count from 1: the cells are "row 1, column 1" to "row 3, column 3", as in
// the history's sentences ("Ana marked row 1, column 1."), while moves keep the
// game's cell numbers 0..8.

const style = document.createElement('link');
style.rel = 'stylesheet';
style.href = new URL('./renderer.css', import.meta.url).href;
document.head.append(style);

const MARKS = ['X', 'O'];

function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else if (key === 'class') node.className = value;
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

const place = (cell) => `row ${Math.floor(cell / 3) + 1}, column ${(cell % 3) + 1}`;
const nameOf = (names, seat) => names[seat] ?? `Seat ${seat + 1}`;

/** The words the list of legal moves under the board shows: the cell as the board names it. */
export function moveLabel(move) {
  return move.type === 'mark' && Number.isInteger(move.cell) ? `mark ${place(move.cell)}` : String(move.type);
}

/** Who is who, and what the board is waiting for (or how it ended). The view alone does not
 * know: a resignation or a timeout ends a match the grid has not, and a match waiting for its
 * players has a turn in its view that nobody can play yet. ctx.status, ctx.outcome and
 * ctx.activeSeats (from the state) say it; a page without them falls back on the view. */
function standing(view, names, ctx) {
  const who = (seat) => [h('span', { class: `mark m${seat}`, 'aria-hidden': 'true' }, MARKS[seat]), ' ', h('bdi', {}, nameOf(names, seat))];
  const players = h('p', { class: 'players' }, who(0), h('span', { class: 'vs' }, ' vs '), who(1));
  const person = (seat) => [h('bdi', {}, nameOf(names, seat)), ` (${MARKS[seat]})`];
  const status = ctx.status ?? 'active';
  const winners = ctx.outcome?.winners ?? [];
  const toPlay = ctx.activeSeats ?? (view.turn !== null ? [view.turn] : []);
  let line;
  if (view.winner !== null) line = [person(view.winner), ' won with three in a row.'];
  else if (view.draw) line = ['A draw: the grid is full and nobody has three in a row.'];
  else if (status === 'finished') {
    line = winners.length === 1 ? [person(winners[0]), ' won: the match ended before the grid did.']
      : ['The match is over.'];
  } else if (status !== 'active') line = ['Waiting for the players: the match has not started.'];
  else if (toPlay.length === 1) line = [person(toPlay[0]), ' to play.'];
  else line = [''];
  return [players, h('p', { class: 'turn' }, line)];
}

export function render(root, ctx) {
  const { view, legalMoves, submit, names } = ctx;
  const moves = new Map(legalMoves.filter((m) => m.type === 'mark').map((m) => [m.cell, m]));
  const winning = new Set(view.line || []);
  const cells = view.cells.map((owner, cell) => {
    const move = moves.get(cell);
    const what = owner === null ? 'empty' : `${MARKS[owner]}, ${nameOf(names, owner)}`;
    return h('button', {
      type: 'button',
      class: ['cell', owner === null ? 'free' : `m${owner}`, winning.has(cell) ? 'win' : ''].join(' ').trim(),
      'data-cell': String(cell),
      'aria-label': `${place(cell)}: ${what}${winning.has(cell) ? ', in the winning line' : ''}${move ? ', mark it' : ''}`,
      disabled: !move,
      onclick: () => move && submit(move),
    }, owner === null ? '' : MARKS[owner]);
  });
  root.append(h('div', { class: 'ttt' }, standing(view, names, ctx),
    h('div', { class: 'grid', role: 'group', 'aria-label': 'The board, row by row' }, cells)));
}
