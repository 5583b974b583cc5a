// What the page keeps of each pod: the few fields the pods page draws,
// made here for the page and for its worker (lister.js) alike.

// The steps of a pod's termination, in order, as herd records them.
const steps = [
  ['herd.dev/shutdown-requested-at', 'shutdown requested'],
  ['herd.dev/halted-at', 'halted'],
  ['herd.dev/stopped-at', 'stopped'],
  ['herd.dev/deprovisioned-at', 'deprovisioned'],
];

// readiness is what a pod's Ready condition says, in words: "ready",
// "not ready", or "" for a pod that has none yet.
export function readiness(p) {
  const c = (p.status?.conditions || []).find((c) => c.type === 'Ready');
  if (!c) return '';
  return c.status === 'True' ? 'ready' : 'not ready';
}

// summarizePod is the part of a v1.Pod the pods page uses.
export function summarizePod(p) {
  const md = p.metadata, ann = md.annotations || {};
  const owner = (md.ownerReferences || [])[0];
  return {
    key: md.namespace + '/' + md.name,
    name: md.name,
    namespace: md.namespace,
    labels: md.labels || {},
    node: p.spec?.nodeName || '',
    owner: owner ? `${owner.kind}/${owner.name}` : '',
    phase: md.deletionTimestamp ? 'Terminating' : p.status?.phase || 'Pending',
    ready: readiness(p),
    ip: p.status?.podIP || ann['herd.dev/pod-network-ip'] || '',
    since: p.status?.startTime || md.creationTimestamp,
    deleting: md.deletionTimestamp || '',
    grace: md.deletionGracePeriodSeconds,
    steps: steps.filter(([a]) => ann[a]).map(([a, what]) => [what, ann[a]]),
  };
}

// samePod says whether two summaries of a pod draw the same: the page
// and its worker (which sends the page only the pods that differ from
// the last list it sent) compare by it.
export function samePod(a, b) {
  return a.node === b.node && a.owner === b.owner && a.phase === b.phase && a.ready === b.ready && a.ip === b.ip && a.since === b.since &&
    a.deleting === b.deleting && a.grace === b.grace && a.steps.join() === b.steps.join() &&
    JSON.stringify(a.labels) === JSON.stringify(b.labels);
}
