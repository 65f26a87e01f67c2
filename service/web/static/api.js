// The one module that talks to the API: the browser is one more client of /api.

export class ApiError extends Error {
  constructor(status, problem) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
    this.code = problem.code || 'http-error';
  }

  /** One sentence for the user: the rule's message, which fields are wrong and why, and its code. */
  get text() {
    const p = this.problem;
    const rule = p.rule ? ` (rule: ${p.rule})` : '';
    const fields = fieldErrors(p.errors);
    const shown = fields.slice(0, 3).join('; ');
    const more = fields.length > 3 ? `; and ${fields.length - 3} more` : '';
    const why = fields.length ? ` ${shown}${more}.` : '';
    return `${p.detail || p.title || 'The server refused.'}${rule}${why} [${this.code}]`;
  }
}

// Where a request's part sits (``json``, ``query``) and the options' own key say nothing to a user.
const WRAPPERS = new Set(['json', 'query', 'headers', 'options']);

/** A problem's ``errors`` (nested objects of message lists) as "path: message" lines. */
export function fieldErrors(errors, at = []) {
  if (errors === null || errors === undefined) return [];
  if (typeof errors === 'string') return [at.length ? `${at.join('.')}: ${errors}` : errors];
  if (Array.isArray(errors)) {
    const texts = errors.filter((e) => typeof e === 'string');
    const nested = errors.filter((e) => e && typeof e === 'object').flatMap((e) => fieldErrors(e, at));
    return [...(texts.length ? fieldErrors(texts.join(' '), at) : []), ...nested];
  }
  if (typeof errors !== 'object') return [];
  return Object.entries(errors).flatMap(([key, value]) =>
    fieldErrors(value, !at.length && WRAPPERS.has(key) ? at : [...at, key]));
}

export async function api(method, path, { token, body, headers } = {}) {
  const sent = { Accept: 'application/json', ...(headers || {}) };
  if (token) sent.Authorization = `Bearer ${token}`;
  if (body !== undefined) sent['Content-Type'] = 'application/json';
  let response;
  try {
    response = await fetch(`/api${path}`, {
      method, headers: sent, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store',
    });
  } catch (err) {
    throw new ApiError(0, { title: 'The server cannot be reached.', code: 'network-error' });
  }
  const text = await response.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = null; }
  if (!response.ok) throw new ApiError(response.status, data || { title: response.statusText });
  return data;
}

const gameCache = new Map();

/** GET /api/games/{slug}, once per page; a failure is not kept (the next call asks again). */
export function game(slug) {
  if (!gameCache.has(slug)) {
    const asked = api('GET', `/games/${encodeURIComponent(slug)}`);
    gameCache.set(slug, asked);
    asked.catch(() => { if (gameCache.get(slug) === asked) gameCache.delete(slug); });
  }
  return gameCache.get(slug);
}

export function path(...parts) {
  return parts.map((p) => encodeURIComponent(String(p))).join('/');
}

/** Every history entry the caller may see, page by page. */
export async function allEntries(matchId, token, after = 0) {
  const entries = [];
  for (;;) {
    const page = await api('GET', `/matches/${path(matchId)}/events?after=${after}&limit=500`, { token });
    entries.push(...page.entries);
    if (!page.entries.length || page.entries.at(-1).version >= page.version) return entries;
    after = page.entries.at(-1).version;
  }
}
