// A pod's page: its phase, readiness, node and owner, what is wrong with
// it and why, how it came to be (its creation and its binding, each with
// its chain of causes), and its conditions — now or as of the time
// control. The answers are herd's explanation of the pod, as `herd pod
// why` prints it.

import { get, query, watch, APIError } from './api.js';
import { esc, errorBox, when, patch } from './dom.js';
import { readiness } from './pod.js';

export function podPage(ctx) {
  const { app } = ctx;
  const [namespace, name] = ctx.args;
  const key = namespace + '/' + name;
  let at = ctx.at;
  app.innerHTML = `
    <p class="crumbs"><a href="#/pods${at ? '?at=' + encodeURIComponent(at) : ''}">Pods</a> / ${esc(key)}</p>
    <div id="pod-head"><p class="muted">Loading ${esc(key)}…</p></div>
    <div id="pod-why"></div>
    <section id="pod-origin" class="card"></section>
    <section id="pod-conditions" class="card"></section>`;
  const $ = (id) => app.querySelector('#' + id);
  let ctl = new AbortController();

  // readPod reads the pod, now or as of the time control, with the
  // position of the log it was read at (where a watch of it starts).
  async function readPod(signal) {
    const list = await get(`/api/v1/namespaces/${encodeURIComponent(namespace)}/pods` + query({ fieldSelector: 'metadata.name=' + name, asOf: at || undefined }), signal);
    if (!list.items.length) throw new Error(at ? `${key} did not exist at ${new Date(at).toLocaleString()}` : `pod ${key} not found`);
    return [list.items[0], list.metadata.resourceVersion];
  }

  // draw reads the pod and its explanation and redraws the page; it
  // returns the position of the log the pod was read at ('' when it
  // could not be read).
  async function draw() {
    const signal = ctl.signal;
    try {
      const [[p, rv], why] = await Promise.all([
        readPod(signal),
        get(`/apis/herd.dev/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(name)}/explanation` + query({ asOf: at || undefined }), signal),
      ]);
      if (signal.aborted) return;
      const ready = readiness(p);
      const owner = (p.metadata.ownerReferences || [])[0];
      const node = p.spec?.nodeName;
      patch($('pod-head'), `
        <h1>${esc(key)} <span id="pod-phase" class="badge">${esc(p.metadata.deletionTimestamp ? 'Terminating' : p.status?.phase || 'Pending')}</span>
          <span id="pod-ready" data-ready="${esc(ready)}" class="${ready === 'not ready' ? 'error' : 'muted'}">${esc(ready)}</span></h1>
        <p class="muted">${node ? `on <a class="node" href="#/nodes/${encodeURIComponent(node)}${at ? '?at=' + encodeURIComponent(at) : ''}">${esc(node)}</a>` : 'not bound to a node'}${
  owner ? ` · ${esc(owner.kind)} ${esc(owner.name)}` : ''}${p.status?.podIP ? ' · ' + esc(p.status.podIP) : ''} · resourceVersion ${esc(p.metadata.resourceVersion)}</p>`);
      patch($('pod-why'), why.items.length
        ? `<section class="card why" id="why"><h2>Why</h2>${chains(why.items)}</section>`
        : '<p id="why" class="ok">Nothing is wrong.</p>');
      patch($('pod-origin'), `<h2>How it came to be</h2><div id="origin">${chains(why.origin || [], 'at') || '<p class="muted">The log no longer holds it.</p>'}</div>`);
      patch($('pod-conditions'), `<h2>Conditions</h2>
        <table><thead><tr><th>Type</th><th>Status</th><th>Reason</th><th>Last changed</th><th>Message</th></tr></thead><tbody>${
  (p.status?.conditions || []).map((c) => `<tr class="${c.status !== 'True' ? 'bad' : ''}" data-condition="${esc(c.type)}"><td>${esc(c.type)}</td><td>${esc(c.status)}</td><td>${esc(c.reason)}</td><td>${when(c.lastTransitionTime)}</td><td>${esc(c.message)}</td></tr>`).join('')
}</tbody></table>`);
      performance.mark('herd:pod-drawn', { detail: { rv } });
      return rv;
    } catch (e) {
      if (!signal.aborted) patch($('pod-head'), errorBox(e));
      return '';
    }
  }

  // follow keeps the live page up to date: it watches the pod and draws
  // the page again when the pod changes (a burst of changes, or changes
  // while a draw is on its way, cost one more draw), rather than reading
  // it on a timer. A dropped or expired watch reads the pod afresh and
  // watches again from there.
  async function follow(signal) {
    const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods` + query({ fieldSelector: 'metadata.name=' + name });
    let drawing = null, again = false;
    const redraw = () => {
      if (drawing) {
        again = true;
        return;
      }
      drawing = draw().finally(() => {
        drawing = null;
        if (again && !signal.aborted) {
          again = false;
          redraw();
        }
      });
    };
    for (let attempt = 0; !signal.aborted; attempt++) {
      const rv = await draw();
      if (signal.aborted) return;
      try {
        if (rv) await watch(path, rv, redraw, signal);
        attempt = 0;
      } catch (e) {
        if (signal.aborted || (e instanceof APIError && (e.code === 401 || e.code === 403))) return;
      }
      await new Promise((r) => setTimeout(r, Math.min(5000, 250 * 2 ** attempt)));
    }
  }

  // The past follows the time control in place (playback, a step, a
  // typed time), and says when it has; live, the page follows the pod.
  if (!at) follow(ctl.signal);
  else draw();
  if (at) {
    ctx.moveTo = async (to) => {
      at = to;
      ctl.abort();
      ctl = new AbortController();
      app.querySelector('.crumbs a')?.setAttribute('href', '#/pods?at=' + encodeURIComponent(at));
      await draw();
      performance.mark('herd:pod-moved', { detail: { at } });
    };
  }
  return () => ctl.abort();
}

// chains draws explanation items: what, since when (at when, for how a
// pod came to be), and the chain of events behind it, each linked to its
// place in the audit log.
export function chains(items, word = 'since') {
  return items.map((x) => `
    <div class="why-item" data-what="${esc(x.what)}"><p><b>${esc(x.what)}</b> ${word} ${when(x.since)}</p><ol class="chain">${x.chain.map((ev) => `
      <li><a href="#/audit?${new URLSearchParams({ stream: ev.stream, after: String(ev.position - 1), limit: '1', heartbeats: 'shown' })}">${esc(ev.type)}</a>
      <span class="muted">#${ev.position} · ${esc(ev.stream)} · ${when(ev.recordedAt)}${ev.actor ? ' · by ' + esc(ev.actor) : ''}</span>${ev.says ? `<br>${esc(ev.says)}` : ''}</li>`).join('')}</ol></div>`).join('');
}

// podLink is a link to the page of the pod namespace/name, at the moment
// at (live when empty).
export function podLink(key, at) {
  return `<a class="pod-link" data-pod="${esc(key)}" href="${esc(podHref(key, at))}">${esc(key)}</a>`;
}

// podHref is the address of the pod's page at the moment at.
export function podHref(key, at) {
  const [namespace, name] = key.split('/');
  return `#/pods/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}${at ? '?at=' + encodeURIComponent(at) : ''}`;
}
