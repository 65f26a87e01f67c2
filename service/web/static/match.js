// The match screen: play a seat (token from localStorage) or watch as a spectator.
// The board is the game's renderer; the legal moves come from the API; live
// updates come over SSE; undo goes through the consent flow.

import { api, ApiError, allEntries, game as gameInfo, path } from './api.js';
import { h, fill } from './dom.js';
import { movesPanel, typedMove } from './generic.js';
import { drawBoard, loadRenderer } from './renderers.js';
import { follow } from './stream.js';
import * as tokens from './tokens.js';

export function seatNames(summary) {
  return summary.seats.map((s, i) => (s && s.name) || `Seat ${i}`);
}

export function outcomeText(outcome, names) {
  if (!outcome) return '';
  const winners = outcome.winners.map((w) => names[w]).join(' and ') || 'nobody';
  const scores = outcome.scores.map((s, i) => `${names[i]} ${s}`).join(', ');
  return `Finished. Winner: ${winners}. Scores: ${scores}.`;
}

// A fork says so, on the match page and in its replay: its history up to the fork is the
// original's, public (the hands dealt by then included), and what no seat could see there
// was dealt anew (its `deal` entry).
export function forkNote(summary) {
  const from = summary.forked_from;
  if (!from) return null;
  const original = encodeURIComponent(from.match);
  return h('p', { id: 'fork-note', class: 'fork-note' },
    'A fork of match ', h('a', { href: `#/replay/${original}` }, from.match), ` at version ${from.version}. `,
    'Its history up to there is public, the hands held then included (',
    h('a', { href: `/api/matches/${original}/export` }, 'the original\'s export'),
    '); what no seat could see there, such as the order of the draw pile, was dealt anew for this fork.');
}

export function historyList(entries, names, current = null) {
  return h('ol', { class: 'log' }, entries.map((entry) => h('li', {
    class: [entry.undone ? 'undone' : '', entry.version === current ? 'current' : '',
      entry.kind === 'deal' ? 'deal' : ''].join(' ').trim() || null,
    'aria-current': entry.version === current ? 'step' : null,
    dataset: { version: String(entry.version) },
  }, h('span', { class: 'v' }, `v${entry.version}`), ' ',
  (entry.text.length ? entry.text : [entry.kind]).join(' '), entry.undone ? ' (undone)' : '')));
}

/** Scroll ``box`` so that ``item`` shows, moving it as little as possible (the page itself does not move). */
export function reveal(box, item) {
  if (!item) { box.scrollTop = box.scrollHeight; return; }
  const outer = box.getBoundingClientRect();
  const inner = item.getBoundingClientRect();
  if (inner.bottom > outer.bottom) box.scrollTop += inner.bottom - outer.bottom;
  if (inner.top < outer.top) box.scrollTop -= outer.top - inner.top;
}

