// The web view's only way to herd: its HTTP API, with the tab's token.
// The token lives in sessionStorage: it is gone when the tab closes.

const tokenKey = 'herd.token';

export function token() {
  return sessionStorage.getItem(tokenKey) || '';
}

export function setToken(t) {
  if (t) sessionStorage.setItem(tokenKey, t);
  else sessionStorage.removeItem(tokenKey);
}

// APIError carries herd's Status: its code, its message, and the
// fields it names (details.causes: each a field and what is wrong).
export class APIError extends Error {
  constructor(code, message, reason, causes) {
    super(message);
    this.code = code;
    this.reason = reason || '';
    this.causes = causes || [];
  }
}

function headers(extra) {
  const h = { Accept: 'application/json', ...extra };
  const t = token();
  if (t) h.Authorization = 'Bearer ' + t;
  return h;
}

// unauthorized is called when herd answers 401: the page asks for a token.
let unauthorized = () => {};
export function onUnauthorized(fn) {
  unauthorized = fn;
}

// failure is herd's refusal as an error, asking for a token on a 401.
export function failure(code, message, reason, causes) {
  if (code === 401) unauthorized(message);
  return new APIError(code, message, reason, causes);
}

async function check(res) {
  if (res.ok) return res;
  let message = res.statusText, reason = '', causes = [];
  try {
    const st = await res.json();
    message = st.message || message;
    reason = st.reason || '';
    causes = st.details?.causes || [];
  } catch { /* not a Status */ }
  throw failure(res.status, message, reason, causes);
}

// get reads JSON from path.
export async function get(path, signal) {
  const res = await fetch(path, { headers: headers(), signal });
  await check(res);
  return res.json();
}

// send writes body (JSON) with method; contentType defaults to JSON.
// signal, when given, abandons the request (herd stops what it started
// for it: a what-if).
export async function send(method, path, body, contentType = 'application/json', signal = undefined) {
  const init = { method, headers: headers(body === undefined ? {} : { 'Content-Type': contentType }), signal };
  if (body !== undefined) init.body = JSON.stringify(body);
  const res = await fetch(path, init);
  await check(res);
  const text = await res.text();
  return text ? JSON.parse(text) : null;
}

// query builds a query string from the set values of params.
export function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  }
  const s = q.toString();
  return s ? '?' + s : '';
}

// watch follows a collection's watch as Server-Sent Events (herd's SSE
// form of the Kubernetes watch), from resourceVersion rv. It reads the
// stream with fetch rather than EventSource, which cannot send the
// token. onEvents gets the events of each network read at once, so a
// burst costs one call, not one per event. It resolves when the stream
// ends or signal aborts; it rejects with an APIError (410 when rv was
// compacted away) or a network error.
export async function watch(path, rv, onEvents, signal) {
  const sep = path.includes('?') ? '&' : '?';
  const url = `${path}${sep}watch=1&allowWatchBookmarks=true&resourceVersion=${encodeURIComponent(rv)}`;
  const res = await fetch(url, { headers: headers({ Accept: 'text/event-stream' }), signal });
  await check(res);
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buf += value;
    const batch = [];
    let end;
    while ((end = buf.indexOf('\n\n')) >= 0) {
      const frame = buf.slice(0, end);
      buf = buf.slice(end + 2);
      const data = frame.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n');
      if (!data) continue;
      const ev = JSON.parse(data);
      if (ev.type === 'ERROR') {
        throw new APIError(ev.object.code || 500, ev.object.message || 'watch failed', ev.object.reason);
      }
      batch.push(ev);
    }
    if (batch.length) onEvents(batch);
  }
}
