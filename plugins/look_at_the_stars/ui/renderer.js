// Look at the Stars: the star sheet (stars, lines, planets, shooting stars,
// objects, the rising sun's closed rows), placing the revealed card's shape by
// clicking (rotate, pick where it goes, place), power bonuses on the sheet,
// every seat's sheet after the reveal, and the score breakdown.
//
// The geometry here only draws: the candidate placements are the legal moves
// (place_card / place_shooting_star / use_power) the server listed.

const content = await (await fetch(new URL('./look-at-the-stars.json', import.meta.url))).json();
const style = document.createElement('link');
style.rel = 'stylesheet';
style.href = new URL('./renderer.css', import.meta.url).href;
document.head.append(style);

const SVG = 'http://www.w3.org/2000/svg';
const COLS = content.board.columns;
const ROWS = content.board.rows;
const STEP = 30;
const PAD = 18;
const SUN_STRIP = 12;
const CARDS = new Map(content.night_cards.cards.map((c) => [c.id, c]));
const OUTSIDE = new Set(content.board.outside_dome.map(([x, y]) => `${x},${y}`));
const OBJECTS = [
  ['galaxies', '✺', 'galaxy'], ['twinkling_stars', '✧', 'twinkling star'], ['novas', '✹', 'nova'],
  ['auras', '◎', 'luminous aura'], ['new_stars', '✦', 'new star'],
];

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

