// The lobby: the list of matches (watch, replay, claim an open seat) and the form
// that creates one, with the options form generated from the game's option schema.

import { api, ApiError, game as gameInfo, path } from './api.js';
import { h, bdi, fill, joined, words } from './dom.js';
import * as tokens from './tokens.js';

/** An option the browser can tell is wrong before asking: which field, and why. */
export class OptionError extends Error {
  constructor(field, text) {
    super(text);
    this.field = field;
  }
}

/** Show ``text`` in ``box`` (a role="alert" next to the form it is about), scrolled into view. */
function sayHere(box, text) {
  box.textContent = text;
  if (!text) return;
  box.scrollIntoView({ block: 'nearest' });
  box.focus({ preventScroll: true });
}

/** One form field per option, from its JSON Schema; ``read()`` returns only the changed options
 * (and throws an OptionError for a field it can tell is wrong). */
export function optionsForm(schema) {
  const fields = [];
  const rows = Object.entries(schema?.properties || {}).map(([name, prop]) => {
    const id = `opt-${name}`;
    const label = h('label', { for: id }, words(name));
    const hint = prop.description ? h('small', { class: 'hint' }, prop.description) : null;
    let input;
    let read;
    const fallback = prop.default === undefined || prop.default === null ? '' : prop.default;
    if (prop.type === 'boolean') {
      input = h('input', { id, type: 'checkbox', checked: Boolean(prop.default) });
      read = () => (input.checked === Boolean(prop.default) ? undefined : input.checked);
      fields.push(read);
      return h('div', { class: 'field check' }, input, label, hint);
    }
    if (Array.isArray(prop.enum)) {
      input = h('select', { id }, prop.enum.map((v) => h('option', { value: String(v), selected: v === prop.default }, String(v))));
      read = () => (input.value === String(fallback) ? undefined : prop.enum.find((v) => String(v) === input.value));
    } else if (prop.type === 'integer' || prop.type === 'number') {
      input = h('input', { id, type: 'number', min: prop.minimum, max: prop.maximum, step: prop.type === 'integer' ? 1 : 'any', value: String(fallback), placeholder: prop.nullable ? 'none' : '' });
      read = () => (input.value === String(fallback) ? undefined : (input.value === '' ? null : Number(input.value)));
    } else if (prop.type === 'array' && ['integer', 'number'].includes(prop.items?.type)) {
      input = h('input', { id, type: 'text', inputmode: 'numeric', value: Array.isArray(prop.default) ? prop.default.join(', ') : '', placeholder: 'e.g. 3, 4, 5' });
      read = () => {
        if (input.value.trim() === '') return undefined;
        const items = input.value.split(/[\s,]+/).filter(Boolean);
        const bad = items.findIndex((t) => !Number.isFinite(Number(t)));
        if (bad >= 0) throw new OptionError(input, `${words(name)}: item ${bad + 1} ("${items[bad]}") is not a number.`);
        return items.map(Number);
      };
    } else {
      input = h('input', { id, type: 'text', value: typeof fallback === 'object' ? JSON.stringify(fallback) : String(fallback) });
      read = () => {
        const text = input.value.trim();
        if (text === String(fallback)) return undefined;
        return /^-?\d+$/.test(text) ? Number(text) : text;
      };
    }
    fields.push(read);
    return h('div', { class: 'field' }, label, input, hint);
  });
  const names = Object.keys(schema?.properties || {});
  return {
    node: rows.length ? h('fieldset', { class: 'options' }, h('legend', {}, 'Options'), rows) : null,
    read() {
      const out = {};
      names.forEach((name, i) => { const v = fields[i](); if (v !== undefined) out[name] = v; });
      return out;
    },
  };
}

function seatRows(game, count) {
  const levels = game.ai_levels;
  return Array.from({ length: count }, (_, i) => {
    const kind = h('select', { id: `seat-${i}-kind`, 'aria-label': `Seat ${i + 1} player` },
      h('option', { value: 'human', selected: i === 0 }, 'Human'),
      h('option', { value: 'open' }, 'Open (someone claims it)'),
      levels.map((level) => h('option', { value: `ai:${level}`, selected: i > 0 && level === levels[0] }, `AI: ${level}`)));
    const name = h('input', { id: `seat-${i}-name`, type: 'text', maxlength: 64, value: `Player ${i + 1}`, 'aria-label': `Seat ${i + 1} name` });
    return { row: h('div', { class: 'seat-row' }, h('span', {}, `Seat ${i + 1}`), name, kind), name, kind };
  });
}

