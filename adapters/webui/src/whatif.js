// What if: herd's reconcilers run again on a window of the log, under
// other settings, with nodes that fail or are drained or with
// PodDisruptionBudgets set otherwise, and the outcomes that would have
// differed, each with its chain of causes in the simulated log (POST
// /apis/herd.dev/v1/whatifs, which writes nothing to the real log). The
// question lives in the route's parameters, so that an answer can be
// linked to and asked again. The settings a what-if may change are
// herd's to say: the page asks a dry run of a question that changes none
// (?dryRun=All answers every setting herd would run it with) and offers
// each duration and each number among them, with herd serve's own
// value.

import { get, send } from './api.js';
import { esc, errorBox, local } from './dom.js';

// isDuration says whether a setting's value is a duration as herd writes
// one (Go's: "40s", "1m30s", "0s"): the settings offered are those.
const durationForm = '(\\d+(\\.\\d+)?(ns|us|µs|ms|s|m|h))+';
const isDuration = (v) => typeof v === 'string' && new RegExp(`^${durationForm}$`).test(v);
// choices are the settings whose values are words, with the words herd
// takes.
const choices = { schedulerScoringStrategy: ['LeastAllocated', 'MostAllocated', 'RequestedToCapacityRatio'] };
// patterns are the settings written in a form of their own, with the
// form's pattern and what it means.
const patterns = {
  schedulerScoringShape: ['\\d+=\\d+(,\\d+=\\d+)*', 'RequestedToCapacityRatio\'s UTILIZATION=SCORE points, scores 0 to 10: 0=0,100=10 packs'],
};

// offered says whether the page offers a setting of herd's value v: a
// duration, a number (a share of the fleet, a rate), one of choices, or
// one of patterns.
const offered = (v, name) => isDuration(v) || typeof v === 'number' || name in choices || name in patterns;

// words is a setting's name as the page says it: "podGCTimeout" is
// "pod GC timeout".
export function words(name) {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(' ').map((w) => (/^[A-Z][a-z]/.test(w) ? w.toLowerCase() : w)).join(' ');
}

// routeSetting is a setting's value in the route: under its own name,
// or, for the grace period, the name earlier links used.
function routeSetting(params, name) {
  return params.get(name) || (name === 'nodeMonitorGracePeriod' ? params.get('grace') || '' : '');
}

// herdSettings asks herd, by a dry run of a question that changes
// nothing (over the last second, which any window herd allows holds),
// for the durations and numbers a what-if may change and herd serve's
// own value of each, as [name, value] in herd's order.
async function herdSettings(signal) {
  const a = await send('POST', '/apis/herd.dev/v1/whatifs?dryRun=All',
    { apiVersion: 'herd.dev/v1', kind: 'WhatIf', spec: { since: '1s' } }, 'application/json', signal);
  // A setting in a form of its own that herd runs without (no scoring
  // shape) is left out of herd's answer, and offered empty.
  const own = { ...(a.spec?.settings || {}) };
  for (const name of Object.keys(patterns)) if (!(name in own)) own[name] = '';
  return Object.entries(own).filter(([name, v]) => offered(v, name));
}

// settingInput is the input of one of herd's settings, herd's own value
// v as its placeholder.
function settingInput(name, v, value) {
  let form = `pattern="${durationForm}" title="a duration: 40s, 1m30s, 500ms"`;
  if (name in choices) {
    form = `list="whatif-choices-${esc(name)}" pattern="${choices[name].join('|')}" title="${esc(choices[name].join(' or '))}"`;
  } else if (name in patterns) {
    form = `pattern="${esc(patterns[name][0])}" title="${esc(patterns[name][1])}"`;
  } else if (typeof v === 'number') {
    if (/SizeThreshold$/.test(name)) form = 'type="number" step="1" min="0" title="a number of nodes"';
    else if (/Threshold$/.test(name)) form = 'type="number" step="0.01" min="0.01" max="1" title="a share of the fleet: 0.55 is 55%"';
    else form = 'type="number" step="any" min="0" title="a number, 0 or more"';
  }
  return `<label>${esc(words(name))}
      <input id="whatif-setting-${esc(name)}" data-setting="${esc(name)}" placeholder="herd's own (${esc(v === '' ? 'none' : v)})" value="${esc(value)}"
        size="8" ${form}>${name in choices ? `<datalist id="whatif-choices-${esc(name)}">${choices[name].map((c) => `<option value="${esc(c)}">`).join('')}</datalist>` : ''}
      <span class="whatif-setting-error error" hidden></span></label>`;
}

