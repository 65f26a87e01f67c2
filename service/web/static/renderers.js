// Finding a game's board: its own renderer (an ES module the game ships, see
// Game.renderer in service/plugin_api.py) or the generic one.

import * as generic from './generic.js';
import { h } from './dom.js';

const loaded = new Map();
const failures = new Map();

/** The renderer module for a game resource from GET /api/games/{slug}.
 *
 * A module that fails to load (the server briefly down, a bug in it) is not kept:
 * this page draws the generic board with a warning, and the next page asks again,
 * under a new URL (a browser may keep a failed module for the URL it tried). */
export async function loadRenderer(game) {
  if (!game.renderer) return generic;
  if (!loaded.has(game.slug)) {
    const tries = failures.get(game.slug) || 0;
    const url = tries ? `${game.renderer}${game.renderer.includes('?') ? '&' : '?'}retry=${tries}` : game.renderer;
    const pending = import(url);
    loaded.set(game.slug, pending);
    pending.catch(() => {
      if (loaded.get(game.slug) === pending) loaded.delete(game.slug);
      failures.set(game.slug, tries + 1);
    });
  }
  try {
    return await loaded.get(game.slug);
  } catch (err) {
    return {
      render(root, ctx) {
        root.append(h('p', { class: 'warning renderer-failed' },
          `This game's board could not be loaded (${err.message}); showing its view as a tree. Opening the page again tries again.`));
        generic.render(root, ctx);
      },
    };
  }
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
