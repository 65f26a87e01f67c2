// Finding a game's board: its own renderer (an ES module the game ships, see
// Game.renderer in service/plugin_api.py) or the generic one.

import * as generic from './generic.js';
import { h } from './dom.js';

const loaded = new Map();

/** The renderer module for a game resource from GET /api/games/{slug}. */
export async function loadRenderer(game) {
  if (!game.renderer) return generic;
  if (!loaded.has(game.slug)) {
    loaded.set(game.slug, import(game.renderer).catch(() => generic));
  }
  return loaded.get(game.slug);
}

/** Draw ``ctx`` with ``renderer`` into ``root``; a renderer that throws falls back to the generic tree. */
export function drawBoard(root, renderer, ctx) {
  root.replaceChildren();
  try {
    renderer.render(root, ctx);
  } catch (err) {
    root.replaceChildren(h('p', { class: 'warning' }, `This game's board could not be drawn (${err.message}); showing its view as a tree.`));
    generic.render(root, ctx);
  }
}
