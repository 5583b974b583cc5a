// The workloads that own the fleet's pods, by kind, each with how it is
// doing: Deployments, ReplicaSets, StatefulSets (with their pods by
// ordinal), DaemonSets, Jobs and CronJobs (with the Jobs they made), live
// or as they were at the moment shown.

import { get, query } from './api.js';
import { esc, errorBox, when, patch } from './dom.js';

// href is a route of the page, at the moment shown (live when empty).
function href(path, params, at) {
  const p = new URLSearchParams(params);
  if (at) p.set('at', at);
  const q = p.toString();
  return '#' + path + (q ? '?' + q : '');
}

// podsLink links a workload's pods: the pods page grouped by owner,
// filtered by its name.
function podsLink(name, at) {
  return `<a class="workload-pods" href="${esc(href('/pods', { by: 'owner', filter: name }, at))}">its pods</a>`;
}

// ownedBy says whether o names the object of kind with uid among its
// owners.
function ownedBy(o, kind, uid) {
  return (o.metadata.ownerReferences || []).some((r) => r.kind === kind && r.uid === uid);
}

// ordinal is a StatefulSet's pod's place: the number its name ends
// with after the StatefulSet's own name ("web-2" of web is 2).
function ordinal(sts, pod) {
  const n = Number(pod.metadata.name.slice(sts.metadata.name.length + 1));
  return Number.isInteger(n) ? n : Infinity;
}

// selectorOf is a label selector's query form (matchLabels and
// matchExpressions), as kubectl's -l takes it.
function selectorOf(sel) {
  const parts = Object.entries(sel?.matchLabels || {}).map(([k, v]) => `${k}=${v}`);
  for (const e of sel?.matchExpressions || []) {
    const vs = (e.values || []).join(',');
    if (e.operator === 'In') parts.push(`${e.key} in (${vs})`);
    else if (e.operator === 'NotIn') parts.push(`${e.key} notin (${vs})`);
    else if (e.operator === 'Exists') parts.push(e.key);
    else if (e.operator === 'DoesNotExist') parts.push('!' + e.key);
  }
  return parts.join(',');
}

// podState is how a pod of a StatefulSet is doing, in a word or two.
function podState(p) {
  if (p.metadata.deletionTimestamp) return 'Terminating';
  const ready = (p.status?.conditions || []).some((c) => c.type === 'Ready' && c.status === 'True');
  return `${p.status?.phase || 'Pending'}${ready ? ', ready' : ''}`;
}

