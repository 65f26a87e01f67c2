// Tiny Stellar Empires: every seat's empire row (route ends, attacks,
// ambassadors), your hand and homeworld, the discard pile, and the standing:
// symbol majorities and scores as the plugin's scoring computes them (the final
// scoring once the game is over).
//
// Everything drawn comes from the view (its "set" describes the cards); every
// button is one of ctx.legalMoves.

const style = document.createElement('link');
style.rel = 'stylesheet';
style.href = new URL('./renderer.css', import.meta.url).href;
document.head.append(style);

const SYMBOLS = { military: '⚔', population: '☺', science: '⚗', trade: '⚖', culture: '♫' };

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

const words = (s) => String(s).replace(/_/g, ' ');
const symbol = (s) => h('span', { class: `sym s-${s}`, title: s }, `${SYMBOLS[s] || ''} ${s}`);

function label(move, set) {
  const name = (id) => (set.names && set.names[id]) || id;
  switch (move.type) {
    case 'play_empire': return `Play ${name(move.card)} (side ${move.orientation})`;
    case 'pay': return `Pay with ${name(move.card)}`;
    case 'attack': return `${move.mode === 'raid' ? 'Raid' : 'Invade'} with ${move.card}`;
    case 'ambassador': return `Ambassador ${move.card} (${set.ambassador[move.card]?.[move.end] ?? move.end} end)`;
    case 'use_ability': return 'Use ability';
    case 'decline_ability': return 'Decline ability';
    case 'exchange': return move.cards.length ? `Exchange ${move.cards.map(name).join(', ')}` : 'Exchange nothing';
    default: {
      const rest = Object.entries(move).filter(([k]) => k !== 'type')
        .map(([k, v]) => `${words(k)} ${Array.isArray(v) ? v.map(name).join(', ') || 'none' : name(v)}`);
      return [words(move.type), ...rest].join(' · ');
    }
  }
}

/** An empire card as it lies in a row: route ends, the active half, attack and ambassador. */
function empireCard(entry, set, buttons) {
  const card = set.empire[entry.id];
  const half = card[entry.o];
  const [left, right] = card.routes ? (entry.o === 'A' ? card.routes : [card.routes[1], card.routes[0]]) : ['W', 'W'];
  const ability = half.ability ? `${words(half.ability)} (${set.abilities[half.ability] ? words(set.abilities[half.ability]) : ''})` : null;
  return h('article', { class: `empire ${card.kind} ${entry.atk ? 'attacked' : ''}`, 'data-card': entry.id },
    h('div', { class: 'routes' }, h('span', { class: 'route', title: 'left route end' }, `◀${left}`),
      h('strong', {}, (set.names && set.names[entry.id]) || entry.id), h('span', { class: 'route', title: 'right route end' }, `${right}▶`)),
    h('p', { class: 'half' }, `${entry.id} · side ${entry.o} · ${half.points} VP`),
    half.symbols.length ? h('p', { class: `symbols ${entry.atk && entry.atk.mode === 'raid' ? 'lost' : ''}` }, half.symbols.map(symbol)) : null,
    ability ? h('p', { class: `ability ${entry.atk && entry.atk.mode === 'invasion' ? 'lost' : ''}` }, ability) : null,
    entry.atk ? h('p', { class: 'atk' }, `${entry.atk.mode === 'raid' ? 'Raided' : 'Invaded'} (${entry.atk.id})`) : null,
    entry.amb ? h('p', { class: 'amb' }, `Ambassador ${entry.amb.id}: `, symbol(set.ambassador[entry.amb.id][entry.amb.end]), ' ×2') : null,
    buttons.length ? h('div', { class: 'card-moves' }, buttons) : null);
}

