// herd's web view: a hash router over a few pages, a time control that
// every page reads, and the live fleet they share.

import { get, query, send, onUnauthorized, setToken, token, APIError } from './api.js';
import { esc, local } from './dom.js';
import { Fleet } from './fleet.js';
import { overview } from './overview.js';
import { nodePage } from './node.js';
import { podsPage } from './pods.js';
import { podPage } from './podpage.js';
import { workloadsPage } from './workloads.js';
import { auditPage } from './audit.js';
import { diffPage } from './diff.js';
import { whatIfPage } from './whatif.js';

const app = document.getElementById('app');
const live = new Fleet();
live.status = (s) => setLive(s);
const session = { user: '', canAct: false, known: false };
let cleanup = () => {};

// route splits the hash into a path and its parameters.
function route() {
  const h = location.hash.replace(/^#/, '') || '/';
  const [path, q] = h.split('?');
  return { path, params: new URLSearchParams(q || '') };
}

// go changes parameters of the current route (or another path).
export function go(path, params) {
  const q = params.toString();
  location.hash = '#' + path + (q ? '?' + q : '');
}

function setLive(s) {
  const el = document.getElementById('live');
  el.textContent = s;
  el.className = 'live ' + (s === 'live' ? 'on' : s.startsWith('past') ? 'past' : 'off');
}

// whoami asks herd who the token is and whether it may act on nodes
// (SelfSubjectReview, SelfSubjectAccessReview: what kubectl auth asks).
async function whoami() {
  try {
    const me = await send('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview',
    });
    session.user = me.status?.userInfo?.username || '';
  } catch (e) {
    if (e instanceof APIError && e.code === 401) throw e;
    session.user = '';
  }
  try {
    const review = await send('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
      apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes: { verb: 'create', group: 'herd.dev', resource: 'nodes', subresource: 'drain' } },
    });
    session.canAct = !!review.status?.allowed;
  } catch {
    session.canAct = false;
  }
  session.known = true;
  document.getElementById('who').innerHTML = session.user
    ? `${esc(session.user)}${session.canAct ? ' <span class="badge">admin</span>' : ' <span class="badge">viewer</span>'}` +
      (token() ? ' <button id="sign-out" type="button">Sign out</button>' : '')
    : '';
  document.getElementById('sign-out')?.addEventListener('click', () => {
    setToken('');
    location.reload();
  });
}

function login(message) {
  cleanup();
  cleanup = () => {};
  shown = null;
  live.stop();
  session.known = false;
  app.innerHTML = `
    <form id="login" class="card">
      <h1>Sign in to herd</h1>
      <p>${esc(message || 'herd asks for a token.')} The token is kept for this tab only.</p>
      <label for="token">Token</label>
      <input id="token" type="password" autocomplete="off" required>
      <button type="submit">Sign in</button>
    </form>`;
  document.getElementById('login').addEventListener('submit', (e) => {
    e.preventDefault();
    setToken(document.getElementById('token').value.trim());
    start();
  });
}
onUnauthorized((msg) => {
  if (!document.getElementById('login')) login(msg);
});

// Time control. The slider spans from the log's oldest event to now;
// released, it sets ?at= on the page's route.
const range = document.getElementById('asof-range');
const label = document.getElementById('asof-label');
const nowButton = document.getElementById('asof-now');
const marker = document.getElementById('past-marker');
let oldest = 0;

async function loadOldest() {
  try {
    const page = await get('/apis/herd.dev/v1/auditevents?limit=1');
    oldest = page.items.length ? Date.parse(page.items[0].recordedAt) : Date.now();
  } catch {
    oldest = Date.now() - 3600e3;
  }
  range.dataset.oldest = String(oldest);
}

function timeAt(v) {
  const now = Date.now();
  return new Date(oldest + ((now - oldest) * v) / 1000);
}

function showTime(at) {
  if (!at) {
    label.textContent = 'now';
    nowButton.hidden = true;
    marker.hidden = true;
    document.body.classList.remove('past');
    return;
  }
  const d = new Date(at);
  label.textContent = d.toLocaleString();
  nowButton.hidden = false;
  marker.hidden = false;
  marker.textContent = `Viewing the past: the fleet as it was at ${d.toLocaleString()}`;
  document.body.classList.add('past');
  setLive('past');
  const now = Date.now();
  range.value = String(Math.round(((d.getTime() - oldest) / Math.max(1, now - oldest)) * 1000));
  if (document.activeElement !== exact) exact.value = local(at);
}

range.addEventListener('input', () => {
  label.textContent = range.value === '1000' ? 'now' : timeAt(Number(range.value)).toLocaleString();
});
range.addEventListener('change', () => {
  stop();
  const { path, params } = route();
  if (range.value === '1000') params.delete('at');
  else params.set('at', timeAt(Number(range.value)).toISOString());
  go(path, params);
});
nowButton.addEventListener('click', () => {
  stop();
  const { path, params } = route();
  params.delete('at');
  go(path, params);
});

// Playback: history played forward from the moment shown at a chosen
// speed, stepped from change to change (heartbeats and lease renewals
// aside: they change no state worth a step), or an exact time typed in.
// Playing moves ?at= once a second, replacing the page's history entry so
// that Back leaves the playback instead of stepping through it, on
// whichever page is shown (the overview, a node, the pods), and goes back
// to live when it reaches now.
const playButton = document.getElementById('play');
const speed = document.getElementById('speed');
const exact = document.getElementById('asof-exact');
const routine = 'HeartbeatRecorded,LeaseRenewed';
let playing = 0;

