// The generic renderer: any game's view as a readable tree and tables, its legal
// moves as labelled buttons. A game with no UI code of its own is played this way.

import { h, words } from './dom.js';

const SCALAR = (v) => v === null || ['string', 'number', 'boolean'].includes(typeof v);

/** A scalar as text (null is "—"). */
function text(value) {
  if (value === null) return '—';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return String(value);
}

/** A scalar for the page: null is a dimmed "—" (a node, so never joined into a string). */
function scalar(value) {
  return value === null ? h('span', { class: 'nil' }, '—') : text(value);
}

/** A list of scalars, comma separated, as nodes. */
function scalars(list) {
  return list.flatMap((v, i) => (i ? [', ', scalar(v)] : [scalar(v)]));
}

function isTable(list) {
  if (list.length < 1 || !list.every((row) => row && typeof row === 'object' && !Array.isArray(row))) return false;
  return list.every((row) => Object.values(row).every((v) => SCALAR(v) || (Array.isArray(v) && v.every(SCALAR))));
}

function table(list) {
  const columns = [...new Set(list.flatMap((row) => Object.keys(row)))];
  return h('div', { class: 'scroll' }, h('table', { class: 'data' },
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, '#'), columns.map((c) => h('th', { scope: 'col' }, words(c))))),
    h('tbody', {}, list.map((row, i) => h('tr', {}, h('th', { scope: 'row' }, String(i)),
      columns.map((c) => h('td', {}, Array.isArray(row[c]) ? scalars(row[c]) : scalar(row[c]))))))));
}

/** A JSON value as nested definition lists, tables for lists of records. */
export function tree(value, depth = 0) {
  if (SCALAR(value)) return h('span', { class: 'scalar' }, scalar(value));
  if (Array.isArray(value)) {
    if (!value.length) return h('span', { class: 'nil' }, 'none');
    if (value.every(SCALAR)) return h('span', { class: 'list' }, scalars(value));
    if (value.every((v) => Array.isArray(v) && v.every(SCALAR))) {
      return h('table', { class: 'grid' }, h('tbody', {}, value.map((row) => h('tr', {}, row.map((c) => h('td', {}, scalar(c)))))));
    }
    if (isTable(value)) return table(value);
    return h('ol', { class: 'items', start: 0 }, value.map((v) => h('li', {}, tree(v, depth + 1))));
  }
  const entries = Object.entries(value);
  if (!entries.length) return h('span', { class: 'nil' }, 'empty');
  return h('dl', { class: 'tree' }, entries.map(([key, v]) => {
    const nested = !SCALAR(v) && !(Array.isArray(v) && v.every(SCALAR));
    const body = nested && depth >= 1
      ? h('details', { open: depth < 3 }, h('summary', {}, words(key)), tree(v, depth + 1))
      : tree(v, depth + 1);
    return [h('dt', {}, words(key)), h('dd', {}, body)];
  }));
}

/** "take · pile 2 · count 3": a move's fields, the type first. */
export function moveLabel(move) {
  const parts = [words(move.type ?? 'move')];
  for (const [key, value] of Object.entries(move)) {
    if (key === 'type') continue;
    parts.push(`${words(key)} ${SCALAR(value) ? text(value) : JSON.stringify(value)}`);
  }
  return parts.join(' · ');
}

const MAX_BUTTONS = 40;

/** The legal moves grouped by type: buttons, or a list box when a group is long.
 *
 * ``label(move)`` words each move: a game's renderer may export its own ``moveLabel``
 * (the words its board uses, numbers counted from 1), else the move's fields. */
export function movesPanel(moves, submit, label = moveLabel) {
  const groups = new Map();
  for (const move of moves) {
    const type = String(move.type ?? 'move');
    if (!groups.has(type)) groups.set(type, []);
    groups.get(type).push(move);
  }
  return h('div', { class: 'moves' }, [...groups].map(([type, list]) => {
    if (list.length <= MAX_BUTTONS) {
      return h('fieldset', { class: 'move-group' }, h('legend', {}, `${words(type)} (${list.length})`),
        list.map((move) => h('button', {
          type: 'button', class: 'move', dataset: { move: JSON.stringify(move) }, onclick: () => submit(move),
        }, label(move))));
    }
    const id = `moves-${type.replace(/[^a-z0-9_-]/gi, '')}`;
    const select = h('select', { id, class: 'move-select' }, list.map((move, i) => h('option', { value: String(i) }, label(move))));
    return h('fieldset', { class: 'move-group' }, h('legend', {}, `${words(type)} (${list.length})`),
      h('label', { for: id }, 'Choose '), select,
      h('button', { type: 'button', class: 'move', dataset: { play: type }, onclick: () => submit(list[Number(select.value)]) }, `Play ${words(type)}`));
  }));
}

/** For players who know the game's move schema: type a move as JSON (the server judges it).
 *
 * ``kept`` ({open, value}) is the caller's: the box is drawn again after every
 * change of the match, and must come back as the player left it. */
export function typedMove(submit, onBadJson, kept = { open: false, value: '' }) {
  const area = h('textarea', { id: 'typed-move', rows: 2, spellcheck: false, placeholder: '{"type": "…"}' });
  area.value = kept.value;
  area.addEventListener('input', () => { kept.value = area.value; });
  const box = h('details', { class: 'typed', open: kept.open }, h('summary', {}, 'Type a move (JSON)'),
    h('form', {
      onsubmit: (event) => {
        event.preventDefault();
        let move;
        try { move = JSON.parse(area.value); } catch { onBadJson('That is not JSON.'); return; }
        submit(move, { typed: true });
      },
    }, h('label', { for: 'typed-move' }, 'Move'), area, h('button', { type: 'submit', id: 'send-move' }, 'Send move')));
  box.addEventListener('toggle', () => { kept.open = box.open; });
  return box;
}

/** The generic board: the view as a tree. */
export function render(root, ctx) {
  root.append(h('section', { class: 'generic-view', 'aria-label': 'Game view' }, tree(ctx.view)));
}
