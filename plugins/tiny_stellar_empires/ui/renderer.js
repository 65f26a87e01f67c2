// Tiny Stellar Empires: every seat's empire row (route ends, attacks,
// ambassadors), your hand and homeworld, the discard pile, and at the end the
// score breakdown with the symbol majorities.
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

/** Symbols showing in each row (active halves not raided, ambassadors twice): what the majorities are fought over. */
function symbolTable(view, names) {
  const set = view.set;
  const counts = view.rows.map((row) => {
    const count = Object.fromEntries(set.symbols.map((sym) => [sym, 0]));
    for (const entry of row) {
      if (!(entry.atk && entry.atk.mode === 'raid')) set.empire[entry.id][entry.o].symbols.forEach((sym) => { count[sym] += 1; });
      if (entry.amb) count[set.ambassador[entry.amb.id][entry.amb.end]] += 2;
    }
    return count;
  });
  // A homeworld's main symbol counts 3: known for your own seat, for everyone once revealed.
  const homes = view.homeworlds || view.rows.map((_, seat) => (seat === view.seat ? view.homeworld : null));
  homes.forEach((home, seat) => { if (home) counts[seat][set.homeworld[home].main] += 3; });
  const best = Object.fromEntries(set.symbols.map((sym) => [sym, Math.max(...counts.map((c) => c[sym]))]));
  return h('section', { class: 'majorities' }, h('h3', {}, 'Symbols in play'),
    h('div', { class: 'scroll' }, h('table', {},
      h('thead', {}, h('tr', {}, h('th', {}, ''), set.symbols.map((sym) => h('th', { scope: 'col' }, symbol(sym))))),
      h('tbody', {}, counts.map((count, seat) => h('tr', {}, h('th', { scope: 'row' }, names[seat]),
        set.symbols.map((sym) => h('td', { class: count[sym] && count[sym] === best[sym] ? 'lead' : null }, String(count[sym])))))))),
    h('p', { class: 'quiet' }, view.homeworlds ? 'Homeworlds included (3 for the main symbol).'
      : 'Hidden homeworlds add 3 to their main symbol at the end (yours is counted).'));
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
      h('h3', {}, `${names[seat]}${seat === view.seat ? ' (you)' : ''}: ${view.hand_sizes[seat]} in hand · ${turns}`,
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
  const discard = view.discard ? view.discard : (view.discard_top ? [view.discard_top] : []);
  const breakdown = outcome && outcome.breakdown ? h('section', { class: 'breakdown' }, h('h3', {}, 'Scores'),
    h('table', {}, h('thead', {}, h('tr', {}, h('th', {}, ''), Object.keys(outcome.breakdown[0]).map((k) => h('th', { scope: 'col' }, words(k))), h('th', {}, 'total'))),
      h('tbody', {}, outcome.breakdown.map((row, seat) => h('tr', {}, h('th', { scope: 'row' }, names[seat]),
        Object.values(row).map((v) => h('td', {}, String(v))), h('td', {}, String(outcome.scores[seat]))))))) : null;

  root.append(h('div', { class: 'tse' },
    h('p', { class: 'phase' }, `Phase: ${words(view.phase)} · deck ${view.deck_size} · discard ${view.discard_size}`,
      view.discard_top ? ` (top: ${(set.names && set.names[view.discard_top]) || view.discard_top})` : ''),
    rest.length || exchanges.length ? h('div', { class: 'turn-bar' }, exchanges.length ? exchangeButton : null, rest) : null,
    breakdown, seats, symbolTable(view, names), hand, homeworld,
    discard.length ? h('details', { class: 'discard' }, h('summary', {}, `Discard pile (${view.discard_size})`),
      h('p', {}, discard.map((id) => (set.names && set.names[id]) || id).join(', '))) : null));
}