function s(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

const X = (x) => PAD + x * STEP;
const Y = (y) => PAD + (ROWS - 1 - y) * STEP;
const key = ([x, y]) => `${x},${y}`;
const lineKey = ([a, b]) => [key(a), key(b)].sort().join('|');

/** (x, y) -> (y, 3 - x), r times, after an optional mirror x -> 3 - x: the card frame of the rules (R4.2). */
function place(lines, move) {
  const turn = ([x, y]) => {
    let [u, v] = move.mirror ? [3 - x, y] : [x, y];
    for (let i = 0; i < move.rotation; i += 1) [u, v] = [v, 3 - u];
    return [u + move.dx, v + move.dy];
  };
  return lines.map(([a, b]) => [turn(a), turn(b)]);
}

function shapeOf(move, view) {
  if (move.type === 'place_card') return CARDS.get(view.current_card).lines;
  return content.shooting_star_shapes[String(move.length)].lines;
}

/** A small drawing of a shape in its 4x4 frame (cards and bonus cards). */
function miniShape(lines, label) {
  const k = 12;
  return s('svg', { viewBox: `0 0 ${4 * k} ${4 * k}`, width: 4 * k, height: 4 * k, class: 'mini', role: 'img', 'aria-label': label },
    s('rect', { x: 0, y: 0, width: 4 * k, height: 4 * k, class: 'mini-bg' }),
    lines.map(([[x1, y1], [x2, y2]]) => s('line', { x1: x1 * k + k / 2, y1: (3 - y1) * k + k / 2, x2: x2 * k + k / 2, y2: (3 - y2) * k + k / 2, class: 'mini-line' })));
}

/** One sheet as SVG. ``targets``: clickable points/lines ({at, kind, onpick}); ``preview``: lines to draw dashed. */
function sheetSvg(view, sheetJson, { targets = [], preview = [], previewPoint = null, label }) {
  const data = content.sheets[sheetJson.sheet];
  const stars = new Set([...data.stars, ...sheetJson.new_stars].map(key));
  const planets = [...data.planets, ...sheetJson.planets];
  const low = view.lowest_usable_row;
  // The closed rows' label goes in a strip below the bottom row: over it, it would hide that row's stars.
  const strip = low > 0 ? SUN_STRIP : 0;
  const svg = s('svg', {
    viewBox: `0 0 ${2 * PAD + (COLS - 1) * STEP} ${2 * PAD + (ROWS - 1) * STEP + strip}`, class: 'sheet', role: 'group', 'aria-label': label,
  });
  if (low > 0) {
    svg.append(s('rect', { x: 0, y: Y(low - 1) - STEP / 2, width: 2 * PAD + COLS * STEP, height: low * STEP + PAD + strip, class: 'closed' }),
      s('text', { x: PAD, y: Y(0) + PAD + strip / 2, class: 'sun' }, `☀ the bottom ${low === 1 ? 'row is' : `${low} rows are`} closed`));
  }
  for (let y = 0; y < ROWS; y += 1) {
    for (let x = 0; x < COLS; x += 1) {
      const k = `${x},${y}`;
      if (OUTSIDE.has(k)) continue;
      svg.append(stars.has(k) ? s('circle', { cx: X(x), cy: Y(y), r: 3.2, class: 'star' }) : s('circle', { cx: X(x), cy: Y(y), r: 1.6, class: 'nostar' }));
    }
  }
  const line = ([[x1, y1], [x2, y2]], cls) => s('line', { x1: X(x1), y1: Y(y1), x2: X(x2), y2: Y(y2), class: cls });
  const consumed = new Set(sheetJson.consumed.map(lineKey));
  sheetJson.lines.forEach((l) => svg.append(line(l, consumed.has(lineKey(l)) ? 'line consumed' : 'line')));
  sheetJson.shooting_stars.forEach((star) => {
    star.segments.forEach((seg) => svg.append(line(seg, 'shooting')));
    svg.append(s('text', { x: X(star.head[0]), y: Y(star.head[1]) + 4, class: 'head' }, '★'));
  });
  planets.forEach(([x, y]) => svg.append(s('circle', { cx: X(x), cy: Y(y), r: 8, class: 'planet' })));
  for (const [field, glyph, name] of OBJECTS) {
    sheetJson[field].forEach(([x, y]) => svg.append(s('text', { x: X(x), y: Y(y) + 5, class: `obj ${field}` }, s('title', {}, name), glyph)));
  }
  if (sheetJson.moon) svg.append(s('text', { x: X(sheetJson.moon[0]), y: Y(sheetJson.moon[1]) + 5, class: 'obj moon' }, s('title', {}, 'crescent moon'), '☾'));
  if (sheetJson.black_hole) svg.append(s('circle', { cx: X(sheetJson.black_hole[0]), cy: Y(sheetJson.black_hole[1]), r: 9, class: 'black-hole' }, s('title', {}, 'black hole')));
  preview.forEach((l) => svg.append(line(l, 'preview')));
  if (previewPoint) svg.append(s('circle', { cx: X(previewPoint[0]), cy: Y(previewPoint[1]), r: 10, class: 'preview-point' }));
  for (const target of targets) {
    const activate = (event) => { event.preventDefault(); target.onpick(); };
    // By keyboard, Enter on the picked target places it: the focus stays on the sheet, and
    // the "Place it here" button (before the sheet) need not be reached by Shift+Tab.
    const onkey = (event) => {
      if (event.key !== 'Enter' && event.key !== ' ') return;
      if (target.selected && target.onconfirm) { event.preventDefault(); target.onconfirm(); } else activate(event);
    };
    const spoken = target.selected && target.onconfirm ? `${target.label}: picked, Enter places it` : target.label;
    const attrs = {
      tabindex: 0, role: 'button', class: `target ${target.selected ? 'selected' : ''}`, 'aria-label': spoken, 'data-target': target.id,
      onclick: activate, onkeydown: onkey,
    };
    if (target.line) {
      const [[x1, y1], [x2, y2]] = target.line;
      svg.append(s('line', { ...attrs, x1: X(x1), y1: Y(y1), x2: X(x2), y2: Y(y2) }, s('title', {}, target.label)));
    } else {
      svg.append(s('circle', { ...attrs, cx: X(target.at[0]), cy: Y(target.at[1]), r: 7 }, s('title', {}, target.label)));
    }
  }
  return svg;
}

function words(text) { return String(text).replace(/_/g, ' '); }

let remembered = { match: null, choice: null, selected: null };

export function render(root, ctx) {
  const { view, legalMoves: legal, submit, names, outcome } = ctx;
  const own = view.seat !== null && view.seat !== undefined ? view.sheets[view.seat] : null;
  const placements = legal.filter((m) => m.type === 'place_card' || m.type === 'place_shooting_star');
  const powers = legal.filter((m) => m.type === 'use_power' && (m.point || m.line));
  const rest = legal.filter((m) => !placements.includes(m) && !powers.includes(m));
  // A pick survives redraws (other seats act at the same time) while the match stays; it is checked against the new legal moves.
  if (remembered.match !== `${ctx.match}:${view.turn}`) remembered = { match: `${ctx.match}:${view.turn}`, choice: null, selected: null };

  // The placement choices: one per (shape, rotation, mirror); the anchor is the shape's first point on the sheet.
  const choiceOf = (m) => `${m.type === 'place_card' ? 'card' : `star ${m.length}`} · turn ${m.rotation}${m.mirror ? ' · mirrored' : ''}`;
  const choices = [...new Set(placements.map(choiceOf))];
  const choice = choices.includes(remembered.choice) ? remembered.choice : choices[0];
  const current = placements.filter((m) => choiceOf(m) === choice).map((m) => {
    const lines = place(shapeOf(m, view), m);
    return { move: m, lines, at: lines[0][0] };
  });
  const selected = remembered.selected;
  const sel = current.find((c) => key(c.at) === selected) || null;
  const power = powers.find((m) => (m.point ? key(m.point) : lineKey(m.line)) === selected) || null;

  const main = h('div', { class: 'main-sheet' });
  const actions = h('div', { class: 'turn-bar' });
  function redraw() {
    const targets = current.map((c) => ({
      id: key(c.at), at: c.at, selected: sel === c, label: `place the ${c.move.type === 'place_card' ? 'card' : 'shooting star'} from ${c.at.join(',')}`,
      onpick: () => { remembered.selected = key(c.at); rerender(`.main-sheet .target[data-target="${key(c.at)}"]`); },
      onconfirm: () => submit(c.move),
    })).concat(powers.map((m) => ({
      id: m.point ? key(m.point) : lineKey(m.line), at: m.point, line: m.line, selected: power === m,
      label: `use the power at ${m.point ? m.point.join(',') : m.line.map((p) => p.join(',')).join('–')}`,
      onconfirm: () => submit(m),
      onpick: () => {
        remembered.selected = m.point ? key(m.point) : lineKey(m.line);
        rerender(`.main-sheet .target[data-target="${remembered.selected}"]`);
      },
    })));
    main.replaceChildren(sheetSvg(view, own || view.sheets[0], {
      targets, preview: sel ? sel.lines : (power && power.line ? [power.line] : []), previewPoint: power && power.point,
      label: own ? `Your sheet: ${own.name}` : view.sheets[0].name,
    }));
  }
  // Picking a star, a shape or a rotation draws the board again: the control used keeps the focus.
  function rerender(focus) {
    root.replaceChildren();
    render(root, ctx);
    if (focus) root.querySelector(focus)?.focus();
  }
  redraw();

  if (choices.length) {
    actions.append(h('label', { for: 'lats-choice' }, 'Shape: '),
      h('select', { id: 'lats-choice', onchange: (e) => { remembered.choice = e.target.value; remembered.selected = null; rerender('#lats-choice'); } },
        choices.map((c) => h('option', { value: c, selected: c === choice }, c))),
      h('button', { type: 'button', class: 'rotate', onclick: () => {
        remembered.choice = choices[(choices.indexOf(choice) + 1) % choices.length]; remembered.selected = null; rerender('.turn-bar .rotate');
      } }, '↻ Rotate'),
      h('button', { type: 'button', class: 'board-move place', disabled: !sel, onclick: () => sel && submit(sel.move) },
        sel ? 'Place it here' : 'Pick a highlighted star first'));
  }
  if (powers.length) {
    actions.append(h('button', { type: 'button', class: 'board-move use-power', disabled: !power, onclick: () => power && submit(power) },
      power ? 'Use the power here' : `Pick where to use the ${words(view.rules.power_bonus.power)} power`));
  }
  rest.forEach((m) => actions.append(h('button', { type: 'button', class: 'board-move', onclick: () => submit(m) }, words(m.type))));

  const card = CARDS.get(view.current_card);
  const cardInfo = card && card.kind === 'lines' ? [miniShape(card.lines, `card ${card.id}`), ` card ${card.id}: ${card.desc}`]
    : ' a shooting star: draw a diagonal run of 1 to 3 segments';
  const others = view.sheets.map((sheet, seat) => (seat === view.seat ? null : h('figure', { class: 'other' },
    sheetSvg(view, sheet, { label: `${names[seat]}'s sheet` }), h('figcaption', {}, h('bdi', {}, names[seat]), `: ${sheet.name}`,
      view.confirmed[seat] ? ' · confirmed' : ''))));
  const scores = outcome && outcome.breakdown ? h('section', { class: 'breakdown' }, h('h3', {}, 'Scores'),
    h('div', { class: 'scroll' }, h('table', {}, h('thead', {}, h('tr', {}, h('th', {}, ''), Object.keys(outcome.breakdown[0]).map((k) => h('th', { scope: 'col' }, words(k))), h('th', {}, 'total'))),
      h('tbody', {}, outcome.breakdown.map((row, seat) => h('tr', {}, h('th', { scope: 'row' }, h('bdi', {}, names[seat])),
        Object.values(row).map((v) => h('td', {}, String(v))), h('td', {}, String(outcome.scores[seat])))))))) : null;

  root.append(h('div', { class: 'lats' },
    h('p', { class: 'phase' }, `Turn ${view.turn} of 18 · pile ${view.pile} · ${view.cards_left} cards left`),
    h('p', { class: 'current-card' }, 'Revealed: ', cardInfo),
    h('p', { class: 'bonuses' }, 'Point bonus: ', miniShape(view.rules.point_bonus.lines, 'point bonus shape'),
      ` ${view.rules.point_bonus.points} VP each · Power bonus: `, miniShape(view.rules.power_bonus.lines, 'power bonus shape'),
      ` ${words(view.rules.power_bonus.power)}`),
    own && own.pending && own.pending.length ? h('p', { class: 'pending' }, `${own.pending.length} power bonus occurrence(s) to resolve.`) : null,
    actions, scores, h('figure', { class: 'own' }, main, h('figcaption', {}, own ? `Your sheet: ${own.name}` : view.sheets[0].name)), others.some(Boolean) ? h('div', { class: 'others' }, others) : null));
}