// The workload kinds listed: each its list's path, the columns of its
// table past the name, and its row's cells; what a row needs beyond its
// object (a StatefulSet's pods, a CronJob's Jobs) is in seen.
const kinds = [
  {
    kind: 'Deployment', title: 'Deployments', path: '/apis/apps/v1/deployments', head: ['Status'],
    cells: (o) => [esc(`${o.status?.readyReplicas || 0}/${o.spec?.replicas ?? 1} ready, ${o.status?.updatedReplicas || 0} up to date`)],
  },
  {
    kind: 'ReplicaSet', title: 'ReplicaSets', path: '/apis/apps/v1/replicasets', head: ['Status'],
    cells: (o) => [esc(`${o.status?.readyReplicas || 0}/${o.spec?.replicas ?? 1} ready`)],
  },
  {
    kind: 'StatefulSet', title: 'StatefulSets', path: '/apis/apps/v1/statefulsets', head: ['Status', 'Revision', 'Pods'],
    cells: (o, seen) => {
      const st = o.status || {};
      const rev = st.updateRevision && st.currentRevision !== st.updateRevision
        ? `rolling from ${esc(st.currentRevision || 'none')} to ${esc(st.updateRevision)}`
        : esc(st.currentRevision || '');
      const pods = seen.statefulPods.get(o.metadata.uid);
      const list = pods instanceof Error ? errorBox(pods)
        : pods?.length ? `<ol class="ordinals">${pods.map((p) => `<li data-key="${esc(p.metadata.name)}" data-pod="${esc(p.metadata.namespace + '/' + p.metadata.name)}"><a href="${esc(href('/pods', { filter: p.metadata.name }, seen.at))}">${esc(p.metadata.name)}</a> <span class="muted">${esc(podState(p))}</span></li>`).join('')}</ol>`
          : '<span class="muted">none</span>';
      return [
        `<span class="sts-status">${esc(`${o.spec?.replicas ?? 1} desired, ${st.readyReplicas || 0} ready, ${st.updatedReplicas || 0} updated`)}</span>`,
        rev, list,
      ];
    },
  },
  {
    kind: 'DaemonSet', title: 'DaemonSets', path: '/apis/apps/v1/daemonsets', head: ['Status'],
    cells: (o) => [esc(`${o.status?.numberReady || 0}/${o.status?.desiredNumberScheduled || 0} ready`)],
  },
  {
    kind: 'Job', title: 'Jobs', path: '/apis/batch/v1/jobs', head: ['Status'],
    cells: (o) => [esc(jobState(o))],
  },
  {
    kind: 'CronJob', title: 'CronJobs', path: '/apis/batch/v1/cronjobs', head: ['Schedule', 'Suspended', 'Last schedule', 'Jobs'],
    cells: (o, seen) => {
      const jobs = (seen.lists.Job?.items || []).filter((j) => ownedBy(j, 'CronJob', o.metadata.uid))
        .sort((a, b) => (a.metadata.creationTimestamp < b.metadata.creationTimestamp ? -1 : a.metadata.creationTimestamp > b.metadata.creationTimestamp ? 1 : a.metadata.name < b.metadata.name ? -1 : 1));
      // A Job the CronJob counts active but the Jobs at the moment do
      // not hold (its list could not be read) is still named.
      const active = (o.status?.active || []).filter((r) => !jobs.some((j) => j.metadata.uid === r.uid));
      const made = [
        ...jobs.map((j) => `<li data-key="${esc(j.metadata.name)}" data-job="${esc(j.metadata.namespace + '/' + j.metadata.name)}">${jobLink(j.metadata.namespace, j.metadata.name, seen.at)} <span class="muted">${esc(jobState(j))}</span> ${podsLink(j.metadata.name, seen.at)}</li>`),
        ...active.map((r) => `<li data-key="${esc(r.name)}" data-job="${esc(r.namespace + '/' + r.name)}">${jobLink(r.namespace, r.name, seen.at)} <span class="muted">active</span></li>`),
      ];
      return [
        `<code class="cron-schedule">${esc(o.spec?.schedule || '')}</code>${o.spec?.timeZone ? ` <span class="muted">${esc(o.spec.timeZone)}</span>` : ''}`,
        `<span class="cron-suspended">${o.spec?.suspend ? 'suspended' : 'no'}</span>`,
        `<span class="cron-last">${o.status?.lastScheduleTime ? when(o.status.lastScheduleTime) : '<span class="muted">never</span>'}</span>`,
        made.length ? `<ul class="cron-jobs">${made.join('')}</ul>` : '<span class="muted">none</span>',
      ];
    },
  },
];

function jobState(o) {
  return `${o.status?.succeeded || 0} succeeded, ${o.status?.active || 0} active, ${o.status?.failed || 0} failed`;
}

// jobLink links a Job to its row in the page's Jobs.
function jobLink(ns, name, at) {
  return `<a class="job-link" href="${esc(href('/workloads', { show: `Job/${ns}/${name}` }, at))}">${esc(name)}</a>`;
}

