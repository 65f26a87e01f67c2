// The Stars Are Right: the 5x5 sky (both faces of every tile), push/swap/flip by
// clicking the sky, the hand and the creatures with their constellations drawn,
// the pool of actions, services and victory points.
//
// Only moves from ctx.legalMoves are offered: this module knows how to draw the
// game, never which moves are allowed.

const content = await (await fetch(new URL('./stars-are-right.json', import.meta.url))).json();
const style = document.createElement('link');
style.rel = 'stylesheet';
style.href = new URL('./renderer.css', import.meta.url).href;
document.head.append(style);

const CARDS = new Map(content.cards.map((c) => [c.id, c]));
const TILES = new Map(content.tiles.map((t) => [t.id, t]));
const FACE_NAMES = Object.fromEntries(content.faces.map((f) => [f.code, f.name]));
const GLYPHS = { 1: '1★', 2: '2★', 3: '3★', 4: '4★', 5: '5★', V: '◌', Wn: '☾', Wx: '☽', Mo: '●', Le: '◐', Su: '☀', Se: '◎', Sh: '☄', Me: '⁂' };
const ACTIONS = { P: 'Push', S: 'Swap', F: 'Flip' };
const SIZE = 5;

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

function face(code, cls = 'face') {
  return h('span', { class: `${cls} f-${code}`, title: FACE_NAMES[code] || code }, GLYPHS[code] || code);
}

/** A constellation: its groups, each a small grid of faces (dark cells match anything). */
function constellation(card) {
  return h('div', { class: 'constellation', 'aria-label': `constellation ${card.notation}` },
    card.constellation.map((group) => h('table', { class: 'group' }, h('tbody', {},
      group.map((row) => h('tr', {}, row.map((cell) => h('td', { class: cell === null ? 'dark' : null },
        cell === null ? '' : face(cell, 'mini')))))))));
}

function cardView(id, moves, submit, extra = '') {
  const card = CARDS.get(id);
  if (!card) return h('div', { class: 'card' }, `#${id}`);
  const family = card.family ? ` · ${card.family}` : '';
  // The buttons on a card say what they do without the card (it is all around them);
  // their accessible name says which card, so a screen reader can tell them apart.
  return h('article', { class: `card t-${card.type}`, 'data-card': String(id) },
    h('header', {}, h('strong', {}, card.name), ` #${id}`),
    h('p', { class: 'meta' }, `${card.type.replace(/_/g, ' ')}${family} · ${card.points} VP · invoke ${card.invocation}`,
      card.bonus ? [' · bonus ', face(card.bonus, 'mini')] : '', extra),
    constellation(card),
    moves.length ? h('div', { class: 'card-moves' }, moves.map(({ move, label, name }) => h('button', {
      type: 'button', class: 'board-move', 'aria-label': name, onclick: () => submit(move),
    }, label))) : null);
}

const cardName = (id) => (CARDS.has(id) ? `${CARDS.get(id).name} #${id}` : `card #${id}`);
/** A sky cell as the board labels it and the history tells it: rows and columns count from 1. */
const cellName = (cell) => `row ${Math.floor(cell / SIZE) + 1} column ${(cell % SIZE) + 1}`;
const words = (text) => String(text).replace(/_/g, ' ');

/** What a move does, in words. ``onCard``: the words for a button on the move's own card,
 * which leave that card out. Numbers count from 1, as in the history's sentences. */
