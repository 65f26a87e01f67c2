// The web client's entry point: a router over the URL fragment.
//
//   #/                          lobby
//   #/match/<id>                watch (spectator)
//   #/match/<id>/seat/<n>       play seat n (its token from localStorage)
//   #/join/<id>/<n>/<token>     an invitation: keep the token, then play (the token leaves the URL at once)
//   #/replay/<id>[/seat/<n>]    replay viewer

import { h } from './dom.js';
import { showLobby } from './lobby.js';
import { showMatch } from './match.js';
import { showReplay } from './replay.js';
import * as tokens from './tokens.js';

const main = document.getElementById('main');
let dispose = () => {};
let generation = 0;

function fail(err) {
  // "Try again" opens the same screen: following a link to the address already shown would do nothing.
  main.replaceChildren(h('h1', {}, 'Something went wrong'),
    h('p', { role: 'alert', class: 'message error' }, err.text || err.message || String(err)),
    h('p', {}, h('button', { type: 'button', id: 'try-again', onclick: route }, 'Try again'), ' ',
      h('a', { href: '#/' }, 'Back to the lobby')));
}

async function route() {
  dispose();
  dispose = () => {};
  const mine = ++generation;
  const hash = location.hash || '#/';
  let m;
  try {
    let screen;
    if ((m = hash.match(/^#\/join\/([^/]+)\/(\d+)\/([^/]+)$/))) {
      const id = decodeURIComponent(m[1]);
      tokens.put(id, Number(m[2]), decodeURIComponent(m[3]));
      history.replaceState(null, '', `#/match/${m[1]}/seat/${m[2]}`);
      screen = showMatch(main, id, Number(m[2]));
    } else if ((m = hash.match(/^#\/match\/([^/]+)\/seat\/(\d+)$/))) {
      screen = showMatch(main, decodeURIComponent(m[1]), Number(m[2]));
    } else if ((m = hash.match(/^#\/match\/([^/]+)$/))) {
      screen = showMatch(main, decodeURIComponent(m[1]), null);
    } else if ((m = hash.match(/^#\/replay\/([^/]+)(?:\/seat\/(\d+))?$/))) {
      screen = showReplay(main, decodeURIComponent(m[1]), m[2] === undefined ? null : Number(m[2]));
    } else {
      screen = showLobby(main);
    }
    const stop = await screen;
    if (mine !== generation) stop(); else dispose = stop;
  } catch (err) {
    if (mine === generation) fail(err);
  }
  if (mine === generation && moved) focusScreen();
}

// The screen was replaced under the focus (Leave, Rematch, Join, a link): the next Tab
// starts at the top of the new screen, its heading, rather than at the page's start.
function focusScreen() {
  const at = document.activeElement;
  if (at && at !== document.body && main.contains(at)) return; // the screen put it somewhere itself
  const heading = main.querySelector('h1');
  const target = heading || main;
  if (heading && !heading.hasAttribute('tabindex')) heading.setAttribute('tabindex', '-1');
  target.focus();
}

let moved = false;
window.addEventListener('hashchange', () => { moved = true; route(); });
route();
