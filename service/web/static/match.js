// The match screen: play a seat (token from localStorage) or watch as a spectator.
// The board is the game's renderer; the legal moves come from the API; live
// updates come over SSE; undo goes through the consent flow; a seated player
// may resign, leave the seat to an AI, and ask for a rematch at the end.

import { api, ApiError, allEntries, game as gameInfo, path } from './api.js';
import { h, fill, bdi, joined, withNames } from './dom.js';
import { moveLabel, movesPanel, typedMove } from './generic.js';
import { drawBoard, loadRenderer } from './renderers.js';
import { follow } from './stream.js';
import * as tokens from './tokens.js';

export function seatNames(summary) {
  return summary.seats.map((s, i) => (s && s.name) || `Seat ${i + 1}`);
}

/** The seats still to be taken: ``kept`` for their player in the previous match (a rematch's ``reserved`` seat), else ``open`` to anyone. */
export function unfilled(summary) {
  const out = { kept: [], open: [] };
  summary.seats.forEach((s, i) => {
    if (s && s.reserved) out.kept.push(i);
    else if (!s || s.open) out.open.push(i);
  });
  return out;
}

/** "Finished. Winner: Ana. Scores: Ana 1, Bo 0." as nodes, every name isolated. */
export function outcomeText(outcome, names) {
  if (!outcome) return [];
  const winners = outcome.winners.length ? joined(outcome.winners.map((w) => bdi(names[w])), ' and ') : ['nobody'];
  const scores = joined(outcome.scores.map((s, i) => [bdi(names[i]), ` ${s}`]));
  return ['Finished. Winner: ', winners, '. Scores: ', scores, '.'];
}

/** What an entry says, names isolated; an undo (which has no sentence of its own) says who undid to where. */
export function entryText(entry, names) {
  if (entry.text.length) return withNames(entry.text.join(' '), names);
  if (entry.kind === 'undo') {
    const to = entry.target === undefined ? '' : ` to version ${entry.target}`;
    return entry.seat === null || entry.seat === undefined ? [`Undone${to}.`] : [bdi(names[entry.seat] ?? `Seat ${entry.seat + 1}`), ` undid${to}.`];
  }
  return [entry.kind];
}

// A fork says so, on the match page and in its replay: its history up to the fork is the
// original's, public. Only a game that deals hidden cards re-deals them for the fork (its
// `deal` entry), so only then does the note speak of them.
export function forkNote(summary, entries = []) {
  const from = summary.forked_from;
  if (!from) return null;
  const original = encodeURIComponent(from.match);
  const dealt = entries.some((e) => e.kind === 'deal');
  return h('p', { id: 'fork-note', class: 'fork-note' },
    'Forked from match ', h('a', { href: `#/replay/${original}` }, from.match), ` at version ${from.version}: `,
    'its history up to there is public (', h('a', { href: `/api/matches/${original}/export` }, 'the original\'s export'), ').',
    dealt ? ' What no seat could see there, such as the hidden cards and their order, was dealt anew for this fork.' : '');
}

export function historyList(entries, names, current = null) {
  return h('ol', { class: 'log' }, entries.map((entry) => h('li', {
    class: [entry.undone ? 'undone' : '', entry.version === current ? 'current' : '',
      entry.kind === 'deal' ? 'deal' : ''].join(' ').trim() || null,
    'aria-current': entry.version === current ? 'step' : null,
    dataset: { version: String(entry.version) },
  }, h('span', { class: 'v' }, `v${entry.version}`), ' ', entryText(entry, names), entry.undone ? ' (undone)' : '')));
}

/** Scroll ``box`` so that ``item`` shows, moving it as little as possible (the page itself does not move). */
export function reveal(box, item) {
  if (!item) { box.scrollTop = box.scrollHeight; return; }
  const outer = box.getBoundingClientRect();
  const inner = item.getBoundingClientRect();
  if (inner.bottom > outer.bottom) box.scrollTop += inner.bottom - outer.bottom;
  if (inner.top < outer.top) box.scrollTop -= outer.top - inner.top;
}

