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

// patch makes el's content what html says by changing only what differs:
// elements that stay are kept (with their focus, scroll position, an open
// <details>, and anything a test or the operator set on them), text and
// attributes that changed are rewritten, and only what came or went is
// added or removed. A data- attribute the HTML does not name is left
// alone (the page's HTML names every one it uses). Children with an id or a data-key are matched by it,
// so that a row coming or going does not rewrite the rows after it. It
// says whether anything changed.
export function patch(el, html) {
  if (!el.firstChild) {
    el.innerHTML = html;
    return true;
  }
  const t = document.createElement('template');
  t.innerHTML = html;
  return morphChildren(el, t.content);
}

function keyOf(n) {
  return n.nodeType === 1 ? n.id || n.getAttribute('data-key') || '' : '';
}

function morphChildren(into, from) {
  let changed = false;
  const keyed = new Map();
  for (let c = into.firstChild; c; c = c.nextSibling) {
    const k = keyOf(c);
    if (k) keyed.set(k, c);
  }
  let cur = into.firstChild;
  for (let want = from.firstChild; want;) {
    const next = want.nextSibling;
    const k = keyOf(want);
    let have = cur;
    if (k) {
      const found = keyed.get(k);
      if (found && found.nodeName === want.nodeName) {
        keyed.delete(k);
        have = found;
        if (have !== cur) {
          into.insertBefore(have, cur);
          changed = true;
        }
      } else have = null;
    } else if (have && (keyOf(have) || have.nodeName !== want.nodeName)) have = null;
    if (have) {
      if (morph(have, want)) changed = true;
      cur = have.nextSibling;
    } else {
      into.insertBefore(want, cur);
      changed = true;
    }
    want = next;
  }
  while (cur) {
    const next = cur.nextSibling;
    into.removeChild(cur);
    changed = true;
    cur = next;
  }
  return changed;
}

// morph makes node have want's attributes and content (same kind of node).
function morph(node, want) {
  if (node.nodeType !== 1) {
    if (node.nodeValue === want.nodeValue) return false;
    node.nodeValue = want.nodeValue;
    return true;
  }
  let changed = false;
  for (const a of want.attributes) {
    if (node.getAttribute(a.name) !== a.value) {
      node.setAttribute(a.name, a.value);
      changed = true;
    }
  }
  for (const a of [...node.attributes]) {
    // What the operator or a script set on an element rather than its
    // HTML stays: an open <details>, a data- mark the HTML does not name.
    if (want.hasAttribute(a.name) || a.name === 'open' || a.name.startsWith('data-')) continue;
    node.removeAttribute(a.name);
    changed = true;
  }
  if (node.nodeName === 'INPUT' || node.nodeName === 'SELECT' || node.nodeName === 'TEXTAREA') return changed;
  return morphChildren(node, want) || changed;
}

// patchElement makes node what html (one element of the same kind) says,
// as patch does for an element's content: a table row that changed is
// rewritten where it stands.
export function patchElement(node, html) {
  const t = document.createElement('template');
  t.innerHTML = html;
  const want = t.content.firstElementChild;
  if (!want || want.nodeName !== node.nodeName) {
    node.outerHTML = html;
    return true;
  }
  return morph(node, want);
}
