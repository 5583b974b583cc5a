// A pod's page: its phase, readiness, node and owner, what is wrong with
// it and why, how it came to be (its creation and its binding, each with
// its chain of causes), and its conditions — now or as of the time
// control. The answers are herd's explanation of the pod, as `herd pod
// why` prints it.

import { get, query } from './api.js';
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

  async function readPod(signal) {
    const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods`;
    if (!at) return get(`${path}/${encodeURIComponent(name)}`, signal);
    const list = await get(path + query({ fieldSelector: 'metadata.name=' + name, asOf: at }), signal);
    if (!list.items.length) throw new Error(`${key} did not exist at ${new Date(at).toLocaleString()}`);
    return list.items[0];
  }

  async function draw() {
    const signal = ctl.signal;
    try {
      const [p, why] = await Promise.all([
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
    } catch (e) {
      if (!signal.aborted) patch($('pod-head'), errorBox(e));
    }
  }

  draw();
  // The past follows the time control in place (playback, a step, a
  // typed time), and says when it has; live, the page reads the pod again
  // every two seconds.
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
  const every = at ? 0 : setInterval(draw, 2000);
  return () => {
    ctl.abort();
    clearInterval(every);
  };
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
