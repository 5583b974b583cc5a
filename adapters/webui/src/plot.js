// A small SVG chart of numbers over time: lines or bars, a time axis
// whose labels are chosen to fit the chart's width, a y axis of round
// numbers, and a legend that reads out the values under the pointer.
// SVG rather than a canvas: the labels are text a person can select and
// a test can measure.

const NS = 'http://www.w3.org/2000/svg';
const font = '11px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
// Room around the plot: the y labels on the left, the time labels below.
const margin = { top: 8, right: 12, bottom: 22, left: 46 };
// labelGap is the least space between two time labels, in pixels.
const labelGap = 14;

// Steps between time ticks, in seconds, shortest first.
const steps = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200,
  86400, 2 * 86400, 7 * 86400, 14 * 86400, 30 * 86400, 91 * 86400, 365 * 86400];

function svg(tag, attrs, text) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  if (text !== undefined) el.textContent = text;
  return el;
}

let measurer;
// textWidth is how wide text is drawn in the chart's font.
function textWidth(text) {
  measurer ??= document.createElement('canvas').getContext('2d');
  measurer.font = font;
  return measurer.measureText(text).width;
}

const pad = (n) => String(n).padStart(2, '0');
const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

// timeFormat says a tick's time as precisely as its step needs, with the
// day when the chart spans more than one.
function timeFormat(step, manyDays) {
  const hm = (d) => `${pad(d.getHours())}:${pad(d.getMinutes())}`;
  const day = (d) => `${d.getDate()} ${months[d.getMonth()]}`;
  if (step < 60) return (d) => `${hm(d)}:${pad(d.getSeconds())}`;
  if (step < 86400) return manyDays ? (d) => `${day(d)} ${hm(d)}` : hm;
  return day;
}

// timeTicks are the times (seconds) of ticks every step seconds within
// [t0, t1], on round local times (midnight for a day, the hour for an
// hour).
function timeTicks(t0, t1, step) {
  const offset = step >= 3600 ? new Date(t0 * 1000).getTimezoneOffset() * 60 : 0;
  const out = [];
  for (let t = Math.ceil((t0 - offset) / step) * step + offset; t <= t1; t += step) out.push(t);
  return out;
}

// timeAxis picks the shortest step whose labels, centred on their ticks,
// keep labelGap apart and stay inside the chart: the count of labels
// follows from the width and the span, never the other way round.
export function timeAxis(t0, t1, x, left, right) {
  const manyDays = new Date(t0 * 1000).toDateString() !== new Date(t1 * 1000).toDateString();
  for (const step of steps) {
    // Ticks closer than labelGap cannot keep their labels apart: the step
    // is passed over without labelling its ticks. An hour at one second
    // a tick is 3,600 dates formatted and measured for nothing, which
    // made a chart a long task at each step of playback.
    if (x(t0 + step) - x(t0) < labelGap) continue;
    const fmt = timeFormat(step, manyDays);
    const ticks = timeTicks(t0, t1, step).map((t) => {
      const label = fmt(new Date(t * 1000));
      return { t, x: x(t), label, w: textWidth(label) };
    }).filter((k) => k.x - k.w / 2 >= left && k.x + k.w / 2 <= right);
    if (ticks.every((k, i) => i === 0 || k.x - ticks[i - 1].x >= (k.w + ticks[i - 1].w) / 2 + labelGap)) {
      if (ticks.length) return ticks;
    }
  }
  // A chart too narrow for two labels: its middle alone.
  const mid = (t0 + t1) / 2;
  const label = timeFormat(1, manyDays)(new Date(mid * 1000));
  return [{ t: mid, x: x(mid), label, w: textWidth(label) }];
}

// niceStep is a round step (1, 2 or 5 times a power of ten) dividing
// span into at most n parts.
function niceStep(span, n) {
  const raw = span / Math.max(1, n);
  const p = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw) || p * 10;
}

// yRange is [0, a round top] for the values: axes of amounts start at 0,
// so that a small wobble reads as small.
export function yRange(values, atLeast = 0) {
  const top = Math.max(atLeast, ...values.filter((v) => typeof v === 'number'));
  if (!(top > 0)) return [0, 1];
  const step = niceStep(top, 4);
  return [0, Math.ceil((top * 1.05) / step) * step];
}

const number = (v) => String(+v.toFixed(Math.abs(v) >= 10 ? 0 : Math.abs(v) >= 1 ? 1 : 3));