function createForm(games, onCreated) {
  const gameSelect = h('select', { id: 'new-game' }, games.map((g) => h('option', { value: g.slug }, g.title)));
  const countSelect = h('select', { id: 'new-count' });
  const seatsBox = h('fieldset', { class: 'seats-form' }, h('legend', {}, 'Seats'));
  const optionsBox = h('div');
  const seed = h('input', { id: 'new-seed', type: 'text', maxlength: 128, placeholder: 'random' });
  const problem = h('div', { id: 'game-problem', class: 'message error', role: 'alert' });
  const create = h('button', { type: 'submit', id: 'create', disabled: true }, 'Create match');
  const formProblem = h('p', { id: 'create-problem', class: 'message error', role: 'alert', tabindex: '-1' });
  let rows = [];
  let options = { read: () => ({}) };
  let current = null;
  let asking = 0;

  // The form is for the game the select shows, or for none: while that game's
  // description loads (or after it failed) the form is not ready and cannot create.
  async function pickGame() {
    const mine = ++asking;
    const slug = gameSelect.value;
    current = null;
    delete form.dataset.game;
    create.disabled = true;
    problem.replaceChildren();
    let got;
    try {
      got = await gameInfo(slug);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      if (mine !== asking) return;
      seatsBox.replaceChildren(h('legend', {}, 'Seats'));
      optionsBox.replaceChildren();
      fill(problem, `This game's description could not be loaded: ${err.text} `,
        h('button', { type: 'button', id: 'game-retry', onclick: () => pickGame() }, 'Try again'));
      return;
    }
    if (mine !== asking) return; // another game was chosen meanwhile
    current = got;
    countSelect.replaceChildren(...Array.from({ length: current.max_players - current.min_players + 1 },
      (_, i) => h('option', { value: String(current.min_players + i) }, String(current.min_players + i))));
    countSelect.value = String(Math.max(current.min_players, Math.min(2, current.max_players))); // two, where allowed
    pickCount();
    options = optionsForm(current.options_schema);
    optionsBox.replaceChildren(...[options.node].filter(Boolean));
    create.disabled = false;
    form.dataset.game = current.slug; // the form is ready for this game
  }
  function pickCount() {
    if (!current) return;
    rows = seatRows(current, Number(countSelect.value));
    seatsBox.replaceChildren(h('legend', {}, 'Seats'), ...rows.map((r) => r.row));
  }
  gameSelect.addEventListener('change', () => { pickGame(); });
  countSelect.addEventListener('change', pickCount);

  const form = h('form', {
    id: 'create-form',
    onsubmit: async (event) => {
      event.preventDefault();
      if (!current || current.slug !== gameSelect.value) return; // not ready: the button says so (disabled)
      const seats = rows.map((r) => (r.kind.value === 'open' ? null
        : { name: r.name.value.trim() || 'Player', ai: r.kind.value.startsWith('ai:') ? r.kind.value.slice(3) : null }));
      formProblem.textContent = '';
      let chosen;
      try {
        chosen = options.read();
      } catch (err) {
        if (!(err instanceof OptionError)) throw err;
        sayHere(formProblem, err.message);
        err.field.focus();
        return;
      }
      const body = { game: current.slug, seats, options: chosen };
      if (seed.value.trim()) body.seed = seed.value.trim();
      try {
        onCreated(await api('POST', '/matches', { body }));
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        sayHere(formProblem, err.text);
      }
    },
  },
  h('div', { class: 'field' }, h('label', { for: 'new-game' }, 'Game'), gameSelect),
  problem,
  h('div', { class: 'field' }, h('label', { for: 'new-count' }, 'Players'), countSelect),
  seatsBox, optionsBox,
  h('div', { class: 'field' }, h('label', { for: 'new-seed' }, 'Seed (optional)'), seed),
  formProblem, create);
  pickGame();
  return form;
}

function invitations(created) {
  const id = created.match.id;
  const items = Object.entries(created.tokens).map(([seat, token]) => {
    tokens.put(id, Number(seat), token);
    const link = tokens.invitation(id, seat, token);
    const name = created.match.seats[seat].name;
    const field = h('input', { type: 'text', readonly: true, value: link, 'aria-label': `Invitation link for ${name}` });
    return h('li', {},
      h('a', { href: `#/match/${encodeURIComponent(id)}/seat/${seat}`, class: 'play-link' }, 'Play as ', bdi(name), ` (seat ${Number(seat) + 1})`), ' ',
      h('button', {
        type: 'button',
        onclick: async (event) => {
          try { await navigator.clipboard.writeText(link); event.target.textContent = 'Copied'; } catch {
            field.select(); event.target.textContent = 'Select and copy the link';
          }
        },
      }, 'Copy invitation link'), field);
  });
  return h('section', { id: 'created', 'aria-label': 'Match created' }, h('h2', {}, 'Match created'),
    h('p', {}, 'Each link holds a seat\'s secret token (after the #, so it never reaches a server log). Send it to that player.'),
    h('ul', { class: 'invites' }, items),
    h('p', {}, h('a', { href: `#/match/${encodeURIComponent(id)}` }, 'Watch this match')));
}

