// Pods by node, namespace or owner, with their phase, address and the
// steps of those on their way out.

import { esc, errorBox, when, labelMatcher, patch, patchElement } from './dom.js';
import { Collection } from './fleet.js';
import { summarizePod, samePod } from './pod.js';
import { podLink, podHref } from './podpage.js';

// Rows drawn at most: a filter narrows a bigger list.
const maxRows = 2000;

export function podsPage(ctx) {
  const { app, params } = ctx;
  // The moment the page was built at: a row's node link carries it until
  // the link is about to be used (see freshen), so that a playback step
  // does not rewrite every row's link.
  const drawnAt = ctx.at;
  let at = ctx.at;
  const pods = new Collection('/api/v1/pods', summarizePod);
  pods.same = samePod;
  // A list of the past is read and summarized in the page's worker, as
  // the fleet's is.
  pods.inWorker = true;
  const by = params.get('by') || 'node';
  const filter = params.get('filter') || '';
  app.innerHTML = `
    <h1>Pods</h1>
    <div class="controls">
      <input id="pod-filter" type="search" placeholder="filter: name, node, owner, or label=value" value="${esc(filter)}" aria-label="filter">
      <label>Group by <select id="pod-by"><option value="node">node</option><option value="namespace">namespace</option><option value="owner">owner</option><option value="phase">phase</option></select></label>
      <span id="pod-shown" class="muted"></span>
    </div>
    <div id="pods"><p class="muted">Loading pods…</p></div>`;
  const sel = app.querySelector('#pod-by');
  sel.value = by;
  const set = (k, v) => {
    const p = new URLSearchParams(params);
    if (v) p.set(k, v);
    else p.delete(k);
    ctx.go(p);
  };
  sel.addEventListener('change', () => set('by', sel.value));
  let typing = 0;
  app.querySelector('#pod-filter').addEventListener('input', (e) => {
    clearTimeout(typing);
    typing = setTimeout(() => set('filter', e.target.value.trim()), 300);
  });
  const byLabel = labelMatcher(filter);
  const matches = (p) => (byLabel ? byLabel(p.labels) : !filter || [p.key, p.node, p.owner].some((s) => s.includes(filter)));
  const el = app.querySelector('#pods');

  function draw() {
    if (pods.error) {
      patch(el, errorBox(pods.error));
      return;
    }
    const groups = new Map();
    let shown = 0, total = 0;
    for (const p of pods.objects.values()) {
      total++;
      if (!matches(p)) continue;
      if (++shown > maxRows) continue;
      const g = p[by] || '(none)';
      if (!groups.has(g)) groups.set(g, []);
      groups.get(g).push(p);
    }
    shownCount = shown;
    app.querySelector('#pod-shown').textContent = `${shown} of ${total}${shown > maxRows ? `, the first ${maxRows} drawn` : ''}`;
    patch(el, [...groups.keys()].sort().map((g) => section(g, groups.get(g).sort((a, b) => (a.key < b.key ? -1 : 1)))).join('') || '<p class="muted">No pod.</p>');
  }
  const section = (g, list) => `<section class="group" data-key="${esc('group:' + g)}"><h2>${esc(g)} <span class="muted">${list.length}</span></h2>
      <table><thead><tr><th>Pod</th><th>Node</th><th>Owner</th><th>Phase</th><th>Ready</th><th>Address</th><th>Since</th><th>Termination</th></tr></thead><tbody>${
  list.map(row).join('')}</tbody></table></section>`;
  const row = (p) => `<tr class="pod phase-${esc(p.phase)}" data-key="${esc(p.key)}" data-pod="${esc(p.key)}" data-node="${esc(p.node)}" data-phase="${esc(p.phase)}" data-ready="${esc(p.ready)}">
    <td>${podLink(p.key, drawnAt)}</td><td>${p.node ? `<a class="node" data-node="${esc(p.node)}" href="${esc(nodeHref(p.node, drawnAt))}">${esc(p.node)}</a>` : '<span class="muted">unscheduled</span>'}</td>
    <td>${esc(p.owner)}</td><td>${esc(p.phase)}</td><td class="${p.ready === 'not ready' ? 'error' : ''}">${esc(p.ready)}</td><td>${esc(p.ip)}</td><td>${when(p.since)}</td>
    <td>${p.deleting ? `<ol class="steps"><li>deletion requested ${when(p.deleting)}${p.grace !== undefined ? `, grace ${esc(p.grace)} s` : ''}</li>${p.steps.map(([what, t]) => `<li>${esc(what)} ${when(t)}</li>`).join('')}</ol>` : ''}</td></tr>`;

  // A move (or a live change) is followed where it shows: a pod that
  // changed has its row rewritten, one that came has its row put in its
  // group in order (its group put in order first when it is new), one
  // that went has its row taken out, and the counts follow; only a pod
  // that changes group draws the list again (which patch keeps to what
  // differs). Drawing the whole list of a thousand groups at each step of
  // playback was the pods page's longest task (ARCHITECTURE.md, "The web
  // view's bundle").
  let shownCount = 0;
  function update(changed, full) {
    if (full || !changed || pods.error) {
      draw();
      return;
    }
    // The rows and groups on the page, by key, found in one walk: a
    // querySelector for each changed pod walked the whole page each time
    // (for a pod not shown yet, every row of a thousand groups).
    const trOf = new Map(), secs = [...el.querySelectorAll(':scope > section.group')], secOf = new Map();
    for (const tr of el.querySelectorAll('tr.pod')) trOf.set(tr.dataset.key, tr);
    for (const sec of secs) secOf.set(sec.dataset.key, sec);
    const rows = [], adds = [], removes = [];
    for (const k of changed) {
      const p = pods.objects.get(k);
      const tr = trOf.get(k);
      const shown = !!p && matches(p);
      if (!shown) {
        if (tr) removes.push(tr);
        continue;
      }
      const g = p[by] || '(none)';
      const sec = secOf.get('group:' + g);
      if (tr && tr.closest('section.group') !== sec) {
        draw();
        return;
      }
      if (tr) rows.push([tr, p]);
      else adds.push([sec, p, g]);
    }
    if (shownCount + adds.length - removes.length > maxRows) {
      draw();
      return;
    }
    const touched = new Set();
    for (const a of adds) if (!a[0]) a[0] = groupFor(a[2], secs, secOf);
    for (const [tr, p] of rows) patchElement(tr, row(p));
    for (const tr of removes) {
      touched.add(tr.closest('section.group'));
      tr.remove();
    }
    const t = document.createElement('template');
    for (const [sec, p] of adds) {
      t.innerHTML = row(p);
      const body = sec.querySelector('tbody'), list = body.children;
      let lo = 0, hi = list.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (list[mid].dataset.key < p.key) lo = mid + 1;
        else hi = mid;
      }
      body.insertBefore(t.content.firstElementChild, list[lo] || null);
      touched.add(sec);
    }
    for (const sec of touched) {
      const n = sec.querySelectorAll('tr.pod').length;
      if (!n) sec.remove();
      else sec.querySelector('h2 .muted').textContent = String(n);
    }
    shownCount += adds.length - removes.length;
    app.querySelector('#pod-shown').textContent = `${shownCount} of ${pods.objects.size}`;
    if (!el.querySelector('section.group')) draw();
  }

  // groupFor is group g's section, put on the page, empty, among the
  // others in order, when it is not there yet; secs (the sections in
  // order) and secOf (them by key) follow.
  function groupFor(g, secs, secOf) {
    const k = 'group:' + g;
    const have = secOf.get(k);
    if (have) return have;
    const t = document.createElement('template');
    t.innerHTML = section(g, []);
    const sec = t.content.firstElementChild;
    let lo = 0, hi = secs.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (secs[mid].dataset.key.slice(6) < g) lo = mid + 1;
      else hi = mid;
    }
    if (!secs.length) el.replaceChildren(sec);
    else el.insertBefore(sec, secs[lo] || null);
    secs.splice(lo, 0, sec);
    secOf.set(k, sec);
    return sec;
  }

  const unlisten = pods.listen(update);
  pods.load(at);
  // Another moment of the past (playback, a step, a time typed in) is
  // followed in place: the pods then are listed, and only the rows that
  // changed, came or went are rewritten (dom.js patch); the page keeps
  // its scroll, focus and filter.
  if (at) {
    ctx.moveTo = (next) => {
      at = next;
      pods.moveTo(at);
    };
    const freshen = (e) => {
      const a = e.target.closest?.('a.node, a.pod-link');
      if (!a) return;
      const href = a.classList.contains('node') ? nodeHref(a.dataset.node, at) : podHref(a.dataset.pod, at);
      if (a.getAttribute('href') !== href) a.setAttribute('href', href);
    };
    for (const type of ['pointerover', 'focusin', 'click', 'auxclick', 'contextmenu']) el.addEventListener(type, freshen, true);
  }
  return () => {
    unlisten();
    pods.stop();
    clearTimeout(typing);
  };
}

function nodeHref(node, at) {
  return `#/nodes/${encodeURIComponent(node)}${at ? '?at=' + encodeURIComponent(at) : ''}`;
}
