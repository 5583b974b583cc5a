// Charts of a node's numbers over the history the log holds.

import { get, query } from './api.js';
import { esc, errorBox } from './dom.js';
import { drawChart, yRange } from './plot.js';

// panels are the charts drawn, each of the series fields it plots.
const panels = [
  { title: 'CPU, memory and disk used (%)', fields: [['cpuPercent', 'CPU %', '#1565c0'], ['memoryPercent', 'memory %', '#6a1b9a'], ['diskPercent', 'disk %', '#ef6c00']], range: [0, 100] },
  { title: 'Load', fields: [['load1', 'load 1m', '#2e7d32'], ['load5', 'load 5m', '#9e9d24'], ['load15', 'load 15m', '#795548']] },
  { title: 'Heartbeat gaps (s)', fields: [['gapSeconds', 'gap s', '#c62828']], bars: true, gaps: true },
];

// median is the middle of the numbers among values.
function median(values) {
  const v = values.filter((x) => typeof x === 'number').sort((a, b) => a - b);
  return v.length ? v[Math.floor(v.length / 2)] : 0;
}

// drawSeries draws a node's charts in el. With width (a move of playback,
// el already drawn) the charts are drawn aside and put in el's place
// at once: el and the page around it stay, and nothing flashes.
export async function drawSeries(el, name, at, signal, width = 0) {
  if (width > 0) {
    const aside = document.createElement('div');
    await drawSeries(aside, name, at, signal, -width);
    if (!signal.aborted && aside.firstChild) el.replaceChildren(...aside.childNodes);
    return;
  }
  let page;
  try {
    page = await get(`/apis/herd.dev/v1/nodes/${encodeURIComponent(name)}/series` + query({ asOf: at || undefined, limit: 2000 }), signal);
  } catch (e) {
    if (!signal.aborted) el.innerHTML = '<h2>History</h2>' + errorBox(e);
    return;
  }
  if (signal.aborted) return;
  const items = page.items || [];
  const note = page.thinned ? `<p class="muted">${esc(page.thinned.message || 'Older history is thinned by the retention policy.')}</p>` : '';
  if (!items.length) {
    el.innerHTML = `<h2>History</h2>${note}<p class="muted">No heartbeat with numbers in the log.</p>`;
    return;
  }
  el.innerHTML = `<h2>History <span class="muted">${items.length} heartbeats, ${esc(new Date(items[0].time).toLocaleString())} to ${esc(new Date(items[items.length - 1].time).toLocaleString())}</span></h2>${note}<div class="charts"></div>`;
  const box = el.querySelector('.charts');
  const xs = items.map((p) => Date.parse(p.time) / 1000);
  const aside = width < 0;
  width = Math.max(320, Math.min(-width || box.clientWidth || 900, 1200));
  for (const panel of panels) {
    // Drawn aside (a playback step), each chart is its own task, so that
    // the three together do not hold the page's main thread at once.
    if (aside && box.firstChild) {
      await new Promise((r) => setTimeout(r, 0));
      if (signal.aborted) return;
    }
    const present = panel.fields.filter(([f]) => items.some((p) => typeof p[f] === 'number'));
    if (!present.length) continue;
    const div = document.createElement('div');
    div.className = 'chart';
    div.dataset.chart = panel.title;
    box.appendChild(div);
    const series = present.map(([f, label, color]) => ({ label, color, values: items.map((p) => (typeof p[f] === 'number' ? p[f] : null)) }));
    const values = series.flatMap((s) => s.values);
    // Gaps are drawn from 0 with room for twice the usual one, so that
    // a few milliseconds of jitter reads as the flat line it is and a
    // missed heartbeat stands out.
    const usual = panel.gaps ? median(values) : 0;
    drawChart(div, xs, series, {
      title: panel.title,
      width,
      height: 180,
      bars: panel.bars,
      range: panel.range || yRange(values, 2 * usual),
      guide: usual ? { value: usual, label: `usual ${+usual.toFixed(usual < 10 ? 2 : 0)} s` } : undefined,
    });
  }
}