// drawChart draws into el a chart of the series (each { label, color,
// values }, values aligned with xs, null where absent) over xs (Unix
// seconds). opts: width, height, range [min, max], bars, guide ({ value,
// label }: a dashed line, such as the expected interval).
export function drawChart(el, xs, series, opts) {
  const { width, height, bars } = opts;
  const [y0, y1] = opts.range;
  const t0 = xs[0];
  const t1 = xs.length > 1 ? xs[xs.length - 1] : xs[0] + 1;
  const left = margin.left;
  const right = width - margin.right;
  const top = margin.top;
  const bottom = height - margin.bottom;
  const x = (t) => left + ((t - t0) / (t1 - t0 || 1)) * (right - left);
  const y = (v) => bottom - ((v - y0) / (y1 - y0 || 1)) * (bottom - top);

  const legend = document.createElement('div');
  legend.className = 'legend';
  const readouts = series.map((s) => {
    const item = document.createElement('span');
    item.innerHTML = '<i></i> <span></span> <b></b>';
    item.querySelector('i').style.background = s.color;
    item.querySelector('span').textContent = s.label;
    legend.appendChild(item);
    return item.querySelector('b');
  });
  const when = document.createElement('span');
  when.className = 'muted';
  legend.appendChild(when);

  const root = svg('svg', { width, height, viewBox: `0 0 ${width} ${height}`, class: 'plot', role: 'img', 'aria-label': opts.title || '' });
  root.style.font = font;
  const yAxis = svg('g', { class: 'y-axis' });
  const step = niceStep(y1 - y0, Math.max(2, Math.floor((bottom - top) / 28)));
  for (let v = y0; v <= y1 + step / 1e6; v += step) {
    yAxis.appendChild(svg('line', { x1: left, x2: right, y1: y(v), y2: y(v), class: 'grid' }));
    yAxis.appendChild(svg('text', { x: left - 6, y: y(v), 'text-anchor': 'end', 'dominant-baseline': 'middle', class: 'tick-label' }, number(v)));
  }
  root.appendChild(yAxis);
  const xAxis = svg('g', { class: 'x-axis' });
  xAxis.appendChild(svg('line', { x1: left, x2: right, y1: bottom, y2: bottom, class: 'axis' }));
  for (const k of timeAxis(t0, t1, x, 0, width)) {
    xAxis.appendChild(svg('line', { x1: k.x, x2: k.x, y1: bottom, y2: bottom + 4, class: 'axis' }));
    xAxis.appendChild(svg('text', { x: k.x, y: height - 6, 'text-anchor': 'middle', class: 'tick-label' }, k.label));
  }
  root.appendChild(xAxis);

  for (const s of series) {
    if (bars) {
      // The bars are one path, not an element each: hundreds of <rect>s
      // to style and lay out made each redraw of a playback step long.
      const w = Math.max(1, Math.min(4, ((right - left) / xs.length) * 0.6));
      let d = '';
      s.values.forEach((v, i) => {
        if (typeof v !== 'number') return;
        d += `M${(x(xs[i]) - w / 2).toFixed(1)},${y(v).toFixed(1)}h${w.toFixed(1)}v${Math.max(0, bottom - y(v)).toFixed(1)}h${(-w).toFixed(1)}z`;
      });
      root.appendChild(svg('path', { d, fill: s.color, 'fill-opacity': '0.6', class: 'bars' }));
      continue;
    }
    let d = '';
    let pen = 'M';
    s.values.forEach((v, i) => {
      if (typeof v !== 'number') {
        pen = 'M';
        return;
      }
      d += `${pen}${x(xs[i]).toFixed(1)},${y(v).toFixed(1)}`;
      pen = 'L';
    });
    root.appendChild(svg('path', { d, fill: 'none', stroke: s.color, 'stroke-width': '1.5', 'stroke-linejoin': 'round' }));
  }
  if (opts.guide) {
    root.appendChild(svg('line', { x1: left, x2: right, y1: y(opts.guide.value), y2: y(opts.guide.value), class: 'guide' }));
    root.appendChild(svg('text', { x: right - 4, y: y(opts.guide.value) - 4, 'text-anchor': 'end', class: 'guide-label' }, opts.guide.label));
  }

  // The pointer: a line at the nearest point, its values in the legend.
  const cursor = svg('line', { y1: top, y2: bottom, class: 'cursor', visibility: 'hidden' });
  root.appendChild(cursor);
  const show = (i) => {
    if (i < 0) {
      cursor.setAttribute('visibility', 'hidden');
      readouts.forEach((b) => { b.textContent = ''; });
      when.textContent = '';
      return;
    }
    cursor.setAttribute('x1', x(xs[i]));
    cursor.setAttribute('x2', x(xs[i]));
    cursor.setAttribute('visibility', 'visible');
    series.forEach((s, j) => { readouts[j].textContent = typeof s.values[i] === 'number' ? number(s.values[i]) : '—'; });
    when.textContent = new Date(xs[i] * 1000).toLocaleString();
  };
  root.addEventListener('mousemove', (e) => {
    const px = e.clientX - root.getBoundingClientRect().left;
    if (px < left || px > right) return show(-1);
    const t = t0 + ((px - left) / (right - left)) * (t1 - t0);
    let lo = 0;
    let hi = xs.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (xs[mid] < t) lo = mid + 1;
      else hi = mid;
    }
    show(lo > 0 && t - xs[lo - 1] < xs[lo] - t ? lo - 1 : lo);
  });
  root.addEventListener('mouseleave', () => show(-1));

  if (opts.title) {
    const h = document.createElement('h3');
    h.textContent = opts.title;
    el.appendChild(h);
  }
  el.appendChild(legend);
  el.appendChild(root);
}