// settingValue is a setting's value from the route as herd takes it: a
// number for a number herd has.
const settingValue = (own, v) => (typeof own === 'number' ? Number(v) : v);

// changeKinds are the inputs a what-if may change: a route parameter
// each ("fail=web-01@2026-11-28T09:12:00Z"), repeatable.
const changeKinds = [
  ['fail', 'fails at'],
  ['drain', 'is drained at'],
];

// budgetForm is a budget's change in the route, as herd what-if
// --budget takes it: NAMESPACE/NAME:minAvailable=N@TIME (or
// maxUnavailable), N a count or a percentage.
const budgetForm = /^([^/@:]+)\/([^/@:]+):(minAvailable|maxUnavailable)=([^@]+)@(.+)$/;

// parseBudget reads a budget's change from the route; null for one that
// is not in its form.
function parseBudget(v) {
  const m = budgetForm.exec(v);
  return m && { kind: 'budget', namespace: m[1], name: m[2], field: m[3], value: m[4], at: m[5] };
}

// budgetValue is a budget's count or percentage as herd's API takes
// it: "25%" stays a string, "2" is a number.
const budgetValue = (v) => (/^\d+$/.test(v) ? Number(v) : v);

export function whatIfPage(ctx) {
  const { app, params, live } = ctx;
  const since = params.get('since') || new Date(Date.now() - 3600e3).toISOString();
  const until = params.get('until') || '';
  const changes = changeKinds.flatMap(([k]) => params.getAll(k).map((v) => {
    const i = v.lastIndexOf('@');
    return { kind: k, node: v.slice(0, i), at: v.slice(i + 1) };
  }));
  const budgets = params.getAll('budget').map(parseBudget).filter(Boolean);
  const nodes = [...live.objects.keys()].sort(); // for the node names' completion
  app.innerHTML = `
    <h1>What if</h1>
    <p class="muted">herd's reconcilers run again on a window of the log, in a scratch log of their own, with the changes below; nothing is written to the real log.</p>
    <form id="whatif-form" class="card">
      <div class="controls">
        <label>from <input id="whatif-since" type="datetime-local" step="1" value="${esc(local(since))}" required></label>
        <label>to <input id="whatif-until" type="datetime-local" step="1" value="${esc(local(until))}"> <span class="muted">(empty: now)</span></label>
        <label title="as kubectl drain does after a budget's refusal, until the budget allows it or the window ends">an eviction a budget refuses is asked again every
          <input id="whatif-eviction-retry" size="5" placeholder="5s" value="${esc(params.get('evictionRetry') || '')}" pattern="${durationForm}" title="a duration: 5s, 1m, 0s" aria-label="eviction retry">
          <span class="muted">(0s: asked once)</span></label>
      </div>
      <fieldset id="whatif-settings"><legend>herd's settings in the what-if <span class="muted">(empty: herd's own)</span></legend><p class="muted">Reading herd's settings…</p></fieldset>
      <datalist id="whatif-nodes">${nodes.map((n) => `<option value="${esc(n)}">`).join('')}</datalist>
      <datalist id="whatif-budgets"></datalist>
      <ol id="whatif-changes">${changes.map(changeRow).join('')}${budgets.map(budgetRow).join('')}</ol>
      <div class="controls">
        <button id="whatif-add-fail" type="button">+ a node fails</button>
        <button id="whatif-add-drain" type="button">+ a node is drained</button>
        <button id="whatif-add-budget" type="button">+ a budget is set</button>
        <button id="whatif-run" type="submit">Run the what-if</button>
      </div>
    </form>
    <div id="whatif-answer">${params.get('since') ? '<p class="muted" id="whatif-running">herd is running the what-if…</p>' : ''}</div>`;
  const list = app.querySelector('#whatif-changes');
  const add = (kind) => {
    const row = kind === 'budget'
      ? budgetRow({ kind, namespace: '', name: '', field: 'minAvailable', value: '', at: since })
      : changeRow({ kind, node: '', at: since });
    list.insertAdjacentHTML('beforeend', row);
    list.lastElementChild.querySelector('input').focus();
  };
  app.querySelector('#whatif-add-fail').addEventListener('click', () => add('fail'));
  app.querySelector('#whatif-add-drain').addEventListener('click', () => add('drain'));
  app.querySelector('#whatif-add-budget').addEventListener('click', () => add('budget'));
  list.addEventListener('click', (e) => {
    if (e.target.matches('.whatif-remove')) e.target.closest('li').remove();
  });
  app.querySelector('#whatif-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const p = new URLSearchParams();
    p.set('since', new Date(app.querySelector('#whatif-since').value).toISOString());
    const u = app.querySelector('#whatif-until').value;
    if (u) p.set('until', new Date(u).toISOString());
    const retry = app.querySelector('#whatif-eviction-retry').value.trim();
    if (retry) p.set('evictionRetry', retry);
    for (const input of app.querySelectorAll('#whatif-settings input[data-setting]')) {
      const v = input.value.trim();
      if (v) p.set(input.dataset.setting, v);
    }
    for (const li of list.querySelectorAll('li')) {
      const at = li.querySelector('.whatif-at').value;
      if (li.dataset.kind === 'budget') {
        const budget = li.querySelector('.whatif-budget').value.trim();
        const value = li.querySelector('.whatif-budget-value').value.trim();
        const field = li.querySelector('.whatif-budget-field').value;
        if (budget && value && at) p.append('budget', `${budget}:${field}=${value}@${new Date(at).toISOString()}`);
        continue;
      }
      const node = li.querySelector('.whatif-node').value.trim();
      if (node && at) p.append(li.dataset.kind, `${node}@${new Date(at).toISOString()}`);
    }
    p.set('asked', String(Date.now())); // the same question asked again runs again
    ctx.go(p);
  });
  // Leaving the page abandons the question: herd stops its what-if
  // when the request goes, and the next one can run.
  const ctl = new AbortController();
  const box = app.querySelector('#whatif-settings');
  (async () => {
    let own;
    try {
      own = await herdSettings(ctl.signal);
    } catch (e) {
      if (ctl.signal.aborted) return;
      box.querySelector('p').outerHTML = errorBox(e);
      // Without them the question cannot be read from the route.
      if (params.get('since')) app.querySelector('#whatif-answer').innerHTML = errorBox(e);
      return;
    }
    if (ctl.signal.aborted) return;
    box.querySelector('p').outerHTML = `<div class="controls">${own.map(([name, v]) => settingInput(name, v, routeSetting(params, name))).join('')}</div>`;
    if (!params.get('since')) return;
    const settings = Object.fromEntries(own.filter(([name]) => routeSetting(params, name))
      .map(([name, v]) => [name, settingValue(v, routeSetting(params, name))]));
    ask(app, { since, until, settings, own: Object.fromEntries(own), changes, budgets, evictionRetry: params.get('evictionRetry') }, ctl.signal);
  })();
  // The budgets herd holds, for their names' completion: the page works
  // without them.
  get('/apis/policy/v1/poddisruptionbudgets', ctl.signal).then((l) => {
    const names = (l.items || []).map((b) => `${b.metadata.namespace}/${b.metadata.name}`).sort();
    app.querySelector('#whatif-budgets').innerHTML = names.map((n) => `<option value="${esc(n)}">`).join('');
  }, () => {});
  return () => ctl.abort();
}