export function workloadsPage(ctx) {
  const { app, params } = ctx;
  let at = ctx.at;
  // show names a row to bring into view and mark ("Job/default/tick-1"):
  // where a CronJob's Job links to.
  const show = params.get('show') || '';
  app.innerHTML = '<h1>Workloads</h1><div id="workloads"><p class="muted">Loading…</p></div>';
  const el = app.querySelector('#workloads');
  const ctl = new AbortController();
  let reading = false, again = false, shown = false;

  // read lists every kind at the moment, and each StatefulSet's pods
  // (by its selector, those it owns) at the same moment.
  async function read(moment) {
    const asOf = query({ asOf: moment || undefined });
    const lists = {};
    await Promise.all(kinds.map(async (k) => {
      try {
        lists[k.kind] = await get(k.path + asOf, ctl.signal);
      } catch (e) {
        lists[k.kind] = { error: e };
      }
    }));
    const statefulPods = new Map();
    await Promise.all((lists.StatefulSet?.items || []).map(async (s) => {
      const sel = selectorOf(s.spec?.selector);
      const path = `/api/v1/namespaces/${encodeURIComponent(s.metadata.namespace)}/pods` +
        query({ labelSelector: sel || undefined, asOf: moment || undefined });
      try {
        const pods = await get(path, ctl.signal);
        statefulPods.set(s.metadata.uid, pods.items.filter((p) => ownedBy(p, 'StatefulSet', s.metadata.uid))
          .sort((a, b) => ordinal(s, a) - ordinal(s, b)));
      } catch (e) {
        statefulPods.set(s.metadata.uid, e);
      }
    }));
    return { lists, statefulPods, at: moment };
  }

  function html(seen) {
    return kinds.map((k) => {
      const list = seen.lists[k.kind];
      if (list.error) return `<section class="card" data-key="kind:${k.kind}"><h2>${k.title}</h2>${errorBox(list.error)}</section>`;
      const items = [...list.items].sort((a, b) => (a.metadata.namespace + '/' + a.metadata.name < b.metadata.namespace + '/' + b.metadata.name ? -1 : 1));
      return `<section class="card" data-key="kind:${k.kind}" data-kind="${k.kind}"><h2>${k.title} <span class="muted">${items.length}</span></h2>${items.length
        ? `<table><thead><tr><th>Name</th>${k.head.map((h) => `<th>${h}</th>`).join('')}<th>Created</th><th></th></tr></thead><tbody>${items.map((o) => {
          const id = `${k.kind}/${o.metadata.namespace}/${o.metadata.name}`;
          return `<tr data-key="${esc(id)}" data-workload="${esc(id)}"${id === show ? ' class="shown"' : ''}><td>${esc(o.metadata.namespace)}/${esc(o.metadata.name)}</td>${
            k.cells(o, seen).map((c) => `<td>${c}</td>`).join('')}<td>${when(o.metadata.creationTimestamp)}</td><td>${podsLink(o.metadata.name, seen.at)}</td></tr>`;
        }).join('')}</tbody></table>`
        : '<p class="muted">none</p>'}</section>`;
    }).join('');
  }

  // draw reads the moment and shows it, one read at a time: a draw
  // asked while one reads waits for it and then reads the latest moment
  // (playback moves faster than a slow read), so that what is shown is
  // never more than one read behind. The page keeps what it shows until
  // then (patch rewrites only what changed).
  async function draw() {
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    try {
      do {
        again = false;
        const seen = await read(at);
        if (ctl.signal.aborted) return;
        if (again) continue;
        patch(el, html(seen));
      } while (again);
    } catch (e) {
      if (!ctl.signal.aborted) patch(el, errorBox(e));
      return;
    } finally {
      reading = false;
    }
    if (show && !shown) {
      const tr = el.querySelector(`tr[data-workload="${CSS.escape(show)}"]`);
      if (tr) {
        shown = true;
        tr.scrollIntoView({ block: 'center' });
      }
    }
  }
  draw();
  // Live, the page reads again every few seconds; in the past, playback
  // and steps move it in place. It does not follow watches: one per kind
  // and one for the StatefulSets' pods would be seven streams, past the
  // six connections a browser opens to one host over HTTP/1.1, and the
  // page's own reads would wait behind them.
  const timer = at ? 0 : setInterval(draw, 5000);
  if (at) {
    ctx.moveTo = (next) => {
      at = next;
      draw();
    };
  }
  return () => {
    ctl.abort();
    clearInterval(timer);
  };
}
