// The fleet at two moments, compared: nodes and pods that came, went or
// changed between them.

import { get, query } from './api.js';
import { esc, errorBox, local } from './dom.js';
import { summarize } from './fleet.js';

export function diffPage(ctx) {
  const { app, params, at } = ctx;
  const from = params.get('from') || at || new Date(Date.now() - 3600e3).toISOString();
  const to = params.get('to') || '';
  app.innerHTML = `
    <h1>Compare two moments</h1>
    <form id="diff-form" class="controls">
      <label>from <input id="diff-from" type="datetime-local" step="1" value="${esc(local(from))}" required></label>
      <label>to <input id="diff-to" type="datetime-local" step="1" value="${esc(local(to))}"> <span class="muted">(empty: now)</span></label>
      <button type="submit">Compare</button>
    </form>
    <div id="diff"><p class="muted">Reading the fleet at both moments…</p></div>`;
  app.querySelector('#diff-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const p = new URLSearchParams();
    p.set('from', new Date(app.querySelector('#diff-from').value).toISOString());
    const t = app.querySelector('#diff-to').value;
    if (t) p.set('to', new Date(t).toISOString());
    ctx.go(p);
  });
  const ctl = new AbortController();
  compare(app.querySelector('#diff'), from, to, ctl.signal);
  return () => ctl.abort();
}

async function compare(el, from, to, signal) {
  let lists;
  try {
    lists = await Promise.all([
      get('/api/v1/nodes' + query({ asOf: from }), signal),
      get('/api/v1/nodes' + query({ asOf: to || undefined }), signal),
      get('/api/v1/pods' + query({ asOf: from }), signal),
      get('/api/v1/pods' + query({ asOf: to || undefined }), signal),
    ]);
  } catch (e) {
    if (!signal.aborted) el.innerHTML = errorBox(e);
    return;
  }
  const nodes = diff(lists[0].items, lists[1].items, (n) => n.metadata.name, nodeFacts);
  const pods = diff(lists[2].items, lists[3].items, (p) => p.metadata.namespace + '/' + p.metadata.name, podFacts);
  const section = (title, d) => `<section class="card"><h2>${title}</h2>
    <p>${d.added.length} came, ${d.removed.length} went, ${d.changed.length} changed, ${d.same} the same.</p>
    <table class="diff"><tbody>
    ${d.added.map((k) => `<tr class="added" data-diff="${esc(k)}"><td>+</td><td>${esc(k)}</td><td>came</td></tr>`).join('')}
    ${d.removed.map((k) => `<tr class="removed" data-diff="${esc(k)}"><td>−</td><td>${esc(k)}</td><td>went</td></tr>`).join('')}
    ${d.changed.map(([k, changes]) => `<tr class="changed" data-diff="${esc(k)}"><td>~</td><td>${esc(k)}</td><td>${changes.map(([f, a, b]) => `${esc(f)}: <del>${esc(a)}</del> → <ins>${esc(b)}</ins>`).join('<br>')}</td></tr>`).join('')}
    </tbody></table></section>`;
  el.innerHTML = section('Nodes', nodes) + section('Pods', pods);
}

function nodeFacts(n) {
  const s = summarize(n);
  return {
    state: s.state, agent: s.agent, version: s.version, cordoned: String(s.unschedulable),
    conditions: Object.entries(s.conditions).map(([k, v]) => `${k}=${v}`).sort().join(' '),
    taints: (n.spec?.taints || []).map((t) => `${t.key}:${t.effect}`).sort().join(' '),
    labels: Object.entries(s.labels).map(([k, v]) => `${k}=${v}`).sort().join(' '),
  };
}

function podFacts(p) {
  return { phase: p.metadata.deletionTimestamp ? 'Terminating' : p.status?.phase || 'Pending', node: p.spec?.nodeName || '', ip: p.status?.podIP || '' };
}

function diff(before, after, keyOf, facts) {
  const a = new Map(before.map((o) => [keyOf(o), facts(o)]));
  const b = new Map(after.map((o) => [keyOf(o), facts(o)]));
  const out = { added: [], removed: [], changed: [], same: 0 };
  for (const [k, fb] of b) {
    const fa = a.get(k);
    if (!fa) {
      out.added.push(k);
      continue;
    }
    const changes = Object.keys(fb).filter((f) => fa[f] !== fb[f]).map((f) => [f, fa[f], fb[f]]);
    if (changes.length) out.changed.push([k, changes]);
    else out.same++;
  }
  for (const k of a.keys()) if (!b.has(k)) out.removed.push(k);
  out.added.sort();
  out.removed.sort();
  out.changed.sort((x, y) => (x[0] < y[0] ? -1 : 1));
  return out;
}