function budgetRow(b) {
  const option = (f) => `<option value="${f}"${b.field === f ? ' selected' : ''}>${f}</option>`;
  return `<li data-kind="budget" class="whatif-change">
    PodDisruptionBudget <input class="whatif-budget" list="whatif-budgets" value="${esc(b.namespace ? `${b.namespace}/${b.name}` : '')}"
      placeholder="namespace/name" pattern="[^/@:]+/[^/@:]+" required aria-label="budget">
    is set to <select class="whatif-budget-field" aria-label="bound">${option('minAvailable')}${option('maxUnavailable')}</select>
    <input class="whatif-budget-value" value="${esc(b.value)}" placeholder="2 or 25%" pattern="\\d+%?" size="5" required aria-label="pods">
    at <input class="whatif-at" type="datetime-local" step="1" value="${esc(local(b.at))}" required aria-label="time">
    <button type="button" class="whatif-remove" title="remove this change">✕</button></li>`;
}

function changeRow(c) {
  const label = changeKinds.find(([k]) => k === c.kind)?.[1] || c.kind;
  return `<li data-kind="${esc(c.kind)}" class="whatif-change">
    node <input class="whatif-node" list="whatif-nodes" value="${esc(c.node)}" placeholder="node name" required aria-label="node">
    ${esc(label)} <input class="whatif-at" type="datetime-local" step="1" value="${esc(local(c.at))}" required aria-label="time">
    <button type="button" class="whatif-remove" title="remove this change">✕</button></li>`;
}