function matchRow(match, titles, onClaim, problems) {
  const mine = tokens.seats(match.id);
  // A rematch keeps its players' seats for them: such a seat is not open to anyone, and not offered.
  const seats = joined(match.seats.map((s, i) => (s && s.reserved ? `seat ${i + 1} kept for its player`
    : (s && !s.open ? [bdi(s.name ?? `Seat ${i + 1}`), s.ai ? ` (AI ${s.ai})` : ''] : `seat ${i + 1} open`))));
  const open = match.seats.map((s, i) => (!s || s.open ? i : null)).filter((i) => i !== null);
  const claim = open.map((i) => {
    const name = h('input', { type: 'text', maxlength: 64, placeholder: 'your name', 'aria-label': `Your name for seat ${i + 1}`, required: true });
    // A refused claim says so here, by its card (it stays through the list's reloads until the next try).
    const problem = h('p', { class: 'message error claim-problem', role: 'alert', tabindex: '-1' }, problems.get(`${match.id}/${i}`) || '');
    return h('form', { class: 'claim', onsubmit: async (e) => { e.preventDefault(); await onClaim(match, i, name.value.trim(), problem); } },
      name, h('button', { type: 'submit' }, `Claim seat ${i + 1}`), problem);
  });
  const id = encodeURIComponent(match.id);
  return h('tr', { dataset: { match: match.id } },
    h('td', { class: 'game', dataset: { label: 'Game' } }, titles[match.game] || match.game),
    h('td', { dataset: { label: 'Status' } }, match.status),
    h('td', { dataset: { label: 'Seats' } }, seats),
    h('td', { class: claim.length ? 'claims' : 'no-claim' }, claim.length ? claim : '—'),
    h('td', { class: 'actions' },
      mine.map((s) => h('a', { href: `#/match/${id}/seat/${s}` }, `Play seat ${s + 1}`)),
      h('a', { href: `#/match/${id}` }, 'Watch'), h('a', { href: `#/replay/${id}` }, 'Replay')));
}

export async function showLobby(root) {
  const games = await api('GET', '/games');
  const titles = Object.fromEntries(games.map((g) => [g.slug, g.title]));
  const message = h('p', { id: 'message', class: 'message', role: 'alert' });
  const say = (text, kind) => { message.textContent = text; message.className = `message ${kind}`; };
  const list = h('tbody');
  const createdBox = h('div');
  const filterGame = h('select', { id: 'filter-game' }, h('option', { value: '' }, 'all games'), games.map((g) => h('option', { value: g.slug }, g.title)));
  const filterStatus = h('select', { id: 'filter-status' }, ['', 'waiting', 'active', 'finished'].map((s) => h('option', { value: s }, s || 'any status')));

  const claimProblems = new Map();
  async function claim(match, seat, name, problem) {
    const key = `${match.id}/${seat}`;
    claimProblems.delete(key);
    sayHere(problem, '');
    try {
      const got = await api('POST', `/matches/${path(match.id)}/seats/${seat}`, { body: { name } });
      tokens.put(match.id, got.seat, got.token);
      location.hash = `#/match/${encodeURIComponent(match.id)}/seat/${got.seat}`;
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      claimProblems.set(key, err.text);
      sayHere(problem, err.text);
    }
  }

  // A list that cannot be loaded says so (and the last list stays); the next load that works takes that back.
  let listProblem = null;
  async function reload() {
    const query = new URLSearchParams({ limit: '50' });
    if (filterGame.value) query.set('game', filterGame.value);
    if (filterStatus.value) query.set('status', filterStatus.value);
    let matches;
    try {
      ({ matches } = await api('GET', `/matches?${query}`));
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      listProblem = `The list of matches could not be loaded: ${err.text} Refresh to try again.`;
      say(listProblem, 'error');
      return;
    }
    if (listProblem !== null && message.textContent === listProblem) say('', 'info');
    listProblem = null;
    list.replaceChildren(...matches.map((m) => matchRow(m, titles, claim, claimProblems)));
    if (!matches.length) list.append(h('tr', {}, h('td', { colspan: 5 }, 'No matches yet: create one.')));
  }
  filterGame.addEventListener('change', reload);
  filterStatus.addEventListener('change', reload);

  root.replaceChildren(
    h('h1', {}, 'Lobby'), message,
    h('div', { class: 'lobby' },
      h('section', { 'aria-labelledby': 'new-title' }, h('h2', { id: 'new-title' }, 'New match'),
        createForm(games, (created) => {
          createdBox.replaceChildren(invitations(created));
          say('Match created.', 'ok');
          reload();
          createdBox.querySelector('a')?.focus();
        }), createdBox),
      h('section', { 'aria-labelledby': 'list-title' }, h('h2', { id: 'list-title' }, 'Matches'),
        h('div', { class: 'filters' }, h('label', { for: 'filter-game' }, 'Game '), filterGame, ' ',
          h('label', { for: 'filter-status' }, 'Status '), filterStatus, ' ',
          h('button', { type: 'button', id: 'refresh', onclick: reload }, 'Refresh')),
        h('div', { class: 'scroll' }, h('table', { class: 'matches' },
          h('thead', {}, h('tr', {}, ['Game', 'Status', 'Seats', 'Open seats', ''].map((c) => h('th', { scope: 'col' }, c)))),
          list)))));
  await reload();
  // New matches appear by themselves, except while someone types a name into a claim form.
  const timer = setInterval(() => {
    if (!list.contains(document.activeElement)) reload();
  }, 10000);
  return () => clearInterval(timer);
}
