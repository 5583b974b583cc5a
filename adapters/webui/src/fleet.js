// What the page keeps of each node: the few fields it draws, not the
// Node object (a fleet of 10,000 full Nodes is tens of megabytes).

import { get, query, watch, token, failure, APIError } from './api.js';

// States, in the order the overview counts them; a tile takes the first
// that holds.
export const states = ['Lost', 'NotReady', 'Draining', 'Cordoned', 'Pressure', 'Ready'];

// conditionBad says whether a condition's status is a problem: Ready and
// the *Reachable conditions are good when True, the others (the
// pressures, HighLoad, NetworkUnavailable) when not.
export function conditionBad(type, status) {
  return type === 'Ready' || type.endsWith('Reachable') ? status !== 'True' : status === 'True';
}

// summarize is the part of a v1.Node the page uses.
export function summarize(n) {
  const md = n.metadata || {}, ann = md.annotations || {}, st = n.status || {};
  const conditions = {};
  for (const c of st.conditions || []) conditions[c.type] = c.status;
  const agent = ann['herd.dev/agent-state'] || '';
  const info = st.nodeInfo || {};
  return {
    name: md.name,
    rv: md.resourceVersion,
    labels: md.labels || {},
    kind: (md.labels || {})['herd.dev/kind'] || 'unknown',
    agent,
    version: info.kubeletVersion || '',
    unschedulable: !!(n.spec && n.spec.unschedulable),
    conditions,
    // ready is what kubectl's STATUS says: Ready only while Ready is True.
    ready: conditions.Ready === 'True' ? 'Ready' : 'NotReady',
    state: stateOf(conditions, agent, !!(n.spec && n.spec.unschedulable)),
  };
}

function stateOf(conditions, agent, unschedulable) {
  if (agent === 'Lost') return 'Lost';
  if (conditions.Ready !== 'True' || agent === 'Stopped') return 'NotReady';
  if (agent === 'Draining') return 'Draining';
  if (unschedulable) return 'Cordoned';
  if (Object.entries(conditions).some(([type, status]) => conditionBad(type, status))) return 'Pressure';
  return 'Ready';
}

// Collection is a kind's objects as of a moment: live (following the
// watch) or a list of the past (asOf), each kept as summarize makes it,
// by key. Listeners hear which keys changed, at most every coalesce
// milliseconds however fast the events come.
export class Collection {
  constructor(path, summarize, coalesce = 250) {
    this.path = path;
    this.summarize = summarize;
    this.objects = new Map();
    this.rv = '';
    this.asOf = '';
    this.loaded = false;
    this.error = null;
    this.listeners = new Set();
    this.coalesce = coalesce;
    this.pending = new Map();
    this.timer = 0;
    this.abort = null;
    this.moving = false;
    this.next = '';
    this.status = () => {};
    this.inWorker = false;
    // id names the collection to the worker; gen is the worker's list it
    // holds (0: none, or one the worker did not send).
    this.id = ++collections;
    this.gen = 0;
  }

  // listAsOf reads the objects as of a moment: [key, summary] pairs and
  // the list's resourceVersion. A collection inWorker (the fleet, the
  // pods: lister.js knows their summaries) has it read in the page's
  // worker: parsing a thousand objects' JSON and summarizing them is the
  // longest thing a playback step does, and there it holds up neither
  // input nor frames. Where the worker cannot start, the page reads the
  // list itself.
  //
  // The worker remembers the last list it sent each collection and, when
  // the collection still holds that one (its gen), sends only what
  // differs from it (diff: the [key, summary] pairs that changed or came,
  // the keys that went): a step of playback then hands the page the few
  // objects that moved, not a thousand to copy across and compare again.
  async listAsOf(at, signal) {
    if (this.inWorker && lister.works) {
      try {
        return { ...(await lister.list(this.path + query({ asOf: at }), signal, this.id, this.gen)), via: 'worker' };
      } catch (e) {
        if (e instanceof APIError || signal.aborted) throw e;
        lister.works = false;
      }
    }
    const list = await get(this.path + query({ asOf: at }), signal);
    return { items: list.items.map((o) => [key(o), this.summarize(o)]), rv: list.metadata.resourceVersion };
  }