// busyWait is how long the page waits before asking again while
// another what-if runs (herd runs one at a time), and busyTries how
// many times it asks.
const busyWait = 2000;
const busyTries = 60;

// refusedThen says what came of a refused eviction's later asks: the
// client asks again, as kubectl drain does, until it is granted or the
// window ends.
function refusedThen(e) {
  if (e.grantedAt) return `; asked again, it would have been granted at ${stamp(e.grantedAt)}, on ask ${esc(e.asks)}`;
  if (e.goneAt) return `; asked again, the pod had gone otherwise by ${stamp(e.goneAt)} (ask ${esc(e.asks)})`;
  if (e.asks > 1) return `, and the ${esc(e.asks - 1)} asks after it too, to the window's end; the pod stays`;
  return '; the pod stays';
}

// rowKinds are the rows of the question's changes by the field herd
// names them under.
const rowKinds = { nodeFailures: 'fail', drains: 'drain', budgets: 'budget' };

// refused marks each setting and each change herd refused, with what it
// said of it.
function refused(app, e) {
  for (const c of e.causes || []) {
    const row = /^spec\.(nodeFailures|drains|budgets)\[(\d+)\]/.exec(c.field || '');
    const li = row && app.querySelectorAll(`#whatif-changes li[data-kind="${rowKinds[row[1]]}"]`)[Number(row[2])];
    if (li) {
      li.setAttribute('aria-invalid', 'true');
      li.querySelector('.whatif-row-error')?.remove();
      li.insertAdjacentHTML('beforeend', `<span class="whatif-row-error error">${esc(c.message)}</span>`);
      continue;
    }
    const name = (c.field || '').replace(/^spec\.settings\./, '');
    const input = name !== c.field && app.querySelector(`#whatif-settings input[data-setting="${CSS.escape(name)}"]`);
    if (!input) continue;
    input.setAttribute('aria-invalid', 'true');
    const msg = input.parentElement.querySelector('.whatif-setting-error');
    msg.textContent = c.message;
    msg.hidden = false;
  }
}

async function ask(app, q, signal) {
  const el = app.querySelector('#whatif-answer');
  const spec = { since: q.since };
  if (q.until) spec.until = q.until;
  if (Object.keys(q.settings).length) spec.settings = q.settings;
  const at = (kind) => q.changes.filter((c) => c.kind === kind).map((c) => ({ node: c.node, at: c.at }));
  if (at('fail').length) spec.nodeFailures = at('fail');
  if (at('drain').length) spec.drains = at('drain');
  if (q.evictionRetry) spec.evictionRetry = q.evictionRetry;
  if (q.budgets.length) {
    spec.budgets = q.budgets.map((b) => ({ namespace: b.namespace, name: b.name, [b.field]: budgetValue(b.value), at: b.at }));
  }
  for (let tries = 1; ; tries++) {
    try {
      const answer = await send('POST', '/apis/herd.dev/v1/whatifs', { apiVersion: 'herd.dev/v1', kind: 'WhatIf', spec }, 'application/json', signal);
      if (!signal.aborted) el.innerHTML = report(answer, q.own);
      return;
    } catch (e) {
      if (signal.aborted) return;
      if (e.code !== 429 || tries >= busyTries) {
        el.innerHTML = errorBox(e);
        refused(app, e);
        return;
      }
      el.innerHTML = `<p class="muted" id="whatif-running">${esc(e.message)} — asking again in a moment…</p>`;
      await new Promise((done) => setTimeout(done, busyWait));
      if (signal.aborted) return;
    }
  }
}