function handCard(id, set, buttons, toggle) {
  const name = (set.names && set.names[id]) || id;
  let details = null;
  if (set.empire[id]) {
    const card = set.empire[id];
    const routes = card.routes ? `routes ${card.routes[0]}|${card.routes[1]}` : 'wormhole';
    details = ['A', 'B'].map((side) => h('p', { class: 'half' }, `${side}: ${card[side].points} VP `, card[side].symbols.map(symbol),
      card[side].ability ? ` · ${words(card[side].ability)}` : ''));
    details.unshift(h('p', { class: 'half' }, `cost ${card.cost} · ${routes}`));
  } else if (set.attack[id]) {
    details = h('p', { class: 'half' }, 'Raid / Invasion');
  } else if (set.ambassador[id]) {
    details = h('p', { class: 'half' }, 'Ambassador: ', set.ambassador[id].map(symbol));
  }
  return h('article', { class: `hand-card k-${id[0]}`, 'data-card': id }, h('strong', {}, name), ` ${id}`, details,
    toggle ? h('label', { class: 'pick' }, toggle, ' exchange this card') : null,
    buttons.length ? h('div', { class: 'card-moves' }, buttons) : null);
}

const CATEGORIES = ['cards', 'abilities', 'majorities', 'mission', 'tucked'];

/**
 * The standing as the plugin's scoring computes it (view.standing): each symbol's counts, its
 * leaders and their VP, and each seat's points as if the game ended now. Nothing is counted here.
 */
function standingTables(view, names) {
  const st = view.standing;
  if (!st) return null;
  const final = st.basis === 'final';
  const seatHeads = names.map((name, seat) => h('th', { scope: 'col', 'data-seat': String(seat) },
    h('bdi', {}, name), seat === view.seat ? ' (you)' : ''));
  const majorities = h('section', { class: 'majorities', 'aria-label': 'Symbol majorities' },
    h('h3', {}, final ? 'Symbol majorities' : 'Symbol majorities now'),
    h('div', { class: 'scroll' }, h('table', {},
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'symbol'), seatHeads.map((th) => th.cloneNode(true)))),
      h('tbody', {}, st.majorities.map((m) => h('tr', { 'data-symbol': m.symbol }, h('th', { scope: 'row' }, symbol(m.symbol)),
        m.counts.map((count, seat) => {
          const leads = m.leaders.includes(seat);
          return h('td', { class: leads ? 'lead' : null, 'data-symbol': m.symbol, 'data-seat': String(seat) },
            h('span', { class: 'count' }, String(count)),
            leads ? h('span', { class: 'vp', title: m.leaders.length > 1 ? 'tied leader' : 'sole leader' }, ` +${m.points[seat]} VP`) : null);
        })))))),
    h('p', { class: 'quiet' }, final ? 'Homeworlds revealed: each adds 3 to its main symbol.'
      : 'Homeworlds are hidden until the end, so none is counted here (each adds 3 to its main symbol).'));
  const own = st.own ? h('p', { class: 'own-homeworld' }, 'Your homeworld will add ', String(st.own.symbol_count), ' to ', symbol(st.own.symbol),
    `; your mission stands at ${st.own.mission_progress}, worth ${st.own.mission_points} VP if the game ended now.`) : null;
  const scores = h('section', { class: 'standing', 'aria-label': 'Scores' },
    h('h3', {}, final ? 'Final scores' : 'Score if the game ended now'),
    h('div', { class: 'scroll' }, h('table', {},
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, ''), seatHeads)),
      h('tbody', {},
        CATEGORIES.map((cat) => h('tr', { 'data-category': cat }, h('th', { scope: 'row' }, words(cat)),
          st.scores.map((part, seat) => h('td', { 'data-category': cat, 'data-seat': String(seat) },
            part[cat] === null ? h('span', { title: 'hidden until the end' }, '?') : String(part[cat]))))),
        h('tr', { class: 'total', 'data-category': 'total' }, h('th', { scope: 'row' }, 'total'),
          st.totals.map((total, seat) => h('td', { 'data-category': 'total', 'data-seat': String(seat) }, String(total))))))),
    final ? null : h('p', { class: 'quiet' }, 'Missions (?) and homeworld symbols are scored at the end.'), own);
  return [scores, majorities];
}