// setAt shows the moment at (live when empty): a new history entry, or,
// with replace, in place of the current one.
function setAt(at, replace) {
  const { path, params } = route();
  if (at) params.set('at', at);
  else params.delete('at');
  const q = params.toString();
  const hash = '#' + path + (q ? '?' + q : '');
  if (!replace) {
    location.hash = hash;
    return;
  }
  history.replaceState(null, '', hash);
  render();
}

function stop() {
  if (!playing) return;
  clearInterval(playing);
  playing = 0;
  playButton.textContent = '▶';
  playButton.setAttribute('aria-pressed', 'false');
}

playButton.addEventListener('click', () => {
  if (playing) {
    stop();
    return;
  }
  // From live there is nothing ahead: play the last hour (or the whole
  // log, when it is younger).
  let from = Date.parse(route().params.get('at') || '');
  if (isNaN(from)) {
    from = Math.max(oldest, Date.now() - 3600e3);
    setAt(new Date(from).toISOString());
  }
  playButton.textContent = 'Pause';
  playButton.setAttribute('aria-pressed', 'true');
  playing = setInterval(() => {
    const shown = Date.parse(route().params.get('at') || '');
    const next = (isNaN(shown) ? from : shown) + Number(speed.value) * 1000;
    if (next >= Date.now()) {
      stop();
      setAt('', true);
      return;
    }
    setAt(new Date(next).toISOString(), true);
  }, 1000);
});

// step goes to the moment of the next change after the one shown, or of
// the last change before it: an event's own recorded time, so that the
// fleet is shown with that event and the ones recorded with it.
async function step(forward) {
  stop();
  const at = route().params.get('at') || '';
  if (forward && !at) return; // live: nothing has happened after now
  const q = forward ? { since: at, limit: 100, excludeType: routine } : { until: at || undefined, tail: 1, excludeType: routine };
  let page;
  try {
    page = await get('/apis/herd.dev/v1/auditevents' + query(q));
  } catch {
    return;
  }
  // since is inclusive: the events recorded at the moment shown are
  // behind us.
  const e = forward ? page.items.find((x) => x.recordedAt !== at) : page.items[page.items.length - 1];
  if (e) setAt(e.recordedAt);
  else if (forward) setAt('');
}
document.getElementById('step-forward').addEventListener('click', () => step(true));
document.getElementById('step-back').addEventListener('click', () => step(false));
exact.addEventListener('change', () => {
  stop();
  const d = new Date(exact.value);
  if (exact.value && !isNaN(d)) setAt(d.toISOString());
});

const pages = [
  [/^\/$/, overview, 'overview'],
  [/^\/nodes\/([^/]+)$/, nodePage, 'overview'],
  [/^\/pods$/, podsPage, 'pods'],
  [/^\/pods\/([^/]+)\/([^/]+)$/, podPage, 'pods'],
  [/^\/workloads$/, workloadsPage, 'workloads'],
  [/^\/audit$/, auditPage, 'audit'],
  [/^\/diff$/, diffPage, 'diff'],
  [/^\/whatif$/, whatIfPage, 'whatif'],
];

// shown is the page on screen: its path and parameters but the moment,
// the moment, and how it follows another moment in place, when it can.
let shown = null;

function render() {
  if (!session.known) return;
  const { path, params } = route();
  const at = params.get('at') || '';
  const rest = new URLSearchParams(params);
  rest.delete('at');
  const key = path + '?' + rest.toString();
  showTime(at);
  navLinks(at);
  // From one moment of the past to another on the same page (playback
  // moves it every second): a page that can follow the moment in place
  // does, instead of being built again from nothing.
  if (at && shown && shown.at && shown.key === key && shown.moveTo) {
    shown.at = at;
    shown.moveTo(at);
    return;
  }
  cleanup();
  cleanup = () => {};
  shown = null;
  if (!at && !live.abort) live.load('');
  if (at) setLive('past');
  else if (live.loaded) setLive('live');
  for (const [re, page, nav] of pages) {
    const m = path.match(re);
    if (!m) continue;
    for (const a of document.querySelectorAll('[data-nav]')) a.classList.toggle('active', a.dataset.nav === nav);
    const ctx = { app, at, params, path, live, session, go: (p) => go(path, p), args: m.slice(1).map(decodeURIComponent), moveTo: null };
    cleanup = page(ctx) || (() => {});
    shown = { key, at, moveTo: ctx.moveTo };
    return;
  }
  app.innerHTML = `<p class="error">No page at ${esc(path)}. <a href="#/">The fleet</a></p>`;
}

// navLinks makes the header's links keep the moment shown: the past stays
// the past from page to page until Back to live.
function navLinks(at) {
  for (const a of document.querySelectorAll('[data-nav]')) {
    const base = a.getAttribute('href').split('?')[0];
    a.setAttribute('href', at ? `${base}?at=${encodeURIComponent(at)}` : base);
  }
}

async function start() {
  // The live fleet's list is the page's biggest read: it starts at once,
  // beside the questions of who the user is and how old the log is.
  if (!route().params.get('at')) live.load('');
  const oldestRead = loadOldest();
  try {
    await whoami();
  } catch {
    return; // 401: the login form is shown
  }
  await oldestRead;
  render();
}

window.addEventListener('hashchange', render);
start();
