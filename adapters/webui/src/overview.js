// The fleet overview: counts, the fleet's disruption state, and every
// node as a tile coloured by its state, grouped and filtered.

import { get, query } from './api.js';
import { esc, errorBox, labelMatcher, when } from './dom.js';
import { Fleet, conditionBad, states } from './fleet.js';
import { TileMap } from './tilemap.js';

// Fleets up to this size get tiles wide enough for their names; beyond
// canvasTiles, each group is drawn on a canvas (tilemap.js).
const namedTiles = 100;
const canvasTiles = 1000;

export function overview(ctx) {
  const { app, params } = ctx;
  let at = ctx.at;
  const fleet = at ? new Fleet() : ctx.live;
  const groupBy = params.get('group') || 'kind';
  const filter = params.get('filter') || '';
  app.innerHTML = `
    <div id="disruption" role="status"></div>
    <section id="counts" class="counts" aria-label="counts"></section>
    <div class="controls">
      <input id="filter" type="search" placeholder="filter: name, or label=value,key!=value" value="${esc(filter)}" aria-label="filter">
      <label>Group by
        <select id="group-by">
          <option value="kind">kind</option>
          <option value="state">state</option>
          <option value="version">version</option>
          <option value="label">a label…</option>
        </select>
      </label>
      <input id="group-label" list="label-keys" placeholder="label key" value="${esc(params.get('label') || '')}" hidden>
      <datalist id="label-keys"></datalist>
      <span id="shown" class="muted"></span>
    </div>
    <div id="tiles" aria-label="nodes"><p class="muted">Loading the fleet…</p></div>`;
  const select = app.querySelector('#group-by');
  const labelInput = app.querySelector('#group-label');
  select.value = groupBy;
  labelInput.hidden = groupBy !== 'label';
  const tilesEl = app.querySelector('#tiles');
  const countsEl = app.querySelector('#counts');
  let tileOf = new Map();

  const setParam = (k, v) => {
    const p = new URLSearchParams(params);
    if (v) p.set(k, v);
    else p.delete(k);
    ctx.go(p);
  };
  let typing = 0;
  app.querySelector('#filter').addEventListener('input', (e) => {
    clearTimeout(typing);
    typing = setTimeout(() => setParam('filter', e.target.value.trim()), 300);
  });
  select.addEventListener('change', () => setParam('group', select.value));
  labelInput.addEventListener('change', () => setParam('label', labelInput.value.trim()));

  const byLabel = labelMatcher(filter);
  const matches = (n) => (byLabel ? byLabel(n.labels) : !filter || n.name.includes(filter));
  const groupOf = (n) => {
    switch (groupBy) {
      case 'state': return n.state;
      case 'version': return n.version || '(none)';
      case 'label': return n.labels[params.get('label') || ''] ?? '(unset)';
      default: return n.kind;
    }
  };

  function drawCounts() {
    const byState = {}, byKind = {}, byVersion = {}, byCondition = {};
    for (const n of fleet.objects.values()) {
      byState[n.state] = (byState[n.state] || 0) + 1;
      byKind[n.kind] = (byKind[n.kind] || 0) + 1;
      const v = n.version || '(none)';
      byVersion[v] = (byVersion[v] || 0) + 1;
      for (const [type, status] of Object.entries(n.conditions)) {
        if (conditionBad(type, status)) {
          const k = `${type}=${status}`;
          byCondition[k] = (byCondition[k] || 0) + 1;
        }
      }
    }
    const list = (title, m, cls) => `<div class="count-group"><h3>${title}</h3><ul>${
      Object.entries(m).sort((a, b) => b[1] - a[1]).map(([k, v]) =>
        `<li${cls ? ` class="s-${esc(k)}"` : ''} data-count="${esc(k)}"><b>${v}</b> ${esc(k)}</li>`).join('') || '<li class="muted">none</li>'}</ul></div>`;
    const stateCounts = Object.fromEntries(states.filter((s) => byState[s]).map((s) => [s, byState[s]]));
    countsEl.innerHTML = `<div class="count-group total"><h3>Nodes</h3><b id="total">${fleet.objects.size}</b></div>` +
      list('By state', stateCounts, true) + list('By kind', byKind) + list('Conditions', byCondition) + list('By version', byVersion);
  }

  function drawTiles() {
    if (fleet.error) {
      tilesEl.innerHTML = errorBox(fleet.error);
      return;
    }
    if (!fleet.loaded) return;
    const groups = new Map();
    const keys = new Set();
    let shown = 0;
    for (const n of fleet.objects.values()) {
      for (const k of Object.keys(n.labels)) keys.add(k);
      if (!matches(n)) continue;
      shown++;
      const g = groupOf(n);
      if (!groups.has(g)) groups.set(g, []);
      groups.get(g).push(n);
    }
    const named = shown <= namedTiles, canvas = shown > canvasTiles;
    const parts = [], sorted = [];
    for (const g of [...groups.keys()].sort()) {
      const nodes = groups.get(g).sort((a, b) => (a.name < b.name ? -1 : 1));
      sorted.push([g, nodes]);
      parts.push(`<section class="group"><h2>${esc(g)} <span class="muted">${nodes.length}</span></h2><div class="tiles${named ? ' named' : ''}" data-group="${esc(g)}">`);
      if (!canvas) for (const n of nodes) parts.push(tile(n, named, at));
      parts.push('</div></section>');
    }
    performance.mark('herd:tiles-built');
    tilesEl.innerHTML = parts.join('') || '<p class="muted">No node matches.</p>';
    tilesEl.dataset.shown = String(shown);
    tileOf = new Map();
    if (canvas) {
      const boxes = tilesEl.querySelectorAll('.tiles');
      const width = tilesEl.clientWidth || 1000;
      sorted.forEach(([g, nodes], i) => {
        const m = new TileMap(nodes, width, (n) => nodeHref(n, at), tileTitle);
        m.group = String(g);
        boxes[i].appendChild(m.canvas);
        for (const n of nodes) tileOf.set(n.name, m);
      });
    } else {
      for (const el of tilesEl.querySelectorAll('.tile')) tileOf.set(el.dataset.node, el);
    }
    app.querySelector('#shown').textContent = `${shown} of ${fleet.objects.size} shown`;
    app.querySelector('#label-keys').innerHTML = [...keys].sort().map((k) => `<option value="${esc(k)}">`).join('');
    // A User Timing mark once the tiles are on screen (the frame after
    // they were drawn), for the browser's performance timeline: how long
    // after the page was requested, or the time control released, the
    // fleet showed.
    requestAnimationFrame(() => setTimeout(() => performance.mark('herd:tiles-drawn', { detail: { shown, at } }), 0));
  }

  // A change that keeps every changed node in its group repaints only
  // their tiles; a node that comes, goes, or moves in or out of the
  // filter or between groups draws the tiles again.
  function update(changed, full) {
    drawCounts();
    if (full || !changed) {
      drawTiles();
      return;
    }
    for (const name of changed) {
      const n = fleet.objects.get(name), el = tileOf.get(name);
      const shown = !!n && matches(n);
      if (!shown && !el) continue;
      if (!shown || !el || (el instanceof TileMap ? el.group : el.parentElement.dataset.group) !== String(groupOf(n))) {
        drawTiles();
        return;
      }
      if (el instanceof TileMap) {
        el.update(n);
        continue;
      }
      el.className = tileClass(n);
      el.dataset.state = n.state;
      el.dataset.ready = n.ready;
      el.title = tileTitle(n);
    }
  }

  const disruptionEl = app.querySelector('#disruption');
  let lastDisruption = 0;
  async function drawDisruption() {
    if (Date.now() - lastDisruption < 5000) return;
    lastDisruption = Date.now();
    try {
      const page = await get('/apis/herd.dev/v1/auditevents' + query({ stream: 'fleet/health', type: 'FleetDisruptionStarted,FleetDisruptionEnded', tail: 1, until: at || undefined }));
      const last = page.items[0];
      disruptionEl.innerHTML = last && last.type === 'FleetDisruptionStarted'
        ? `<p class="banner warn">Fleet disruption since ${when(last.recordedAt)}: ${last.payload.unreachable} of ${last.payload.total} nodes unreachable. ${last.payload.slowedTo ? `herd slows NoExecute evictions to ${last.payload.slowedTo} nodes a second` : 'herd adds no NoExecute evictions'}, suspecting itself cut off.</p>`
        : '';
    } catch {
      disruptionEl.innerHTML = '';
    }
  }

  // A canvas is as wide as the window was: drawn again when it changes.
  let resizing = 0;
  const onResize = () => {
    clearTimeout(resizing);
    resizing = setTimeout(() => fleet.loaded && drawTiles(), 200);
  };
  window.addEventListener('resize', onResize);
  const unlisten = fleet.listen((changed, full) => {
    update(changed, full);
    drawDisruption();
  });
  if (fleet.loaded) update(null, true);
  drawDisruption();
  if (at) fleet.load(at);
  // Another moment of the past (playback, a step, a time typed in) is
  // followed in place: the fleet then is listed and only the tiles that
  // changed are repainted, rather than the page built again.
  if (at) {
    ctx.moveTo = (next) => {
      at = next;
      lastDisruption = 0;
      fleet.moveTo(at);
    };
    // A tile's link is brought to the moment shown when it is about to be
    // used (hovered, focused, clicked) rather than at each move: playback
    // moves the moment every second, and rewriting a thousand links then
    // costs the browser a long task of style work.
    const freshen = (e) => {
      const a = e.target.closest?.('a.tile');
      if (!a) return;
      const href = nodeHref({ name: a.dataset.node }, at);
      if (a.getAttribute('href') !== href) a.setAttribute('href', href);
    };
    for (const type of ['pointerover', 'focusin', 'click', 'auxclick', 'contextmenu']) tilesEl.addEventListener(type, freshen, true);
  }
  return () => {
    unlisten();
    window.removeEventListener('resize', onResize);
    clearTimeout(resizing);
    clearTimeout(typing);
    if (at) fleet.stop();
  };
}

function tileClass(n) {
  return `tile s-${n.state}`;
}

function tileTitle(n) {
  return `${n.name}: ${n.ready}${n.state !== n.ready ? `, ${n.state}` : ''}${n.agent ? ` (agent ${n.agent})` : ''}, ${n.kind}${n.version ? ' ' + n.version : ''}`;
}

function nodeHref(n, at) {
  return `#/nodes/${encodeURIComponent(n.name)}${at ? '?at=' + encodeURIComponent(at) : ''}`;
}

function tile(n, named, at) {
  const href = nodeHref(n, at);
  return `<a class="${tileClass(n)}" data-node="${esc(n.name)}" data-state="${n.state}" data-ready="${n.ready}" href="${esc(href)}" title="${esc(tileTitle(n))}">${named ? esc(n.name) : ''}</a>`;
}