export function render(root, ctx) {
  const { view, legalMoves: legal, submit, names, outcome } = ctx;
  const set = view.set;
  const used = new Set();
  const button = (move) => { used.add(move); return h('button', { type: 'button', class: 'board-move', onclick: () => submit(move) }, label(move, set)); };
  const on = (pred) => legal.filter((m) => !used.has(m) && pred(m)).map(button);

  const seats = view.rows.map((row, seat) => {
    const turns = `${view.turns[seat]}/${view.turns_per_player} turns`;
    const score = outcome ? ` · ${outcome.scores[seat]} VP` : '';
    return h('section', { class: `empire-row ${view.active.includes(seat) ? 'current' : ''}`, 'data-seat': String(seat) },
      h('h3', {}, h('bdi', {}, names[seat]), `${seat === view.seat ? ' (you)' : ''}: ${view.hand_sizes[seat]} in hand · ${turns}`,
        view.tucked[seat].length ? ` · ${view.tucked[seat].length} tucked` : '', score,
        view.homeworlds ? ` · homeworld ${(set.names && set.names[view.homeworlds[seat]]) || view.homeworlds[seat]}` : '',
        view.active.includes(seat) ? ' · to act' : ''),
      row.length ? h('div', { class: 'row' }, row.map((entry) => empireCard(entry, set,
        on((m) => m.target === entry.id || m.source === entry.id))))
        : h('p', { class: 'quiet' }, 'No empire cards yet.'));
  });
  // Exchange (T15): tick the cards to discard, then one button; it is enabled when the ticked set is a legal exchange.
  const exchanges = legal.filter((m) => m.type === 'exchange' && Array.isArray(m.cards));
  exchanges.forEach((m) => used.add(m));
  const toggles = new Map();
  const exchangeButton = h('button', { type: 'button', class: 'board-move exchange' }, 'Exchange nothing');
  const ticked = () => [...toggles].filter(([, box]) => box.checked).map(([id]) => id).sort();
  const exchangeMove = () => exchanges.find((m) => [...m.cards].sort().join() === ticked().join());
  const update = () => {
    const n = ticked().length;
    exchangeButton.textContent = n ? `Exchange ${n} card${n > 1 ? 's' : ''}` : 'Exchange nothing';
    exchangeButton.disabled = !exchangeMove();
  };
  exchangeButton.addEventListener('click', () => { const m = exchangeMove(); if (m) submit(m); });
  if (exchanges.length) {
    for (const id of new Set(exchanges.flatMap((m) => m.cards))) {
      toggles.set(id, h('input', { type: 'checkbox', class: 'exchange-pick', 'data-card': id, onchange: update }));
    }
  }
  const hand = view.hand ? h('section', { class: 'hand' }, h('h3', {}, 'Your hand'),
    h('div', { class: 'row' }, view.hand.map((id) => handCard(id, set,
      on((m) => m.card === id && m.type !== 'attack' && m.type !== 'ambassador'), toggles.get(id))))) : null;
  if (exchanges.length) update();
  const homeworld = view.homeworld ? (() => {
    const hw = set.homeworld[view.homeworld];
    return h('section', { class: 'homeworld' }, h('h3', {}, `Your homeworld: ${(set.names && set.names[view.homeworld]) || view.homeworld}`),
      h('p', {}, 'Main symbol: ', symbol(hw.main), ` · mission: ${words(hw.mission.type)} (`,
        hw.mission.tiers.map(([n, vp]) => `${n} → ${vp} VP`).join(', '), ')'));
  })() : null;
  const rest = legal.filter((m) => !used.has(m)).map(button);
  const over = view.standing && view.standing.basis === 'final';
  const standing = standingTables(view, names);
  const discard = view.discard ? view.discard : (view.discard_top ? [view.discard_top] : []);
  root.append(h('div', { class: 'tse' },
    h('p', { class: 'phase' }, `Phase: ${words(view.phase)} · deck ${view.deck_size} · discard ${view.discard_size}`,
      view.discard_top ? ` (top: ${(set.names && set.names[view.discard_top]) || view.discard_top})` : ''),
    rest.length || exchanges.length ? h('div', { class: 'turn-bar' }, exchanges.length ? exchangeButton : null, rest) : null,
    // The final scores come first once the game is over; during play the hand does.
    over ? standing : null, seats, hand, homeworld, over ? null : standing,
    discard.length ? h('details', { class: 'discard' }, h('summary', {}, `Discard pile (${view.discard_size})`),
      h('p', {}, discard.map((id) => (set.names && set.names[id]) || id).join(', '))) : null));
}