// A notice for the next match screen: leaving a seat reopens the match as a spectator's page.
let carried = null;

export async function showMatch(root, matchId, seat) {
  const token = seat === null ? null : tokens.get(matchId, seat);
  if (seat !== null && !token) {
    root.replaceChildren(h('h1', {}, 'No seat here'),
      h('p', {}, `This browser holds no token for seat ${seat + 1} of this match. Open your invitation link, or `),
      h('a', { href: `#/match/${encodeURIComponent(matchId)}` }, 'watch the match'));
    return () => {};
  }
  let summary = await api('GET', `/matches/${path(matchId)}`);
  const info = await gameInfo(summary.game);
  const renderer = await loadRenderer(info);
  let names = seatNames(summary);
  // A rematch keeps seats for the previous match's players: their names there, when that match can be read.
  let previousNames = null;
  if (summary.settings?.rematch_of && unfilled(summary).kept.length) {
    try {
      previousNames = seatNames(await api('GET', `/matches/${path(summary.settings.rematch_of)}`));
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
    }
  }
  let state = null;
  let entries = [];
  let requests = [];
  let busy = false;
  let disposed = false;
  let running = null;
  let again = false;
  // Declared before the first load: a finished match stops them at once.
  let stream = null;
  let timer = null;
  let drawn = '';
  // What had the focus when a move was sent: sending disables the buttons, which drops the focus.
  let focusBeforeMove = null;
  const typed = { open: false, value: '' };
  let confirming = null; // 'resign' or 'leave' while that waits for "Yes"
  let leaving = false; // this page is leaving the seat: the 401s meanwhile are expected, leave() says what happened
  let leaveLevel = (info.ai_levels || [])[0] || null;

  const status = h('p', { id: 'status', class: 'status', role: 'status', 'aria-live': 'polite', tabindex: '-1' });
  const message = h('p', { id: 'message', class: 'message', role: 'alert' });
  const live = h('span', { id: 'live', class: 'live' }, 'connecting…');
  const seatsEl = h('ul', { class: 'seats' });
  const board = h('div', { id: 'board', class: 'board' });
  const movesEl = h('section', { id: 'moves', 'aria-label': 'Your moves' });
  const undoEl = h('section', { id: 'undo', 'aria-label': 'Undo' });
  const seatEl = h('section', { id: 'seat-actions', 'aria-label': 'Your seat' });
  const logEl = h('div', { id: 'history' });
  const who = seat === null ? 'Watching as a spectator' : [`You play seat ${seat + 1} (`, bdi(names[seat]), ')'];
  root.replaceChildren(
    h('h1', {}, info.title),
    h('p', { class: 'who' }, who, ' · ', live, ' · ',
      h('a', { href: `#/replay/${encodeURIComponent(matchId)}${seat === null ? '' : `/seat/${seat}`}` }, 'Replay')),
    ...[forkNote(summary)].filter(Boolean), seatsEl, status, message,
    h('div', { class: 'play' }, board, h('div', { class: 'side' }, movesEl, undoEl, seatEl,
      h('section', { 'aria-label': 'History' }, h('h2', {}, 'History'), logEl))),
  );

  function say(text, kind = 'info') {
    fill(message, text);
    message.className = `message ${kind}`;
  }
  if (carried) { say(carried.text, carried.kind); carried = null; }

  function stop() {
    endStream();
    clearInterval(timer);
  }

  // A finished match has no more moves, but a rematch may still be asked for or accepted
  // (a lifecycle entry): the stream closes, and the slow look at the version (``timer``) stays.
  function endStream() {
    if (stream) stream.close();
    stream = null;
    live.textContent = 'over';
  }

  /** Who plays seat ``i`` now, when an AI took it over (left, or a clock ran out): its level and until when. */
  function takeover(i) {
    return (summary.seat_control || [])[i]?.takeover || null;
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
      say(withNames(done.text.join(' ') || 'Move accepted.', names), 'ok');
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

  async function resign() {
    confirming = null;
    try {
      await api('POST', `/matches/${path(matchId)}/resign`, { token });
      say('You resigned.', 'ok');
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      say(err.text, 'error');
    }
    drawn = '';
    await refresh();
  }

  async function leave() {
    const level = leaveLevel;
    leaving = true;
    try {
      await api('POST', `/matches/${path(matchId)}/leave`, { token, body: { level } });
    } catch (err) {
      leaving = false;
      if (!(err instanceof ApiError)) throw err;
      confirming = null;
      say(err.text, 'error');
      drawn = '';
      await refresh();
      return;
    }
    watchInstead(['You left: an AI (', level, ') plays seat ', String(seat + 1), ' (', bdi(names[seat]), ') now. You are watching the match.']);
  }

  async function rematch() {
    try {
      const next = await api('POST', `/matches/${path(matchId)}/rematch`, { token });
      if (next.token) tokens.put(next.match.id, next.seat, next.token);
      carried = { text: next.match.status === 'waiting'
        ? 'Rematch: it starts when the other players accept it (from their page of the last match).' : 'Rematch.', kind: 'ok' };
      location.hash = `#/match/${encodeURIComponent(next.match.id)}${next.seat === null || next.seat === undefined ? '' : `/seat/${next.seat}`}`;
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      say(err.text, 'error');
    }
  }

  /** The token no longer plays this seat (it left, here or elsewhere): forget it and watch instead. */
  function watchInstead(text) {
    if (disposed) return;
    tokens.remove(matchId, seat);
    carried = { text, kind: 'info' };
    stop();
    disposed = true;
    location.replace(`#/match/${encodeURIComponent(matchId)}`);
  }

  /** A 401 for this seat's token: if the seat was handed to an AI, say so and watch; else stop asking. */
  async function tokenRefused(err) {
    let now = null;
    try { now = await api('GET', `/matches/${path(matchId)}`); } catch { now = null; }
    if (disposed || leaving) return;
    const control = now && (now.seat_control || [])[seat];
    if (control && control.left) {
      const level = control.takeover ? control.takeover.level : 'an AI';
      watchInstead([`Seat ${seat + 1} (`, bdi(names[seat]), `) left the match: an AI (${level}) plays it now, and this browser's token no longer does. You are watching the match.`]);
      return;
    }
    stop();
    say(`${err.text} This page stopped following the match; open your invitation link again.`, 'error');
  }

  function seatLabel(s, i) {
    const now = takeover(i);
    return [bdi(names[i]),
      s && s.ai ? ` (AI: ${s.ai})` : '',
      now ? ` (${(summary.seat_control[i] || {}).left ? 'left; ' : ''}AI ${now.level} plays ${now.until === 'turn' ? 'this turn' : 'it'})` : '',
      s && s.reserved ? [' (kept for ', keptFor(i), ')'] : (!s || s.open ? ' (open)' : '')];
  }

  /** Who a rematch's seat is kept for: that seat's name in the previous match, if known. */
  function keptFor(i) {
    const name = previousNames && previousNames[i];
    return name ? bdi(name) : 'its player';
  }

  function drawStatus() {
    const active = state.active_seats;
    seatsEl.replaceChildren(...summary.seats.map((s, i) => h('li', { class: active.includes(i) ? 'active' : null, dataset: { seat: String(i) } },
      seatLabel(s, i), i === seat ? ' — you' : '', active.includes(i) ? ' ◀ to act' : '')));
    const mine = seat === null ? null : takeover(seat);
    if (state.status === 'finished') fill(status, outcomeText(state.outcome, names));
    else if (state.status === 'waiting') {
      const { kept, open } = unfilled(summary);
      const take = open.length > 1 ? 'a player to take each open seat' : 'a player to take the open seat';
      if (summary.settings?.rematch_of && kept.length) {
        fill(status, `Waiting for the other players to accept the rematch${open.length ? ` and for ${take}` : ''}.`);
      } else if (summary.settings?.rematch_of) fill(status, `Waiting for ${take}.`);
      else fill(status, 'Waiting for every seat to be claimed (see the lobby).');
    } else if (mine && active.includes(seat)) fill(status, `An AI (${mine.level}) plays your seat ${mine.until === 'turn' ? 'this turn' : 'now'} (version ${state.version}).`);
    else if (seat !== null && active.includes(seat)) {
      // Sealed steps (a simultaneous phase) wait unseen by others until you confirm: no new version.
      const sealed = state.sealed_steps ? `, ${state.sealed_steps} step${state.sealed_steps > 1 ? 's' : ''} not yet confirmed` : '';
      fill(status, `Your turn (version ${state.version}${sealed}).`);
    } else fill(status, 'Waiting for ', joined(active.map((i) => bdi(names[i]))), ` (version ${state.version}).`);
  }

  /** A move in the words of the game's board, when its renderer has them (see movesPanel). */
  function labelOf(move) {
    if (typeof renderer.moveLabel !== 'function') return moveLabel(move);
    try {
      return String(renderer.moveLabel(move, { names, view: state.view, seat }) || moveLabel(move));
    } catch {
      return moveLabel(move);
    }
  }

  function drawMoves() {
    const legal = state.legal_moves || [];
    if (seat === null) { movesEl.replaceChildren(); return; }
    fill(movesEl, h('h2', {}, 'Legal moves'),
      legal.length ? movesPanel(legal, submit, labelOf) : h('p', { class: 'quiet' }, 'Nothing to do right now.'),
      state.status === 'active' ? typedMove(submit, (text) => say(text, 'error'), typed) : null);
  }

  function drawUndo() {
    if (seat === null || state.status !== 'active') { undoEl.replaceChildren(); return; }
    const items = requests.map((r) => {
      const asked = [bdi(names[r.seat]), ` asks to undo back to version ${r.target}.`];
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

  function ask(what) {
    confirming = what;
    drawSeat();
    seatEl.querySelector('.cancel')?.focus();
  }

  function drawSeat() {
    if (seat === null || !state) { seatEl.replaceChildren(); return; }
    if (state.status === 'finished') {
      const offers = entries.filter((e) => e.kind === 'lifecycle' && e.action === 'rematch');
      const next = offers[0];
      const there = next && next.next;
      // This browser is in the rematch already (its token is kept): go there, asking again would be refused.
      if (there && tokens.get(there, seat)) {
        fill(seatEl, h('h2', {}, 'Rematch'), h('p', { class: 'quiet' }, 'You are in the rematch.'),
          h('a', { id: 'rematch-link', class: 'button', href: `#/match/${encodeURIComponent(there)}/seat/${seat}` }, 'Go to the rematch'));
        return;
      }
      if (there && offers.some((e) => e.seat === seat)) {
        fill(seatEl, h('h2', {}, 'Rematch'), h('p', { class: 'quiet' }, 'This seat joined the rematch from another browser. '),
          h('a', { id: 'rematch-link', href: `#/match/${encodeURIComponent(there)}` }, 'Watch the rematch'));
        return;
      }
      fill(seatEl, h('h2', {}, 'Rematch'),
        h('p', { class: 'quiet' }, next ? 'A rematch was asked for: same game, options and seats.' : 'The same game, options and seats again.'),
        h('button', { type: 'button', id: 'rematch-button', onclick: rematch }, next ? 'Join the rematch' : 'Rematch'));
      return;
    }
    if (state.status !== 'active') { seatEl.replaceChildren(); return; }
    const heading = h('h2', {}, 'Your seat');
    const what = confirming;
    const cancel = () => { confirming = null; drawSeat(); seatEl.querySelector(`#${what}-button`)?.focus(); };
    if (confirming === 'resign') {
      fill(seatEl, heading, h('p', { id: 'confirm-text' }, 'Resign? The match ends now, and the other seats win.'),
        h('div', { class: 'actions-row' },
          h('button', { type: 'button', id: 'resign-confirm', class: 'danger', onclick: resign }, 'Yes, resign'),
          h('button', { type: 'button', class: 'cancel', id: 'resign-cancel', onclick: cancel }, 'Cancel')));
      return;
    }
    if (confirming === 'leave') {
      fill(seatEl, heading, h('p', { id: 'confirm-text' }, `Leave? An AI (${leaveLevel}) plays your seat for the rest of the match, `,
        'and this browser can no longer play it.'),
      h('div', { class: 'actions-row' },
        h('button', { type: 'button', id: 'leave-confirm', class: 'danger', onclick: leave }, 'Yes, leave'),
        h('button', { type: 'button', class: 'cancel', id: 'leave-cancel', onclick: cancel }, 'Cancel')));
      return;
    }
    const levels = info.ai_levels || [];
    const control = (summary.seat_control || [])[seat];
    const canLeave = levels.length && !control?.left && control?.takeover?.until !== 'match';
    const level = canLeave ? h('select', { id: 'leave-level', 'aria-label': 'AI level that plays your seat',
      onchange: (e) => { leaveLevel = e.target.value; } }, levels.map((l) => h('option', { value: l, selected: l === leaveLevel }, l))) : null;
    fill(seatEl, heading, h('div', { class: 'actions-row' },
      h('button', { type: 'button', id: 'resign-button', onclick: () => ask('resign') }, 'Resign…'),
      canLeave ? [h('button', { type: 'button', id: 'leave-button', onclick: () => ask('leave') }, 'Leave to an AI…'),
        h('label', { for: 'leave-level' }, 'AI level'), level] : null));
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
    const signature = JSON.stringify([state.version, state.status, requests, entries.length, summary.seats,
      summary.seat_control, state.view]);
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
    drawSeat();
    for (const [id, label] of choices) {
      const select = id && movesEl.querySelector(`#${CSS.escape(id)}`);
      const option = select && [...select.options].find((o) => o.textContent === label);
      if (option) select.value = option.value;
    }
    logEl.replaceChildren(historyList(entries, names));
    const note = root.querySelector('#fork-note');
    if (note) note.replaceWith(forkNote(summary, entries));
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
    const humans = summary.seats.filter((s, i) => s && !s.ai && !takeover(i)).length;
    requests = seat !== null && humans > 1 && fresh.status === 'active'
      ? (await api('GET', `/matches/${path(matchId)}/undo-requests`)).requests : [];
    if (disposed) return;
    state = fresh;
    draw();
    if (state.status === 'finished') endStream();
  }

  // One load at a time; a request for another while one runs makes one more run after it.
  function refresh() {
    if (running) { again = true; return running; }
    running = (async () => {
      do {
        again = false;
        try {
          await load();
          // The server answered: a message that it could not be reached is no longer true.
          if (message.textContent.includes('[network-error]')) { message.replaceChildren(); message.className = 'message'; }
        } catch (err) {
          if (!(err instanceof ApiError)) throw err;
          if (disposed) return;
          if (err.status === 401 && seat !== null) {
            if (!leaving) await tokenRefused(err);
            return;
          }
          say(err.text, 'error');
        }
      } while (again && !disposed);
    })().finally(() => { running = null; });
    return running;
  }

  await refresh();
  if (!disposed && state && state.status !== 'finished') {
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
  }
  if (!disposed && state) {
    timer = setInterval(async () => {
      if (busy || disposed) return;
      const over = state && state.status === 'finished';
      if (!over && summary.seats.filter((s, i) => s && !s.ai && !takeover(i)).length > 1) { refresh(); return; }
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