function describeMove(move, names = [], onCard = false) {
  const own = (id) => (onCard ? '' : ` ${cardName(id)}`);
  const seatName = (seat) => names[seat] ?? `seat ${seat + 1}`;
  switch (move.type) {
    case 'invoke': return `invoke${own(move.card)}`;
    case 'use_service': return onCard ? 'use its service' : `use the service of ${cardName(move.creature)}`;
    case 'use_gug': case 'use_tindaloo':
      return `use${onCard ? ' it' : own(move.minion)}: give ${cardName(move.own)} for ${seatName(move.opponent)}'s ${cardName(move.theirs)}`;
    case 'use_dhole': return `use${onCard ? ' it' : own(move.minion)} on the ${move.pile} pile`;
    case 'dhole_take': return `take${own(move.card)}`;
    case 'push': return `push ${move.line === 'row' ? 'row' : 'column'} ${move.index + 1} ${move.direction}`;
    case 'swap': return `swap ${cellName(move.cells[0])} with ${cellName(move.cells[1])}`;
    case 'flip': return `flip the tile at ${cellName(move.cell)}`;
    case 'summon':
      return `summon${own(move.card)} ${move.supporters.length ? `with ${move.supporters.map(cardName).join(', ')}` : 'with no supporters'}`;
    case 'discard_creature': return `discard${own(move.card)} from play`;
    case 'discard': return `discard${own(move.card)}`;
    default: return words(move.type);
  }
}

/** The words the generic list of legal moves (under the board) shows for ``move``. */
export function moveLabel(move, ctx = {}) {
  return describeMove(move, ctx.names || []);
}

