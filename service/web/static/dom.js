// Building DOM nodes without innerHTML: every string from the server is text, never markup.

export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') node.addEventListener(key.slice(2), value);
    else if (key === 'class') node.className = value;
    else if (key === 'dataset') Object.assign(node.dataset, value);
    else if (key in node && typeof value !== 'string') node[key] = value;
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  append(node, children);
  return node;
}

export function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function clear(node) {
  while (node.firstChild) node.firstChild.remove();
  return node;
}

/** "point_bonus_card" -> "point bonus card" */
export function words(key) {
  return String(key).replace(/_/g, ' ').replace(/([a-z])([A-Z])/g, '$1 $2');
}

/** Replace ``node``'s children (null, false and undefined are skipped). */
export function fill(node, ...children) {
  return append(clear(node), children);
}

/** A player's name as an isolated run (<bdi>): bidi controls in a name cannot reorder the text around it. */
export function bdi(name) {
  return h('bdi', {}, name);
}

/** ``items`` separated by ``sep`` (nodes stay nodes, for ``h``'s children). */
export function joined(items, sep = ', ') {
  return items.flatMap((item, i) => (i ? [sep, item] : [item]));
}

const escapeRe = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A sentence from the server with every occurrence of a player's name isolated (see ``bdi``). */
export function withNames(text, names) {
  const known = [...new Set(names.filter((n) => typeof n === 'string' && n))].sort((a, b) => b.length - a.length);
  if (!known.length) return [text];
  const out = [];
  let at = 0;
  for (const m of text.matchAll(new RegExp(known.map(escapeRe).join('|'), 'g'))) {
    out.push(text.slice(at, m.index), bdi(m[0]));
    at = m.index + m[0].length;
  }
  out.push(text.slice(at));
  return out.filter((part) => part !== '');
}