export async function showMatch(root, matchId, seat) {
  const token = seat === null ? null : tokens.get(matchId, seat);
  if (seat !== null && !token) {
    root.replaceChildren(h('h1', {}, 'No seat here'),
      h('p', {}, `This browser holds no token for seat ${seat} of this match. Open your invitation link, or `),
      h('a', { href: `#/match/${encodeURIComponent(matchId)}` }, 'watch the match'));
    return () => {};
  }
  let summary = await api('GET', `/matches/${path(matchId)}`);
  const info = await gameInfo(summary.game);
  const renderer = await loadRenderer(info);
  let names = seatNames(summary);
  let state = null;
  let entries = [];
  let requests = [];
  let busy = false;
  let disposed = false;
  let running = null;
  let again = false;
  let drawn = '';
  // What had the focus when a move was sent: sending disables the buttons, which drops the focus.
  let focusBeforeMove = null;
  const typed = { open: false, value: '' };

  const status = h('p', { id: 'status', class: 'status', role: 'status', 'aria-live': 'polite', tabindex: '-1' });
  const message = h('p', { id: 'message', class: 'message', role: 'alert' });
  const live = h('span', { id: 'live', class: 'live' }, 'connecting…');
  const seatsEl = h('ul', { class: 'seats' });
  const board = h('div', { id: 'board', class: 'board' });
  const movesEl = h('section', { id: 'moves', 'aria-label': 'Your moves' });
  const undoEl = h('section', { id: 'undo', 'aria-label': 'Undo' });
  const logEl = h('div', { id: 'history' });
  const who = seat === null ? 'Watching as a spectator' : `You play seat ${seat} (${names[seat]})`;
  root.replaceChildren(
    h('h1', {}, info.title),
    h('p', { class: 'who' }, who, ' · ', live, ' · ',
      h('a', { href: `#/replay/${encodeURIComponent(matchId)}${seat === null ? '' : `/seat/${seat}`}` }, 'Replay')),
    ...[forkNote(summary)].filter(Boolean), seatsEl, status, message,
    h('div', { class: 'play' }, board, h('div', { class: 'side' }, movesEl, undoEl,
      h('section', { 'aria-label': 'History' }, h('h2', {}, 'History'), logEl))),
  );

  function say(text, kind = 'info') {
    message.textContent = text;
    message.className = `message ${kind}`;
  }

  async function submit(move, how = {}) {
    if (busy || !state) return false;
    busy = true;
    focusBeforeMove = focusKey(document.activeElement);
    movesEl.querySelectorAll('button').forEach((b) => { b.disabled = true; });
    let accepted = false;
    try {
      const done = await api('POST', `/matches/${path(matchId)}/moves`,
        { token, body: { move, expected_version: state.version } });
      accepted = true;
      if (how.typed) typed.value = '';
      say(done.text.join(' ') || 'Move accepted.', 'ok');
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      say(err.code === 'stale-version' ? `The match moved on; here is the new position. ${err.text}` : err.text, 'error');
    } finally {
      busy = false;
      drawn = ''; // the buttons were disabled: draw again even when nothing changed
      await refresh();
    }
    return accepted;
  }

  async function undo() {
    try {
      const done = await api('POST', `/matches/${path(matchId)}/undo`, { token, body: { steps: 1 } });
      say(done.status === 'applied' ? 'Your last move was undone.' : 'Undo requested: waiting for the other players to approve.', 'ok');
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      say(err.text, 'error');
    }
    await refresh();
  }

  async function vote(request, approve) {
    try {
      const done = await api('POST', `/matches/${path(matchId)}/undo-requests/${path(request.id)}`, { token, body: { approve } });
      say(approve ? `You approved the undo (${done.request.status}).` : 'You refused the undo.', 'ok');
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      say(err.text, 'error');
    }
    await refresh();
  }

  function drawStatus() {
    const active = state.active_seats;
    seatsEl.replaceChildren(...summary.seats.map((s, i) => h('li', { class: active.includes(i) ? 'active' : null },
      names[i], s && s.ai ? ` (AI: ${s.ai})` : '', !s || s.open ? ' (open)' : '', i === seat ? ' — you' : '',
      active.includes(i) ? ' ◀ to act' : '')));
    if (state.status === 'finished') status.textContent = outcomeText(state.outcome, names);
    else if (state.status === 'waiting') status.textContent = 'Waiting for every seat to be claimed (see the lobby).';
    else if (seat !== null && active.includes(seat)) {
      // Sealed steps (a simultaneous phase) wait unseen by others until you confirm: no new version.
      const sealed = state.sealed_steps ? `, ${state.sealed_steps} step${state.sealed_steps > 1 ? 's' : ''} not yet confirmed` : '';
      status.textContent = `Your turn (version ${state.version}${sealed}).`;
    }
    else status.textContent = `Waiting for ${active.map((i) => names[i]).join(', ')} (version ${state.version}).`;
  }

  function drawMoves() {
    const legal = state.legal_moves || [];
    if (seat === null) { movesEl.replaceChildren(); return; }
    fill(movesEl, h('h2', {}, 'Legal moves'),
      legal.length ? movesPanel(legal, submit) : h('p', { class: 'quiet' }, 'Nothing to do right now.'),
      state.status === 'active' ? typedMove(submit, (text) => say(text, 'error'), typed) : null);
  }

  function drawUndo() {
    if (seat === null || state.status !== 'active') { undoEl.replaceChildren(); return; }
    const items = requests.map((r) => {
      const asked = `${names[r.seat]} asks to undo back to version ${r.target}.`;
      if (r.seat === seat) return h('li', {}, 'Your undo request is waiting for approval.');
      if (String(seat) in r.votes && r.votes[String(seat)] === null) {
        return h('li', { class: 'ask' }, asked, ' ',
          h('button', { type: 'button', class: 'approve', onclick: () => vote(r, true) }, 'Approve undo'), ' ',
          h('button', { type: 'button', class: 'refuse', onclick: () => vote(r, false) }, 'Refuse undo'));
      }
      return h('li', {}, asked, ' Waiting for the other votes.');
    });
    fill(undoEl, h('h2', {}, 'Undo'),
      h('button', { type: 'button', id: 'undo-button', onclick: undo }, 'Undo my last move'),
      items.length ? h('ul', { class: 'requests' }, items) : null);
  }

  // -- redrawing without losing the player's place ------------------------------

  /** A description of ``el`` that finds its counterpart after a redraw: its id, else its
   * tag, first class and data attributes, else its text, and which of the alike it is. */
  function focusKey(el) {
    if (!el || el === root || !root.contains(el)) return null;
    const keyboard = el.matches(':focus-visible'); // reached by keyboard, not by a click
    if (el.id) return { selector: `#${CSS.escape(el.id)}`, text: null, index: 0, keyboard };
    const data = [...el.attributes].filter((a) => a.name.startsWith('data-'))
      .map((a) => `[${a.name}="${CSS.escape(a.value)}"]`).join('');
    const cls = el.classList.length ? `.${CSS.escape(el.classList[0])}` : '';
    const selector = `${CSS.escape(el.localName)}${cls}${data}`;
    const text = data ? null : el.textContent.trim();
    const alike = [...root.querySelectorAll(selector)].filter((e) => text === null || e.textContent.trim() === text);
    return { selector, text, index: Math.max(0, alike.indexOf(el)), keyboard };
  }

  function findKey(key) {
    if (!key) return null;
    const alike = [...root.querySelectorAll(key.selector)]
      .filter((e) => (key.text === null || e.textContent.trim() === key.text) && !e.disabled);
    return alike[Math.min(key.index, alike.length - 1)] || null;
  }

  function draw() {
    // Redraw only on news: the view too, since a seat's own sealed steps (and their undo)
    // change it without a new version. What the player is doing survives a redraw: the
    // typed move (kept in ``typed``), the choice in each list of moves, and the focus.
    const signature = JSON.stringify([state.version, state.status, requests, entries.length, summary.seats, state.view]);
    if (signature === drawn) return;
    drawn = signature;
    const focused = document.activeElement;
    const key = root.contains(focused) ? focusKey(focused) : focusBeforeMove;
    const caret = focused && 'selectionStart' in focused && root.contains(focused)
      ? [focused.selectionStart, focused.selectionEnd] : null;
    const choices = [...movesEl.querySelectorAll('select')].map((s) => [s.id, s.selectedOptions[0]?.textContent]);
    const scroller = logEl.scrollHeight - logEl.scrollTop - logEl.clientHeight;
    const followLog = !logEl.childElementCount || scroller < 24; // at the bottom, or a first draw: keep to the newest
    focusBeforeMove = null;

    drawStatus();
    drawBoard(board, renderer, {
      match: matchId, view: state.view, seat, names, legalMoves: state.legal_moves || [], outcome: state.outcome, history: entries,
      version: state.version, status: state.status, activeSeats: state.active_seats, submit, readOnly: seat === null,
    });
    drawMoves();
    drawUndo();
    for (const [id, label] of choices) {
      const select = id && movesEl.querySelector(`#${CSS.escape(id)}`);
      const option = select && [...select.options].find((o) => o.textContent === label);
      if (option) select.value = option.value;
    }
    logEl.replaceChildren(historyList(entries, names));
    if (followLog) logEl.scrollTop = logEl.scrollHeight;

    if (key && !root.contains(document.activeElement)) {
      // Players keep their place: the same control if it is still there, else (a keyboard
      // player's) the first move there is, else the status line. The page scrolls only to
      // show a keyboard player a control somewhere else.
      const same = findKey(key);
      const again = same || (key.keyboard
        ? root.querySelector('#board button:not([disabled]), #moves button.move:not([disabled])') || status : null);
      if (again) again.focus({ preventScroll: Boolean(same) || !key.keyboard });
      if (caret && caret[0] !== null && same && 'setSelectionRange' in same) same.setSelectionRange(...caret);
    }
  }

  async function load() {
    const [fresh, now] = await Promise.all([
      api('GET', `/matches/${path(matchId)}/state?include=legal_moves`, { token }),
      api('GET', `/matches/${path(matchId)}`),
    ]);
    summary = now;
    names = seatNames(summary);
    const known = entries.length ? entries.at(-1).version : 0;
    const added = await allEntries(matchId, token, known);
    // An undo entry marks earlier entries undone: read the whole history again.
    entries = added.some((e) => e.kind === 'undo') ? await allEntries(matchId, token) : entries.concat(added);
    const humans = summary.seats.filter((s) => s && !s.ai).length;
    requests = seat !== null && humans > 1 && fresh.status === 'active'
      ? (await api('GET', `/matches/${path(matchId)}/undo-requests`)).requests : [];
    if (disposed) return;
    state = fresh;
    draw();
    if (state.status === 'finished') stop();
  }

  // One load at a time; a request for another while one runs makes one more run after it.
  function refresh() {
    if (running) { again = true; return running; }
    running = (async () => {
      do {
        again = false;
        try { await load(); } catch (err) {
          if (!(err instanceof ApiError)) throw err;
          say(err.text, 'error');
        }
      } while (again && !disposed);
    })().finally(() => { running = null; });
    return running;
  }

  // Declared before the first load: a finished match stops them at once.
  let stream = null;
  let timer = null;
  function stop() {
    if (stream) stream.close();
    clearInterval(timer);
    live.textContent = 'over';
  }
  await refresh();
  if (state && state.status !== 'finished') {
    stream = follow(matchId, token, state.version, {
      onEntry: () => refresh(),
      onState: (s) => {
        const was = live.textContent;
        live.textContent = s;
        if (s === 'live' && was !== 'live' && was !== 'connecting…') refresh();
      },
    });
    // Undo requests are not stream entries: with other humans seated, ask for them now and then.
    // Otherwise a cheap look at the version catches up whatever the stream missed.
    timer = setInterval(async () => {
      if (busy || disposed) return;
      if (summary.seats.filter((s) => s && !s.ai).length > 1) { refresh(); return; }
      try {
        const now = await api('GET', `/matches/${path(matchId)}`);
        if (state && now.version !== state.version) refresh();
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
      }
    }, 3000);
  }
  return () => { disposed = true; stop(); };
}
