// Small helpers for building the page from strings safely.

const escapes = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

// esc makes any value safe inside HTML text and quoted attributes.
export function esc(v) {
  return String(v ?? '').replace(/[&<>"']/g, (c) => escapes[c]);
}

// when formats a time as the operator's local time, with how long ago.
export function when(t) {
  if (!t) return '';
  const d = new Date(t);
  if (isNaN(d)) return esc(t);
  return `<time datetime="${esc(d.toISOString())}" title="${esc(d.toISOString())}">${esc(d.toLocaleString())} <span class="muted">(${esc(ago(d))})</span></time>`;
}

// ago says how long before now d was: "3m ago".
export function ago(d) {
  let s = Math.round((Date.now() - d.getTime()) / 1000);
  const future = s < 0;
  s = Math.abs(s);
  const units = [[86400, 'd'], [3600, 'h'], [60, 'm'], [1, 's']];
  for (const [n, u] of units) {
    if (s >= n || u === 's') {
      const v = Math.floor(s / n);
      return future ? `in ${v}${u}` : `${v}${u} ago`;
    }
  }
  return '';
}

// errorBox shows an error from herd as the page's content.
export function errorBox(e) {
  return `<p class="error" role="alert">${esc(e.code ? e.code + ': ' : '')}${esc(e.message || e)}</p>`;
}

// labelSelector parses "a=b,c" into a test of a labels map; null when
// text is no selector (then it filters by name).
export function labelMatcher(text) {
  const parts = text.split(',').map((p) => p.trim()).filter(Boolean);
  if (!parts.length || !parts.some((p) => p.includes('='))) return null;
  const tests = parts.map((p) => {
    const neg = p.includes('!=');
    const [k, v] = p.split(neg ? '!=' : '=').map((x) => x.trim());
    return (labels) => (neg ? labels[k] !== v : labels[k] === v);
  });
  return (labels) => tests.every((t) => t(labels));
}

// local turns an RFC 3339 time into a datetime-local input's value, in
// the operator's time zone.
export function local(t) {
  if (!t) return '';
  const d = new Date(t);
  if (isNaN(d)) return '';
  return new Date(d.getTime() - d.getTimezoneOffset() * 60000).toISOString().slice(0, 19);
}
