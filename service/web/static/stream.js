// Live entries over Server-Sent Events, reconnecting on its own.
//
// EventSource cannot send headers, so the seat's token goes as ?token= (the one
// query string the server accepts a token in; it keeps query strings out of its
// logs). EventSource resumes with Last-Event-ID after a dropped connection; when
// the browser gives up (the server answered an error), we open a new one after a
// growing pause, resuming after the last version we saw.

export function follow(matchId, token, after, { onEntry, onState }) {
  let source = null;
  let closed = false;
  let last = after;
  let pause = 1000;
  let timer = null;

  function open() {
    const query = new URLSearchParams({ after: String(last) });
    if (token) query.set('token', token);
    source = new EventSource(`/api/matches/${encodeURIComponent(matchId)}/stream?${query}`);
    source.onopen = () => { pause = 1000; onState('live'); };
    source.addEventListener('entry', (event) => {
      const entry = JSON.parse(event.data);
      last = Math.max(last, entry.version);
      onEntry(entry);
    });
    source.onerror = () => {
      if (closed) return;
      onState('reconnecting');
      if (source.readyState === EventSource.CLOSED) {
        clearTimeout(timer);
        timer = setTimeout(() => { if (!closed) open(); }, pause);
        pause = Math.min(pause * 2, 15000);
      }
    };
  }

  open();
  return {
    close() { closed = true; clearTimeout(timer); if (source) source.close(); },
    get version() { return last; },
  };
}
