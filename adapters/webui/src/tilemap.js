// TileMap draws a large group of nodes as squares on one canvas: ten
// thousand DOM tiles cost the browser half a second of style and layout,
// a canvas a few milliseconds. Hovering a square names its node; a click
// opens the node's page. Small fleets keep DOM tiles (overview.js).

const size = 12, gap = 2, step = size + gap;

// colours are the states' colours, read once from the style sheet.
let colours = null;
function colourOf(state) {
  if (!colours) {
    const css = getComputedStyle(document.documentElement);
    colours = {};
    for (const [s, v] of [['Ready', '--ready'], ['Pressure', '--pressure'], ['NotReady', '--notready'],
      ['Lost', '--lost'], ['Cordoned', '--cordoned'], ['Draining', '--draining']]) {
      colours[s] = css.getPropertyValue(v).trim() || '#999';
    }
  }
  return colours[state] || '#999';
}

export class TileMap {
  // nodes are the group's summaries in their order; href and title say
  // where a square leads and what it says.
  constructor(nodes, width, href, title) {
    this.nodes = nodes;
    this.href = href;
    this.title = title;
    this.cols = Math.max(1, Math.floor((width + gap) / step));
    const rows = Math.ceil(nodes.length / this.cols);
    const dpr = window.devicePixelRatio || 1;
    const c = document.createElement('canvas');
    c.className = 'tile-map';
    c.width = Math.ceil(this.cols * step * dpr);
    c.height = Math.ceil(rows * step * dpr);
    c.style.width = `${this.cols * step}px`;
    c.style.height = `${rows * step}px`;
    c.setAttribute('role', 'img');
    // The map stays reachable from its canvas (for the browser's console
    // and the benchmarks, which ask a node's square what it shows).
    c.tileMap = this;
    this.canvas = c;
    this.ctx = c.getContext('2d');
    this.ctx.scale(dpr, dpr);
    this.index = new Map(nodes.map((n, i) => [n.name, i]));
    for (let i = 0; i < nodes.length; i++) this.paint(i);
    this.label();
    c.addEventListener('mousemove', (e) => {
      const n = this.at(e);
      c.title = n ? this.title(n) : '';
      c.style.cursor = n ? 'pointer' : 'default';
    });
    c.addEventListener('click', (e) => {
      const n = this.at(e);
      if (n) location.hash = this.href(n);
    });
    // The keyboard: Tab reaches the map, the arrow keys, Home and End move
    // a cursor over the squares (its node named for screen readers), and
    // Enter opens that node's page.
    c.tabIndex = 0;
    this.cursor = -1;
    c.addEventListener('keydown', (e) => this.key(e));
    c.addEventListener('blur', () => this.move(-1));
  }

  key(e) {
    const last = this.nodes.length - 1;
    const from = Math.max(this.cursor, 0);
    const to = {
      ArrowRight: from + 1, ArrowLeft: from - 1, ArrowDown: from + this.cols, ArrowUp: from - this.cols,
      Home: 0, End: last,
    }[e.key];
    if (e.key === 'Enter' && this.cursor >= 0) {
      location.hash = this.href(this.nodes[this.cursor]);
      return;
    }
    if (to === undefined) return;
    e.preventDefault();
    this.move(Math.min(Math.max(to, 0), last));
  }

  // move puts the cursor on square i (-1: none), outlining it.
  move(i) {
    const was = this.cursor;
    this.cursor = i;
    if (was >= 0) this.paint(was);
    if (i < 0) return;
    this.paint(i);
    this.canvas.setAttribute('aria-label', this.title(this.nodes[i]));
  }

  paint(i) {
    const x = (i % this.cols) * step, y = Math.floor(i / this.cols) * step;
    this.ctx.clearRect(x, y, size, size);
    this.ctx.fillStyle = colourOf(this.nodes[i].state);
    this.ctx.fillRect(x, y, size, size);
    if (i === this.cursor) {
      this.ctx.strokeStyle = '#000';
      this.ctx.lineWidth = 2;
      this.ctx.strokeRect(x + 1, y + 1, size - 2, size - 2);
    }
  }

  // label says in words what the squares show, for screen readers.
  label() {
    const by = {};
    for (const n of this.nodes) by[n.state] = (by[n.state] || 0) + 1;
    this.canvas.setAttribute('aria-label', `${this.nodes.length} nodes: ` + Object.entries(by).map(([s, k]) => `${k} ${s}`).join(', '));
  }

  at(e) {
    const r = this.canvas.getBoundingClientRect();
    const col = Math.floor((e.clientX - r.left) / step), row = Math.floor((e.clientY - r.top) / step);
    if (col < 0 || col >= this.cols) return null;
    return this.nodes[row * this.cols + col] || null;
  }

  // shown is what the node's square shows now, or undefined.
  shown(name) {
    const i = this.index.get(name);
    return i === undefined ? undefined : this.nodes[i];
  }

  // update repaints a node's square; false when the node is not here.
  update(n) {
    const i = this.index.get(n.name);
    if (i === undefined) return false;
    this.nodes[i] = n;
    this.paint(i);
    return true;
  }
}
