// The audit log: every event with its actor, time and cause, filtered by
// stream, type, actor and time, paged through the whole log; a cause
// links to the event that caused it, and a chain view follows causes back;
// an event's "led to" lists what it set off, transitively (?causedBy=);
// events one write appended together are marked as such.

import { get, query } from './api.js';
import { esc, errorBox, local, when } from './dom.js';

const pageSize = 100;
const maxChain = 16;

// routine are the event types of a node merely saying it is alive: a
// fleet records many a second, so the log opens without them (left out
// by herd, so that a page is still a full page) until asked for.
const routine = ['HeartbeatRecorded', 'LeaseRenewed'];

export function auditPage(ctx) {
  const { app, at, params } = ctx;
  const f = (k) => params.get(k) || '';
  app.innerHTML = `
    <h1>Audit log</h1>
    <form id="audit-filter" class="controls">
      <input name="stream" placeholder="stream (node/web-01, or a prefix ending in /)" value="${esc(f('stream'))}">
      <input name="type" placeholder="types, comma-separated" value="${esc(f('type'))}">
      <input name="actor" placeholder="actor" value="${esc(f('actor'))}">
      <label>since <input name="since" type="datetime-local" step="1" value="${esc(local(f('since')))}"></label>
      <label>until <input name="until" type="datetime-local" step="1" value="${esc(local(f('until')))}"></label>
      <button type="submit">Filter</button>
      <button type="button" id="audit-start">From the start</button>
      <label title="${esc(routine.join(', '))}"><input type="checkbox" id="show-heartbeats" ${showRoutine(params) ? 'checked' : ''} ${f('type') ? 'disabled' : ''}> show heartbeats</label>
    </form>
    <div id="audit"><p class="muted">Loading…</p></div>`;
  const form = app.querySelector('#audit-filter');
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const p = new URLSearchParams();
    for (const k of ['stream', 'type', 'actor']) if (form[k].value.trim()) p.set(k, form[k].value.trim());
    for (const k of ['since', 'until']) if (form[k].value) p.set(k, new Date(form[k].value).toISOString());
    if (at) p.set('at', at);
    if (params.get('heartbeats')) p.set('heartbeats', params.get('heartbeats'));
    ctx.go(p);
  });
  app.querySelector('#show-heartbeats').addEventListener('change', (e) => {
    const p = new URLSearchParams(params);
    if (e.target.checked) p.set('heartbeats', 'shown');
    else p.delete('heartbeats');
    ctx.go(p);
  });
  app.querySelector('#audit-start').addEventListener('click', () => {
    const p = new URLSearchParams(params);
    for (const k of ['before', 'id']) p.delete(k);
    p.set('after', '0');
    ctx.go(p);
  });
  const el = app.querySelector('#audit');
  const ctl = new AbortController();
  if (f('id')) chain(el, f('id'), ctl.signal);
  else if (f('causedBy')) effects(el, f('causedBy'), ctl.signal);
  else list(el, params, at, ctl.signal);
  return () => ctl.abort();
}

// showRoutine says whether heartbeats are shown: when asked for, or
// when the types to show are named.
function showRoutine(params) {
  return params.get('heartbeats') === 'shown' || !!params.get('type');
}

// list shows a page: the newest events (or those before ?before=), or,
// with ?after=, the events after a position, oldest first.
async function list(el, params, at, signal) {
  const forward = params.has('after');
  const until = [params.get('until'), at].filter(Boolean).sort()[0];
  const q = {
    stream: params.get('stream'), type: params.get('type'), actor: params.get('actor'),
    since: params.get('since'), until,
    excludeType: showRoutine(params) ? undefined : routine.join(','),
    ...(forward ? { after: params.get('after'), limit: params.get('limit') || pageSize } : { tail: pageSize, before: params.get('before') }),
  };
  let page;
  try {
    page = await get('/apis/herd.dev/v1/auditevents' + query(q), signal);
  } catch (e) {
    if (!signal.aborted) el.innerHTML = errorBox(e);
    return;
  }
  if (signal.aborted) return;
  const items = forward ? page.items : page.items.slice().reverse();
  const nav = (k, v, label) => {
    const p = new URLSearchParams(params);
    for (const x of ['after', 'before', 'limit']) p.delete(x);
    p.set(k, v);
    return `<a class="page-link" id="audit-${k}" href="#/audit?${p}">${label}</a>`;
  };
  const links = [];
  if (forward && page.metadata.continue) links.push(nav('after', page.metadata.continue, 'Next page →'));
  if (!forward && page.items.length === pageSize) links.push(nav('before', String(page.items[0].position), 'Older →'));
  if (forward || params.has('before')) links.push(`<a class="page-link" href="#/audit?${new URLSearchParams([...params].filter(([k]) => !['after', 'before', 'limit'].includes(k)))}">Newest</a>`);
  el.innerHTML = `${page.thinned ? `<p class="muted">${esc(page.thinned.message)}</p>` : ''}
    <p class="muted">${forward ? 'oldest first' : 'newest first'}, ${items.length} events${showRoutine(params) ? '' : ', heartbeats and lease renewals hidden'}</p>
    <table class="audit"><thead><tr><th>#</th><th>Time</th><th>Stream</th><th>Type</th><th>Actor</th><th>Cause</th><th>Says</th></tr></thead>
    <tbody>${items.map(row).join('')}</tbody></table><p class="pager">${links.join(' ')}</p>`;
}

