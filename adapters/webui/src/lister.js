// The worker that reads a list of nodes (or pods) of the past for the page (see
// Fleet.listAsOf in fleet.js): it fetches the list with the page's token,
// parses it and summarizes each object, and posts back only the summaries,
// so that a playback step's biggest cost is off the page's main thread.

import { summarize, key } from './fleet.js';
import { summarizePod } from './pod.js';

// What each kind's list is summarized by, by its path.
const summarizers = { '/api/v1/nodes': summarize, '/api/v1/pods': summarizePod };

self.onmessage = async ({ data: { id, url, token } }) => {
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
    const summary = summarizers[url.split('?')[0]] || summarize;
    self.postMessage({ id, items: list.items.map((o) => [key(o), summary(o)]), rv: list.metadata.resourceVersion });
  } catch (e) {
    self.postMessage({ id, error: { code: 0, message: String(e?.message || e) } });
  }
};