// stamp is a time of the report as the operator reads it.
function stamp(t) {
  const d = new Date(t);
  return isNaN(d) ? esc(t) : `<time datetime="${esc(d.toISOString())}" title="${esc(d.toISOString())}">${esc(d.toLocaleString())}</time>`;
}

// objectLink links a stream ("node/web-01", "pod/demo/api-x") to its
// page: a node's own, the pods filtered by a pod's name, the audit log
// for the rest.
function objectLink(stream) {
  const [kind, ...rest] = stream.split('/');
  const name = rest.join('/');
  if (kind === 'node') return nodeLink(name);
  if (kind === 'pod') return podLink(name);
  return `<a href="#/audit?stream=${encodeURIComponent(stream)}">${esc(stream)}</a>`;
}

function nodeLink(name) {
  return name ? `<a class="whatif-node-link" href="#/nodes/${encodeURIComponent(name)}">${esc(name)}</a>` : '<span class="muted">no node</span>';
}

// podLink links a pod ("demo/api-x", or a workload's pods "demo/api-*")
// to the pods page, filtered by its name.
function podLink(key) {
  const name = key.split('/').pop().replace(/\*$/, '');
  return `<a class="whatif-pod-link" href="#/pods?filter=${encodeURIComponent(name)}">${esc(key)}</a>`;
}

function causes(cs) {
  if (!cs?.length) return '';
  return `<ol class="whatif-causes">${cs.map((c, i) => `<li>${i ? 'after' : 'because'} <code>${esc(c.type)}</code> on ${objectLink(c.stream)} by ${esc(c.actor)} at ${stamp(c.at)}</li>`).join('')}</ol>`;
}

// more says how many of a list the answer counts but does not list (it
// lists a node's or a pod's first few), and the last of them.
function more(listed, count, last, sep = ' ') {
  const n = (count || 0) - listed;
  return n > 0 ? `${sep}<span class="whatif-more">and ${n} more, the last ${last}</span>` : '';
}

function times(ts, count, last) {
  return ts?.length ? ts.map(stamp).join(', ') + more(ts.length, count, `at ${stamp(last)}`) : '<span class="muted">never</span>';
}

function eviction(e) {
  return `from ${nodeLink(e.node)} at ${stamp(e.at)} by ${esc((e.by || '').replace(/^system:herd:/, ''))}`;
}

function evictions(es, count, last) {
  return es?.length ? es.map(eviction).join('<br>') + (last ? more(es.length, count, eviction(last), '<br>') : '') : '<span class="muted">not evicted</span>';
}

