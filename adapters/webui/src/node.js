// A node's page: what is wrong and why, its conditions, taints, agent,
// capacity against its pods' requests, its pods, charts of its numbers
// and its timeline, now or as of the time control.

import { get, query } from './api.js';
import { esc, errorBox, when, patch } from './dom.js';
import { conditionBad, summarize } from './fleet.js';
import { nodeActions } from './actions.js';
import { drawSeries } from './charts.js';
import { readiness } from './pod.js';
import { chains, podLink } from './podpage.js';

export function nodePage(ctx) {
  const { app, live, session } = ctx;
  const name = ctx.args[0];
  let at = ctx.at;
  let asOf = at || undefined;
  app.innerHTML = `
    <p class="crumbs"><a href="#/${at ? '?at=' + encodeURIComponent(at) : ''}">Fleet</a> / ${esc(name)}</p>
    <div id="node-head"><p class="muted">Loading ${esc(name)}…</p></div>
    <div id="action-result" role="status"></div>
    <div id="node-why"></div>
    <div class="columns">
      <section id="node-conditions" class="card"></section>
      <section id="node-agent" class="card"></section>
    </div>
    <section id="node-capacity" class="card"></section>
    <section id="node-charts" class="card"><h2>History</h2><p class="muted">Loading its numbers…</p></section>
    <section id="node-pods" class="card"></section>
    <section id="node-timeline" class="card"></section>`;
  const $ = (id) => app.querySelector('#' + id);
  let ctl = new AbortController();
  let pods = [];

  async function readNode(signal) {
    if (!at) return get(`/api/v1/nodes/${encodeURIComponent(name)}`, signal);
    const list = await get('/api/v1/nodes' + query({ fieldSelector: 'metadata.name=' + name, asOf }), signal);
    if (!list.items.length) throw new Error(`${name} did not exist at ${new Date(at).toLocaleString()}`);
    return list.items[0];
  }

  async function drawStatus() {
    const signal = ctl.signal;
    let n;
    try {
      n = await readNode(signal);
    } catch (e) {
      if (!signal.aborted) patch($('node-head'), errorBox(e));
      return;
    }
    if (signal.aborted) return;
    const s = summarize(n);
    const ann = n.metadata.annotations || {};
    const taints = n.spec?.taints || [];
    patch($('node-head'), `
      <h1>${esc(name)} <span id="node-state" class="state s-${s.state}" data-state="${s.state}">${s.state}</span></h1>
      <p class="muted">${esc(s.kind)}${s.version ? ' · ' + esc(s.version) : ''}${s.unschedulable ? ' · cordoned' : ''} · resourceVersion ${esc(n.metadata.resourceVersion)}</p>
      <div id="node-actions"></div>`);
    if (session.canAct && !at) nodeActions($('node-actions'), n, s, drawStatus);
    patch($('node-conditions'), `<h2>Conditions</h2>
      <table><thead><tr><th>Type</th><th>Status</th><th>Reason</th><th>Last changed</th><th>Message</th></tr></thead><tbody>${
  (n.status?.conditions || []).map((c) => `<tr class="${conditionBad(c.type, c.status) ? 'bad' : ''}" data-condition="${esc(c.type)}"><td>${esc(c.type)}</td><td>${esc(c.status)}</td><td>${esc(c.reason)}</td><td>${when(c.lastTransitionTime)}</td><td>${esc(c.message)}</td></tr>`).join('')
}</tbody></table>
      <h3>Taints</h3>${taints.length ? `<ul id="taints">${taints.map((t) => `<li><code>${esc(t.key)}${t.value ? '=' + esc(t.value) : ''}:${esc(t.effect)}</code>${t.timeAdded ? ' since ' + when(t.timeAdded) : ''}</li>`).join('')}</ul>` : '<p class="muted">none</p>'}`);
    patch($('node-agent'), `<h2>Agent</h2><dl>
      <dt>State</dt><dd id="agent-state">${esc(ann['herd.dev/agent-state'] || '—')}</dd>
      <dt>Restarts</dt><dd>${esc(ann['herd.dev/restart-count'] || '0')}${ann['herd.dev/last-restart-reason'] ? ` (last: ${esc(ann['herd.dev/last-restart-reason'])})` : ''}</dd>
      <dt>Started</dt><dd>${when(ann['herd.dev/started-at'])}</dd>
      <dt>Last heartbeat</dt><dd>${when(ann['herd.dev/last-heartbeat'])}</dd>
      <dt>Addresses</dt><dd>${(n.status?.addresses || []).map((a) => `${esc(a.type)} ${esc(a.address)}`).join(', ') || '—'}</dd>
      <dt>System</dt><dd>${esc([n.status?.nodeInfo?.osImage, n.status?.nodeInfo?.architecture, n.status?.nodeInfo?.kernelVersion].filter(Boolean).join(' · ') || '—')}</dd>
      ${ann['herd.dev/scrape-failure'] ? `<dt>Scrape</dt><dd class="error">${esc(ann['herd.dev/scrape-failure'])}</dd>` : ''}
    </dl>`);
    drawCapacity(n);
    if (s.state !== 'Ready') await drawWhy();
    else patch($('node-why'), '');
  }

  async function drawWhy() {
    const signal = ctl.signal;
    try {
      const why = await get(`/apis/herd.dev/v1/nodes/${encodeURIComponent(name)}/explanation` + query({ asOf }), signal);
      if (!why.items.length) {
        patch($('node-why'), '');
        return;
      }
      patch($('node-why'), `<section class="card why" id="why"><h2>Why</h2>${chains(why.items)}</section>`);
    } catch (e) {
      if (!signal.aborted) patch($('node-why'), errorBox(e));
    }
  }

  function drawCapacity(n) {
    const alloc = n.status?.allocatable || n.status?.capacity || {};
    const req = { cpu: 0, memory: 0, pods: 0 };
    for (const p of pods) {
      if (p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed') continue;
      req.pods++;
      for (const c of p.spec?.containers || []) {
        req.cpu += quantity(c.resources?.requests?.cpu);
        req.memory += quantity(c.resources?.requests?.memory);
      }
    }
    const row = (what, used, of, say) => {
      const total = quantity(of);
      const pct = total ? Math.min(100, (used / total) * 100) : 0;
      return `<tr data-quantity="${what}"><td>${what}</td><td class="amount">${esc(say(used, of === undefined || of === null ? undefined : total))}</td><td><meter min="0" max="100" value="${pct.toFixed(0)}">${pct.toFixed(0)}%</meter> ${total ? pct.toFixed(0) + '%' : ''}</td></tr>`;
    };
    patch($('node-capacity'), `<h2>Capacity and requests</h2><table><tbody>
      ${row('CPU', req.cpu, alloc.cpu, cores)}
      ${row('Memory', req.memory, alloc.memory, bytesOf)}
      ${row('Pods', req.pods, alloc.pods, (v, of) => `${v} of ${of ?? '—'}`)}
    </tbody></table>`);
  }

  async function drawPods() {
    const signal = ctl.signal;
    try {
      const list = await get('/api/v1/pods' + query({ fieldSelector: 'spec.nodeName=' + name, asOf }), signal);
      pods = list.items;
      patch($('node-pods'), `<h2>Pods <span class="muted">${pods.length}</span></h2>${pods.length ? `<table><thead><tr><th>Pod</th><th>Phase</th><th>Ready</th><th>Address</th><th>Since</th></tr></thead><tbody>${
        pods.map((p) => `<tr class="pod" data-key="${esc(p.metadata.namespace + '/' + p.metadata.name)}" data-pod="${esc(p.metadata.namespace + '/' + p.metadata.name)}" data-ready="${esc(readiness(p))}"><td>${podLink(p.metadata.namespace + '/' + p.metadata.name, at)}</td><td>${esc(p.metadata.deletionTimestamp ? 'Terminating' : p.status?.phase)}</td><td class="${readiness(p) === 'not ready' ? 'error' : ''}">${esc(readiness(p))}</td><td>${esc(p.status?.podIP || '')}</td><td>${when(p.status?.startTime || p.metadata.creationTimestamp)}</td></tr>`).join('')}</tbody></table>` : '<p class="muted">none</p>'}`);
    } catch (e) {
      if (!signal.aborted) patch($('node-pods'), errorBox(e));
    }
  }

  async function drawTimeline() {
    const signal = ctl.signal;
    try {
      const tl = await get(`/apis/herd.dev/v1/nodes/${encodeURIComponent(name)}/timeline` + query({ asOf }), signal);
      const items = tl.items.slice().reverse();
      const shown = items.slice(0, 200);
      patch($('node-timeline'), `<h2>Timeline <span class="muted">newest first${items.length > shown.length ? `, ${shown.length} of ${items.length}` : ''}</span></h2><ol class="timeline" id="timeline">${
        shown.map((e) => `<li class="${e.type === 'Warning' ? 'warn' : ''}"><b>${esc(e.kind)}</b> ${when(e.at)} <span class="muted">${esc(e.reason || '')}</span><br>${esc(e.message || '')}</li>`).join('') || '<li class="muted">nothing yet</li>'}</ol>`);
    } catch (e) {
      if (!signal.aborted) patch($('node-timeline'), errorBox(e));
    }
  }

  drawPods().then(drawStatus);
  drawTimeline();
  drawSeries($('node-charts'), name, at, ctl.signal);

  // Another moment of the past (playback, a step, a time typed in) is
  // followed in place: the node, its pods, its why, timeline and charts
  // then are read, and only what differs is rewritten (dom.js patch), so
  // that the page keeps its scroll, focus and whatever is open. A move
  // asked for while one is on its way waits for it, and only the latest
  // is read.
  let moving = false, next = '';
  // The charts' width, as the browser last laid them out: read at each
  // step it forced a layout of the whole page inside playback's tick.
  let chartsWidth = 0;
  const sized = new ResizeObserver(([e]) => { chartsWidth = Math.round(e.contentRect.width); });
  sized.observe($('node-charts'));
  if (at) {
    ctx.moveTo = async (to) => {
      next = to;
      if (moving) return;
      moving = true;
      try {
        while (next) {
          at = next;
          asOf = at;
          next = '';
          ctl.abort();
          ctl = new AbortController();
          const crumb = app.querySelector('.crumbs a');
          if (crumb) crumb.setAttribute('href', '#/?at=' + encodeURIComponent(at));
          const charts = $('node-charts');
          await Promise.all([
            drawPods().then(drawStatus),
            drawTimeline(),
            drawSeries(charts, name, at, ctl.signal, chartsWidth || 900),
          ]);
          performance.mark('herd:node-moved', { detail: { at } });
        }
      } finally {
        moving = false;
      }
    };
  }

  // Live: the node's changes redraw its status, at most once a second.
  let again = 0;
  const unlisten = at ? () => {} : live.listen((changed, full) => {
    if (!full && !(changed || []).includes(name)) return;
    if (again) return;
    again = setTimeout(() => {
      again = 0;
      drawStatus();
      drawTimeline();
    }, 1000);
  });
  return () => {
    ctl.abort();
    sized.disconnect();
    unlisten();
    clearTimeout(again);
  };
}

// quantity reads a Kubernetes quantity ("250m", "1Gi", "2") as a number.
export function quantity(q) {
  if (q === undefined || q === null || q === '') return 0;
  const m = String(q).match(/^([0-9.]+)([a-zA-Z]*)$/);
  if (!m) return 0;
  const units = { m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, Ti: 1024 ** 4, Pi: 1024 ** 5, Ei: 1024 ** 6 };
  return parseFloat(m[1]) * (units[m[2]] ?? 1);
}

// amount says a number as a person reads it: two significant digits
// under one (0.05, 0.19), two decimals at most under ten (1.75, 3.5),
// one under a hundred (12.5), none above.
function amount(v) {
  if (v === 0) return '0';
  if (v < 1) return String(+v.toPrecision(2));
  return String(+v.toFixed(v < 10 ? 2 : v < 100 ? 1 : 0));
}

// cores says CPU used of a total (both in cores) in one unit: cores, or
// millicores when the total is under one core ("50m of 500m").
export function cores(used, total) {
  if (total === undefined) return `${amount(used)} cores requested`;
  if (total < 1) return `${amount(used * 1000)}m of ${amount(total * 1000)}m`;
  return `${amount(used)} of ${amount(total)} ${total === 1 ? 'core' : 'cores'}`;
}

const byteUnits = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

// bytesOf says memory used of a total (bytes) in the total's unit, so
// that the two read against each other: "0.5 of 7.5 GiB".
export function bytesOf(used, total) {
  if (total === undefined) return bytes(used) + ' requested';
  let i = 0;
  while (total >= 1024 && i < byteUnits.length - 1) {
    total /= 1024;
    used /= 1024;
    i++;
  }
  return `${amount(used)} of ${amount(total)} ${byteUnits[i]}`;
}

export function bytes(v) {
  let i = 0;
  while (v >= 1024 && i < byteUnits.length - 1) {
    v /= 1024;
    i++;
  }
  return `${+(v.toFixed(1))} ${byteUnits[i]}`;
}
