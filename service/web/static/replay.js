// The replay viewer: any version of a match, with a scrubber, step buttons and
// the event sentences. A seat sees its own view of past versions while the
// match runs; a spectator the public one; after the end, all is public.

import { api, ApiError, allEntries, game as gameInfo, path } from './api.js';
import { h, fill, bdi } from './dom.js';
import { entryText, forkNote, historyList, outcomeText, reveal, seatNames } from './match.js';
import { drawBoard, loadRenderer } from './renderers.js';
import * as tokens from './tokens.js';

export async function showReplay(root, matchId, seat) {
  const token = seat === null ? null : tokens.get(matchId, seat);
  const summary = await api('GET', `/matches/${path(matchId)}`);
  const info = await gameInfo(summary.game);
  const renderer = await loadRenderer(info);
  const names = seatNames(summary);
  const entries = await allEntries(matchId, seat === null ? null : token);
  const last = Math.max(1, summary.version);
  let version = last;
  let ticket = 0;

  const slider = h('input', { id: 'scrubber', type: 'range', min: 1, max: last, step: 1, value: String(version), 'aria-label': 'Version' });
  const label = h('output', { id: 'version-label', for: 'scrubber' });
  const board = h('div', { id: 'board', class: 'board' });
  const sentences = h('div', { id: 'sentences', class: 'sentences' });
  const status = h('p', { id: 'status', class: 'status', role: 'status', 'aria-live': 'polite' });
  const button = (id, text, to) => h('button', { type: 'button', id, onclick: () => go(to()) }, text);

  async function go(target) {
    version = Math.min(last, Math.max(1, target));
    slider.value = String(version);
    label.textContent = `Version ${version} of ${last}`;
    const mine = ++ticket;
    let state;
    try {
      state = await api('GET', `/matches/${path(matchId)}/state?version=${version}`, { token });
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      status.textContent = err.text;
      return;
    }
    if (mine !== ticket) return; // a later step already asked for another version
    drawBoard(board, renderer, {
      match: matchId, view: state.view, seat, names, legalMoves: [], outcome: state.outcome, version: state.version,
      history: entries.filter((e) => e.version <= version),
      status: state.status, activeSeats: state.active_seats, submit: async () => {}, readOnly: true,
    });
    const current = entries.find((e) => e.version === version);
    if (state.outcome) fill(status, outcomeText(state.outcome, names));
    else fill(status, `Version ${version}: `, current ? entryText(current, names) : '');
    sentences.replaceChildren(historyList(entries.filter((e) => e.version <= version), names, version));
    reveal(sentences, sentences.querySelector('li.current'));
  }

  slider.addEventListener('input', () => go(Number(slider.value)));
  root.replaceChildren(
    h('h1', {}, `Replay: ${info.title}`),
    h('p', { class: 'who' }, seat === null ? 'As a spectator sees it' : [`As seat ${seat + 1} (`, bdi(names[seat]), ') sees it'], ' · ',
      h('a', { href: `#/match/${encodeURIComponent(matchId)}${seat === null ? '' : `/seat/${seat}`}` }, 'Back to the match')),
    ...[forkNote(summary, entries)].filter(Boolean),
    h('div', { class: 'scrub' },
      button('first', '⏮ First', () => 1), button('back', '◀ Back', () => version - 1),
      slider, button('forward', 'Forward ▶', () => version + 1), button('last', 'Last ⏭', () => last), label),
    status,
    h('div', { class: 'play' }, board, h('section', { class: 'side', 'aria-label': 'What happened' }, h('h2', {}, 'Events'), sentences)),
  );
  await go(version);
  return () => { ticket += 1; };
}