// report draws the answer; own are herd serve's settings, against which
// those the what-if changed are named.
function report(a, own) {
  const r = a.status || {}, s = a.spec || {}, set = s.settings || {};
  const rows = (items, cells) => items.map((d) => `<tr>${cells(d).map((c) => `<td>${c}</td>`).join('')}</tr>`).join('');
  const section = (title, items, head, cells) => items?.length ? `<section class="card whatif-section"><h2>${title}</h2>
    <table class="whatif"><thead><tr>${head.map((h) => `<th>${h}</th>`).join('')}</tr></thead><tbody>${rows(items, cells)}</tbody></table></section>` : '';
  const changes = [
    ...(s.nodeFailures || []).map((f) => `<li>node ${nodeLink(f.node)} fails at ${stamp(f.at)}: nothing it sent from then reaches herd</li>`),
    ...(s.drains || []).map((d) => `<li>an operator drains node ${nodeLink(d.node)} at ${stamp(d.at)}</li>`),
    ...(s.evictionRetry ? [`<li class="whatif-eviction-retry">a client asks again every <b>${esc(s.evictionRetry)}</b> for an eviction a budget refused${s.evictionRetry === '0s' ? ' (it asks once)' : ''}</li>`] : []),
    ...(s.budgets || []).map((b) => `<li class="whatif-budget-change">an operator sets PodDisruptionBudget <a href="#/audit?stream=${encodeURIComponent(`poddisruptionbudget/${b.namespace}/${b.name}`)}">${esc(`${b.namespace}/${b.name}`)}</a> to ${b.minAvailable !== undefined ? `minAvailable ${esc(b.minAvailable)}` : `maxUnavailable ${esc(b.maxUnavailable)}`} at ${stamp(b.at)}</li>`),
  ];
  const changed = Object.entries(set).filter(([name, v]) => offered(v, name) && own?.[name] !== undefined && own[name] !== v)
    .map(([name, v]) => `<li data-setting="${esc(name)}">${esc(words(name))} of <b>${esc(v)}</b> instead of herd's ${esc(own[name])}</li>`);
  const differs = (r.nodes?.length || 0) + (r.pods?.length || 0) + (r.placements?.length || 0) + (r.workloads?.length || 0);
  return `<section class="card" id="whatif-summary">
      <h2>From ${stamp(r.since)} to ${stamp(r.until)}</h2>
      <p>${esc(r.events)} events replayed, ${esc(r.inputs)} of them from nodes and operators, with a node grace period of <b>${esc(set.nodeMonitorGracePeriod)}</b> (checked every ${esc(set.nodeMonitorPeriod)}, ${esc(set.nodeStartupGracePeriod)} for a new node).</p>
      ${changed.length ? `<ul id="whatif-changed">${changed.join('')}</ul>` : ''}
      ${changes.length ? `<ul>${changes.join('')}</ul>` : ''}
      ${(r.refusedEvictions || []).map((e) => `<p class="whatif-refused">The eviction of pod ${podLink(e.pod)} ${esc(e.actor)} asked for at ${stamp(e.at)} would have been refused by PodDisruptionBudget ${esc(e.budget)} (${esc(e.cause)})${refusedThen(e)}.</p>`).join('')}
      ${(r.downtimes || []).map((d) => `<p class="muted">herd was down from ${stamp(d.from)} to ${stamp(d.until)}; the what-if takes that as it was.</p>`).join('')}
      ${r.cut ? `<p class="muted">herd's log ends at ${stamp(r.cut.logEnd)}, more than a grace period before the end asked for (${stamp(r.cut.asked)}): herd recorded nothing after it (it was down, or is stopped), so the what-if ends at ${stamp(r.until)}.</p>` : ''}
      <p id="whatif-counts"><b>${differs ? `${differs} ${differs === 1 ? 'outcome' : 'outcomes'} would have differed` : 'Nothing would have differed'}</b>: ${esc(r.same)} decisions of herd's reconcilers the same, ${esc(r.missingCount ?? r.missing?.length ?? 0)} only herd made, ${esc(r.extraCount ?? r.extra?.length ?? 0)} only the what-if would have made.</p>
    </section>` +
    section('Nodes', r.nodes, ['node', 'went NotReady', 'in the what-if', 'why'], (d) => [nodeLink(d.node), times(d.actual, d.actualCount, d.actualLast), times(d.whatIf, d.whatIfCount, d.whatIfLast), causes(d.causes)]) +
    section('Evictions', r.pods, ['pod', 'evicted', 'in the what-if', 'why'], (d) => [podLink(d.pod), evictions(d.actual, d.actualCount, d.actualLast), evictions(d.whatIf, d.whatIfCount, d.whatIfLast), causes(d.causes)]) +
    section('Placements', r.placements, ['pod', 'placed on', 'in the what-if', 'why'], (d) => [podLink(d.pod), (d.actual || []).map(nodeLink).join(', ') || nodeLink(''), (d.whatIf || []).map(nodeLink).join(', ') || nodeLink(''), causes(d.causes)]) +
    section('Workloads below their desired availability', r.workloads, ['workload', 'for', 'in the what-if', 'why'], (d) => [esc(d.workload), esc(d.actual), esc(d.whatIf), causes(d.causes)]);
}