export function render(root, ctx) {
  const { view, legalMoves: legal, submit, names } = ctx;
  const used = new Set();
  const byCard = new Map();
  const drawn = new Set([...(view.hand || []), ...view.creatures.flat()]);
  for (const move of legal) {
    const id = move.card ?? move.creature;
    if (id === undefined || !drawn.has(id)) continue; // a card not on the board: its move goes to the bar
    if (!byCard.has(id)) byCard.set(id, []);
    byCard.get(id).push({ move, label: describeMove(move, names, true), name: describeMove(move, names) });
    used.add(move);
  }
  const pushes = legal.filter((m) => m.type === 'push');
  const flips = new Map(legal.filter((m) => m.type === 'flip').map((m) => [m.cell, m]));
  const swaps = legal.filter((m) => m.type === 'swap');
  [...pushes, ...flips.values(), ...swaps].forEach((m) => used.add(m));

  // The sky: a click flips, or picks the first then the second cell of a swap.
  let mode = flips.size && !swaps.length ? 'flip' : swaps.length && !flips.size ? 'swap' : (flips.size ? 'flip' : null);
  let first = null;
  const cells = view.sky.map((tile, cell) => {
    const up = view.up[cell];
    const other = (TILES.get(tile)?.faces || []).find((f) => f !== up) ?? up;
    const button = h('button', {
      type: 'button', class: 'cell', 'data-cell': String(cell), 'data-tile': String(tile),
      'aria-label': `${cellName(cell)}: ${FACE_NAMES[up]} (back: ${FACE_NAMES[other]})`,
      onclick: () => pick(cell),
    }, face(up), face(other, 'back'));
    return button;
  });
  const cellNames = cells.map((button) => button.getAttribute('aria-label'));
  // The first tile of a swap stays enabled: it keeps the focus, and picking it again cancels.
  function enable() {
    cells.forEach((button, cell) => {
      const can = mode === 'flip' ? flips.has(cell)
        : mode === 'swap' ? cell === first || swaps.some((m) => m.cells.includes(cell) && (first === null || m.cells.includes(first)))
          : false;
      button.disabled = !can;
      button.classList.toggle('picked', cell === first);
      if (mode === 'swap' && can) button.setAttribute('aria-pressed', String(cell === first));
      else button.removeAttribute('aria-pressed');
      button.setAttribute('aria-label', cell === first ? `${cellNames[cell]}, picked to swap (pick it again to cancel)` : cellNames[cell]);
    });
    note.textContent = mode === 'flip' ? 'Click a tile to flip it.'
      : mode === 'swap' ? (first === null ? 'Click the first tile to swap.'
      : `Click the tile to swap ${cellName(first)} with, or ${cellName(first)} again to cancel.`) : '';
  }
  function pick(cell) {
    if (mode === 'flip') { submit(flips.get(cell)); return; }
    if (mode === 'swap') {
      if (first === null) { first = cell; enable(); return; }
      if (cell === first) { first = null; enable(); return; }
      const move = swaps.find((m) => m.cells.includes(first) && m.cells.includes(cell));
      first = null;
      if (move) submit(move);
    }
  }
  const note = h('p', { class: 'sky-note', 'aria-live': 'polite' });
  const arrow = (line, index, direction, glyph) => {
    const move = pushes.find((m) => m.line === line && m.index === index && m.direction === direction);
    return h('button', {
      type: 'button', class: `push push-${direction}`, disabled: !move, 'data-push': `${line}${index}:${direction}`,
      'aria-label': `push ${line === 'row' ? 'row' : 'column'} ${index + 1} ${direction}`,
      onclick: () => move && submit(move),
    }, glyph);
  };
  const grid = h('div', { class: 'sky', role: 'group', 'aria-label': 'The sky' });
  grid.append(h('span'), ...Array.from({ length: SIZE }, (_, c) => arrow('col', c, 'up', '▲')), h('span'));
  for (let r = 0; r < SIZE; r += 1) {
    grid.append(arrow('row', r, 'left', '◀'), ...cells.slice(r * SIZE, r * SIZE + SIZE), arrow('row', r, 'right', '▶'));
  }
  grid.append(h('span'), ...Array.from({ length: SIZE }, (_, c) => arrow('col', c, 'down', '▼')), h('span'));
  const modes = [['flip', flips.size], ['swap', swaps.length]].filter(([, n]) => n)
    .map(([name]) => h('button', {
      type: 'button', class: 'mode', 'aria-pressed': String(mode === name),
      onclick: (e) => { mode = name; first = null; e.target.parentNode.querySelectorAll('.mode').forEach((b) => b.setAttribute('aria-pressed', String(b === e.target))); enable(); },
    }, name === 'flip' ? 'Flip a tile' : 'Swap two tiles'));
  enable();

  const pool = h('p', { class: 'pool' }, 'Actions: ', Object.entries(view.pool).map(([k, n]) => h('span', { class: 'pool-item' }, `${ACTIONS[k] || k} ${n}`)));
  const seats = view.creatures.map((table, seat) => h('section', { class: `table ${view.current === seat ? 'active' : ''}` },
    h('h3', {}, h('bdi', {}, names[seat]), `: ${view.vp[seat]} VP · ${view.hand_sizes[seat]} in hand`, view.current === seat ? ' · to act' : ''),
    table.length ? h('div', { class: 'cards' }, table.map((id) => cardView(id, byCard.get(id) || [], submit,
      view.tapped.includes(id) ? ' · tapped' : ''))) : h('p', { class: 'quiet' }, 'No creatures.')));
  const hand = view.hand ? h('section', { class: 'hand' }, h('h3', {}, 'Your hand'),
    h('div', { class: 'cards' }, view.hand.map((id) => cardView(id, byCard.get(id) || [], submit)))) : null;
  const rest = legal.filter((m) => !used.has(m));
  const bar = rest.length ? h('div', { class: 'turn-bar' }, rest.map((move) => h('button', {
    type: 'button', class: 'board-move', onclick: () => submit(move),
  }, describeMove(move, names)))) : null;
  const top = view.discard.length ? view.discard[view.discard.length - 1] : null;

  root.append(h('div', { class: 'sar' },
    h('p', { class: 'phase' }, view.phase === 'over' ? `Over after ${view.turn} turns` : `Turn ${view.turn + 1} · phase: ${view.phase}`, ` · deck ${view.deck_size} · discard ${view.discard.length}`,
      top !== null ? ` (top: ${CARDS.get(top)?.name ?? top})` : ''),
    pool, modes.length ? h('div', { class: 'modes' }, modes) : null, note, grid, bar, hand, seats));
}