// row is one event. An event that one write (one request, one decision)
// appended together with the event before it in its stream is marked,
// so that what one command did reads as one.
function row(e) {
  const together = e.continuesWrite
    ? ` <span class="same-write" title="written in one write with v${e.version - 1} of ${esc(e.stream)}: one request or one decision appended both">⤷ with v${e.version - 1}</span>`
    : '';
  return `<tr class="audit-event${e.continuesWrite ? ' continues-write' : ''}" data-position="${e.position}" data-type="${esc(e.type)}">
    <td>${e.position}</td><td>${when(e.recordedAt)}</td><td><a href="#/audit?stream=${encodeURIComponent(e.stream)}">${esc(e.stream)}</a> <span class="muted">v${e.version}</span>${together}</td>
    <td>${esc(e.type)}</td><td>${esc(e.actor || '')}</td>
    <td>${e.causationId ? `<a class="cause" href="#/audit?id=${encodeURIComponent(e.id)}" title="caused by ${esc(e.causationId)}: the chain from this event back">${esc(e.causationId.slice(0, 8))}…</a>` : ''}
      <a class="effects" href="#/audit?causedBy=${encodeURIComponent(e.id)}" title="the events this one led to, directly or through others">led to…</a></td>
    <td><details><summary>payload</summary><pre>${esc(JSON.stringify(e.payload, null, 2))}</pre><p class="muted">id ${esc(e.id)}${e.correlationId ? ' · correlation ' + esc(e.correlationId) : ''}${e.source ? ' · via ' + esc(e.source) : ''}</p></details></td></tr>`;
}

// effects shows what the event id led to: the events naming it as their
// cause, the events naming those, and so on, oldest first, a page at a
// time as herd lists them.
async function effects(el, id, signal) {
  let root, page;
  try {
    [root, page] = await Promise.all([
      get('/apis/herd.dev/v1/auditevents' + query({ id }), signal),
      get('/apis/herd.dev/v1/auditevents' + query({ causedBy: id, limit: 1000 }), signal),
    ]);
  } catch (e) {
    if (!signal.aborted) el.innerHTML = errorBox(e);
    return;
  }
  if (signal.aborted) return;
  const what = root.items.length ? `${esc(root.items[0].type)} of ${esc(root.items[0].stream)}` : esc(id);
  el.innerHTML = `<h2>What ${what} led to</h2>
    <p class="muted">${page.items.length ? `${page.items.length}${page.metadata.continue ? ' (the first)' : ''} events, oldest first: those recorded because of it, and because of those.` : 'Nothing: no event names it as its cause.'}</p>
    ${root.items.length ? `<table class="audit" id="effects-of"><tbody>${row(root.items[0])}</tbody></table>` : ''}
    <table class="audit" id="effects"><thead><tr><th>#</th><th>Time</th><th>Stream</th><th>Type</th><th>Actor</th><th>Cause</th><th>Says</th></tr></thead>
    <tbody>${page.items.map(row).join('')}</tbody></table><p><a href="#/audit">The whole log</a></p>`;
}

// chain shows an event and the events that caused it, as far back as the
// log records causes. A cause that is no event is the request that made it.
async function chain(el, id, signal) {
  const found = [];
  let note = '';
  for (let next = id; next && found.length < maxChain;) {
    let page;
    try {
      page = await get('/apis/herd.dev/v1/auditevents' + query({ id: next }), signal);
    } catch (e) {
      if (!signal.aborted) el.innerHTML = errorBox(e);
      return;
    }
    if (!page.items.length) {
      note = found.length ? `It was caused by ${esc(next)}: a request to herd, not an event.` : `No event has the id ${esc(next)}: it names a request to herd.`;
      break;
    }
    found.push(page.items[0]);
    next = page.items[0].causationId;
  }
  if (signal.aborted) return;
  el.innerHTML = `<h2>Cause chain</h2><p class="muted">The event, then what caused it, and so on.</p>
    <table class="audit" id="chain"><thead><tr><th>#</th><th>Time</th><th>Stream</th><th>Type</th><th>Actor</th><th>Cause</th><th>Says</th></tr></thead>
    <tbody>${found.map(row).join('')}</tbody></table><p>${note}</p><p><a href="#/audit">The whole log</a></p>`;
}