  // same says whether two summaries of an object draw the same; a kind
  // that does not say has every object changed at each move.
  same() {
    return false;
  }

  listen(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  notify(changed, full) {
    for (const fn of this.listeners) fn(changed, full);
  }

  // load lists the objects (as of asOf when set) and, when live, follows
  // their changes until stop.
  async load(asOf) {
    this.stop();
    this.asOf = asOf || '';
    const ctl = new AbortController();
    this.abort = ctl;
    try {
      const list = await get(this.path + query({ asOf: this.asOf || undefined }), ctl.signal);
      if (ctl.signal.aborted) return;
      performance.mark('herd:list-parsed', { detail: this.path });
      this.objects = new Map();
      this.gen = 0;
      for (const n of list.items) this.objects.set(key(n), this.summarize(n));
      this.rv = list.metadata.resourceVersion;
      performance.mark('herd:list-summarized', { detail: this.path });
      this.loaded = true;
      this.error = null;
      this.notify(null, true);
      if (!this.asOf) this.follow(ctl.signal);
    } catch (e) {
      if (ctl.signal.aborted) return;
      this.abort = null;
      this.error = e;
      this.notify(null, true);
    }
  }

  // moveTo shows the objects as of another moment of the past in place:
  // listeners hear only the keys whose summary changed, so that a page
  // playing history back repaints what changed between two moments
  // rather than everything at each. A move asked for while a list is on
  // its way waits for it, and only the latest such move is listed: a
  // slow answer delays playback's picture, it does not pile requests up.
  async moveTo(asOf) {
    if (!asOf) return this.load('');
    this.next = asOf;
    if (this.moving) return;
    // A list or a watch on its way (the first list, or the live fleet):
    // the move replaces it.
    if (this.abort) this.abort.abort();
    clearTimeout(this.timer);
    this.timer = 0;
    this.pending.clear();
    this.moving = true;
    try {
      while (this.next) {
        const at = this.next;
        this.next = '';
        const ctl = new AbortController();
        this.abort = ctl;
        let list;
        try {
          list = await this.listAsOf(at, ctl.signal);
        } catch (e) {
          if (ctl.signal.aborted) return;
          this.error = e;
          this.gen = 0;
          this.notify(null, true);
          return;
        }
        if (ctl.signal.aborted) return;
        const parsed = performance.now();
        let objects, changed = [];
        if (list.diff) {
          objects = new Map(this.objects);
          for (const [k, s] of list.diff.changed) {
            objects.set(k, s);
            changed.push(k);
          }
          for (const k of list.diff.removed) {
            objects.delete(k);
            changed.push(k);
          }
        } else {
          objects = new Map();
          for (const [k, s] of list.items) {
            const was = this.objects.get(k);
            objects.set(k, s);
            if (!was || !this.same(was, s)) changed.push(k);
          }
          for (const k of this.objects.keys()) if (!objects.has(k)) changed.push(k);
        }
        const full = !this.loaded || !!this.error || !this.asOf;
        this.gen = list.gen || 0;
        this.objects = objects;
        this.asOf = at;
        this.rv = list.rv;
        this.loaded = true;
        this.error = null;
        const compared = performance.now();
        this.notify(full ? null : changed, full);
        // For the performance timeline (make bench-ui): when the list had
        // been read, how long comparing it and repainting took.
        // whole: the list came whole, not as what differs from the last.
        performance.mark('herd:moved', { detail: { at, changed: changed.length, parsed, compared, painted: performance.now(), via: list.via || 'page', whole: !list.diff } });
      }
    } finally {
      this.moving = false;
    }
  }

  // follow keeps the fleet live, reconnecting after a dropped stream and
  // listing afresh when the position it had was compacted away.
  async follow(signal) {
    this.status('live');
    for (let attempt = 0; !signal.aborted; attempt++) {
      try {
        await watch(this.path, this.rv, (batch) => this.queue(batch), signal);
        attempt = 0;
      } catch (e) {
        if (signal.aborted) return;
        if (e instanceof APIError && e.code === 410) {
          this.load('');
          return;
        }
        if (e instanceof APIError && (e.code === 401 || e.code === 403)) {
          this.status('stopped: ' + e.message);
          return;
        }
        this.status('reconnecting…');
        await new Promise((r) => setTimeout(r, Math.min(5000, 250 * 2 ** attempt)));
        this.status('live');
      }
    }
  }

  queue(batch) {
    for (const ev of batch) {
      if (ev.type === 'BOOKMARK') {
        this.rv = ev.object.metadata.resourceVersion;
        continue;
      }
      this.pending.set(key(ev.object), ev);
      this.rv = ev.object.metadata.resourceVersion || this.rv;
    }
    if (!this.timer && this.pending.size) {
      this.timer = setTimeout(() => this.flush(), this.coalesce);
    }
  }

  flush() {
    this.timer = 0;
    const changed = [];
    for (const [name, ev] of this.pending) {
      if (ev.type === 'DELETED') this.objects.delete(name);
      else this.objects.set(name, this.summarize(ev.object));
      changed.push(name);
    }
    this.pending.clear();
    this.notify(changed, false);
  }

  stop() {
    if (this.abort) this.abort.abort();
    this.next = '';
    this.abort = null;
    clearTimeout(this.timer);
    this.timer = 0;
    this.pending.clear();
  }
}

// sameSummary says whether two summaries of a node draw the same: its
// resourceVersion aside, which every heartbeat moves. Field by field: a
// thousand JSON.stringify pairs at each playback step cost tens of
// milliseconds on a busy machine.
export function sameSummary(a, b) {
  return a.state === b.state && a.ready === b.ready && a.kind === b.kind && a.agent === b.agent &&
    a.version === b.version && a.unschedulable === b.unschedulable &&
    sameRecord(a.labels, b.labels) && sameRecord(a.conditions, b.conditions);
}

function sameRecord(x, y) {
  const keys = Object.keys(x);
  if (keys.length !== Object.keys(y).length) return false;
  for (const k of keys) if (x[k] !== y[k]) return false;
  return true;
}

// key names an object: its name, within its namespace when it has one.
export function key(o) {
  return o.metadata.namespace ? o.metadata.namespace + '/' + o.metadata.name : o.metadata.name;
}

// Fleet is the nodes, as the overview and a node's page read them.
export class Fleet extends Collection {
  constructor(coalesce = 250) {
    super('/api/v1/nodes', summarize, coalesce);
    this.inWorker = true;
  }

  same(a, b) {
    return sameSummary(a, b);
  }
}

// collections counts the collections made, each named by its count.
let collections = 0;

// lister is the page's one worker that reads lists of the past.
const lister = {
  works: typeof Worker !== 'undefined',
  worker: null,
  seq: 0,
  waiting: new Map(),
  list(url, signal, collection, base) {
    if (!this.worker) {
      this.worker = new Worker('lister.js');
      this.worker.onmessage = ({ data }) => {
        const w = this.waiting.get(data.id);
        this.waiting.delete(data.id);
        if (!w) return;
        if (!data.error) w.resolve(data);
        else if (data.error.code) w.reject(failure(data.error.code, data.error.message, data.error.reason));
        else w.reject(new Error(data.error.message));
      };
      this.worker.onerror = () => {
        for (const w of this.waiting.values()) w.reject(new Error('the list worker failed'));
        this.waiting.clear();
      };
    }
    const id = ++this.seq;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      signal.addEventListener('abort', () => {
        this.waiting.delete(id);
        reject(new DOMException('aborted', 'AbortError'));
      }, { once: true });
      this.worker.postMessage({ id, url, token: token(), collection, base });
    });
  },
};
