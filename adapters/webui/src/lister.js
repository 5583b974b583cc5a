// The worker that reads a list of nodes (or pods) of the past for the page (see
// Fleet.listAsOf in fleet.js): it fetches the list with the page's token,
// parses it and summarizes each object, and posts back only the summaries,
// so that a playback step's biggest cost is off the page's main thread.

import { summarize, sameSummary, key } from './fleet.js';
import { summarizePod, samePod } from './pod.js';

// What each kind's list is summarized by, and its summaries compared
// by, by its path.
const summarizers = { '/api/v1/nodes': summarize, '/api/v1/pods': summarizePod };
const sames = { '/api/v1/nodes': sameSummary, '/api/v1/pods': samePod };

// The last list sent to each collection (by its id): its gen and its
// summaries by key. A collection that says it holds that list (base)
// is sent only what differs from it. Only the few collections last
// listed are remembered (a page left behind does not say so): one
// forgotten is sent its whole list again.
const sent = new Map();
const remembered = 4;
let gens = 0;

self.onmessage = async ({ data: { id, url, token, collection, base } }) => {
  try {
    const headers = { Accept: 'application/json' };
    if (token) headers.Authorization = 'Bearer ' + token;
    const res = await fetch(url, { headers });
    if (!res.ok) {
      let message = res.statusText, reason = '';
      try {
        const st = await res.json();
        message = st.message || message;
        reason = st.reason || '';
      } catch { /* not a Status */ }
      self.postMessage({ id, error: { code: res.status, message, reason } });
      return;
    }
    const list = await res.json();
    const path = url.split('?')[0];
    const summary = summarizers[path] || summarize, same = sames[path];
    const items = list.items.map((o) => [key(o), summary(o)]);
    const rv = list.metadata.resourceVersion;
    const now = new Map(items), gen = ++gens;
    const last = collection ? sent.get(collection) : undefined;
    if (collection) {
      sent.delete(collection);
      sent.set(collection, { gen, objects: now });
      for (const k of sent.keys()) if (sent.size > remembered) sent.delete(k);
    }
    if (!last || !same || last.gen !== base) {
      self.postMessage({ id, gen: collection ? gen : 0, items, rv });
      return;
    }
    const changed = [], removed = [];
    for (const [k, s] of items) {
      const was = last.objects.get(k);
      if (!was || !same(was, s)) changed.push([k, s]);
    }
    for (const k of last.objects.keys()) if (!now.has(k)) removed.push(k);
    self.postMessage({ id, gen, diff: { changed, removed }, rv });
  } catch (e) {
    self.postMessage({ id, error: { code: 0, message: String(e?.message || e) } });
  }
};
