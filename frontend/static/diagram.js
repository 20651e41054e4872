// The decision diagram viewer. The server answers the diagram as data
// (POST /api/v1/diagram: layered nodes and edges); this script orders the
// nodes of each layer, draws them as SVG, and lets the user zoom, pan and
// fit (Panzoom, from npm, embedded), switch between the rank view and the
// BDD view, collapse the BDD view's chains of "no queen" nodes, and hover a
// node or an edge to light its squares on the board (and a square to light
// its nodes and edges). The paths of the current placement are
// highlighted. No inline script: the page's CSP forbids it, so the viewer
// starts on load and after every htmx swap.
(function () {
  'use strict';

  var SVGNS = 'http://www.w3.org/2000/svg';
  // What the user chose survives the swaps of #app.
  var prefs = { view: 'ranks', remaining: false, collapse: true };
  var cache = new Map(); // request body -> answer
  var current = null;    // the drawn viewer's state
  var pending = null;    // AbortController of the request in flight

  function fileName(col) {
    var s = '';
    for (var c = col; c >= 0; c = Math.floor(c / 26) - 1) { s = String.fromCharCode(97 + c % 26) + s; }
    return s;
  }
  function cellName(p) { return fileName(p[1]) + (p[0] + 1); }
  function group(s) { return String(s).replace(/\B(?=(\d{3})+(?!\d))/g, ','); }
  function el(name, attrs) {
    var e = document.createElementNS(SVGNS, name);
    for (var k in attrs) { e.setAttribute(k, attrs[k]); }
    return e;
  }

  // fetchGraph asks the server for a view of the diagram, from the cache
  // when it was asked before.
  // A root with data-src is a feature model's diagram: its address
  // answers the same shape, levels named by feature. A root with data-n
  // is a board's (its queens, no square ruled out): the board's own
  // diagram, in the rank view or the BDD view.
  function fetchGraph(root, queens, view) {
    if (root.dataset.src) {
      var src = root.dataset.src;
      if (cache.has(src)) { return Promise.resolve(cache.get(src)); }
      if (pending) { pending.abort(); }
      pending = new AbortController();
      return fetch(src, { signal: pending.signal }).then(function (res) {
        return res.json().then(function (data) {
          if (!res.ok) { throw new Error(data.error || ('The server answered ' + res.status + '.')); }
          if (cache.size > 24) { cache.delete(cache.keys().next().value); }
          cache.set(src, data);
          return data;
        });
      });
    }
    var body = JSON.stringify({ n: +root.dataset.n, queens: queens, backend: 'bdd', view: view, order: root.dataset.order });
    if (cache.has(body)) { return Promise.resolve(cache.get(body)); }
    if (pending) { pending.abort(); }
    pending = new AbortController();
    return fetch('/api/v1/diagram', {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: body, signal: pending.signal
    }).then(function (res) {
      return res.json().then(function (data) {
        if (!res.ok) { throw new Error(data.error || ('The server answered ' + res.status + '.')); }
        if (cache.size > 24) { cache.delete(cache.keys().next().value); }
        cache.set(body, data);
        return data;
      });
    });
  }

  // collapseChains merges, in the BDD view, each chain of nodes linked by
  // "lo" edges (no queen on this square, try the next) whose later nodes
  // have no other parent: one node then offers a queen on any square of
  // the chain, with one "hi" edge per square.
  function collapseChains(g) {
    var indeg = new Array(g.nodes.length).fill(0);
    var lo = new Array(g.nodes.length).fill(-1);
    var out = g.nodes.map(function () { return []; });
    g.edges.forEach(function (e) {
      indeg[e.to]++;
      out[e.from].push(e);
      if (e.label === 'lo') { lo[e.from] = e.to; }
    });
    var head = new Array(g.nodes.length).fill(-1);
    var order = g.nodes.map(function (n, i) { return i; }).sort(function (a, b) { return g.nodes[a].layer - g.nodes[b].layer; });
    var nodes = [], edges = [], id = new Array(g.nodes.length).fill(-1), members = [];
    order.forEach(function (i) {
      if (head[i] >= 0) { return; }
      var chain = [i];
      head[i] = i;
      for (var v = lo[i]; v >= 0 && v !== g.one && indeg[v] === 1; v = lo[v]) { chain.push(v); head[v] = i; }
      id[i] = nodes.length;
      members.push(chain);
      var first = g.nodes[chain[0]], last = g.nodes[chain[chain.length - 1]];
      var cells = [];
      chain.forEach(function (m) { cells = cells.concat(g.nodes[m].cells); });
      nodes.push({ id: nodes.length, layer: first.layer, label: chain.length > 1 ? first.label + '…' + last.label : first.label,
        paths: first.paths, cells: cells, chain: chain.length });
    });
    members.forEach(function (chain, k) {
      chain.forEach(function (m, j) {
        out[m].forEach(function (e) {
          if (e.label === 'lo' && j < chain.length - 1) { return; }
          edges.push({ from: k, to: id[e.to], label: e.label, cell: e.cell });
        });
      });
    });
    // Every edge left leads to a head: a chain member's one parent is the
    // lo edge inside its chain. The layers left empty go.
    var used = g.layers.map(function () { return false; }), layers = [], renum = [];
    nodes.forEach(function (nd) { used[nd.layer] = true; });
    used.forEach(function (u, l) { renum[l] = layers.length; if (u) { layers.push(g.layers[l]); } });
    nodes.forEach(function (nd) { nd.layer = renum[nd.layer]; });
    return { view: g.view, layers: layers, nodes: nodes, edges: edges, root: id[g.root], one: id[g.one], collapsed: true };
  }

  // layout orders the nodes of every layer to keep edges short (the
  // barycentre heuristic, sweeping down and up) and gives them positions.
  function layout(g, aspect) {
    var L = g.layers.length, byLayer = [];
    for (var l = 0; l < L; l++) { byLayer.push([]); }
    var parents = g.nodes.map(function () { return []; }), children = g.nodes.map(function () { return []; });
    g.edges.forEach(function (e) { children[e.from].push(e.to); parents[e.to].push(e.from); });
    // First order: depth first from the root, children in edge order.
    var seen = new Uint8Array(g.nodes.length), stack = [g.root];
    while (stack.length) {
      var u = stack.pop();
      if (seen[u]) { continue; }
      seen[u] = 1;
      byLayer[g.nodes[u].layer].push(u);
      for (var i = children[u].length - 1; i >= 0; i--) { if (!seen[children[u][i]]) { stack.push(children[u][i]); } }
    }
    var pos = new Float64Array(g.nodes.length);
    function place() {
      byLayer.forEach(function (layer) {
        var k = layer.length;
        layer.forEach(function (u, i) { pos[u] = k > 1 ? i / (k - 1) : 0.5; });
      });
    }
    function sweep(layers, nb) {
      layers.forEach(function (l) {
        var layer = byLayer[l];
        var key = new Map();
        layer.forEach(function (u) {
          var s = 0, list = nb[u];
          for (var i = 0; i < list.length; i++) { s += pos[list[i]]; }
          key.set(u, list.length ? s / list.length : pos[u]);
        });
        layer.sort(function (a, b) { return key.get(a) - key.get(b); });
        var k = layer.length;
        layer.forEach(function (u, i) { pos[u] = k > 1 ? i / (k - 1) : 0.5; });
      });
    }
    place();
    var down = [], up = [];
    for (l = 1; l < L; l++) { down.push(l); }
    for (l = L - 2; l >= 0; l--) { up.push(l); }
    for (var it = 0; it < 3; it++) { sweep(down, parents); sweep(up, children); }
    sweep(down, parents);
    var widest = Math.max.apply(null, byLayer.map(function (x) { return x.length; }));
    var dx = g.view === 'bdd' ? 36 : 26;
    var width = Math.max(widest * dx, 360);
    // Rows far enough apart for the graph to take the frame's shape.
    var dy = Math.max(g.view === 'bdd' ? 32 : 90, Math.min(420, width * aspect / Math.max(L - 1, 1)));
    var xy = [];
    byLayer.forEach(function (layer, l) {
      var k = layer.length, x0 = (width - (k - 1) * dx) / 2;
      layer.forEach(function (u, i) { xy[u] = [x0 + i * dx, l * dy]; });
    });
    return { xy: xy, width: width, height: (L - 1) * dy, dy: dy, byLayer: byLayer };
  }

  // highlight finds the edges of the paths that hold the placement: an
  // edge that puts a queen on a square another queen attacks along its
  // rank or file, or leaves a queen's square empty, is off every such path;
  // the rest lie on one when the root reaches them and they reach 1.
  function highlight(g, queens) {
    var on = new Uint8Array(g.edges.length);
    if (!queens.length) { return { on: on, paths: null }; }
    function allowed(e) {
      if (e.label === 'lo') {
        var sq = g.nodes[e.from].cells;
        return !queens.some(function (q) { return sq.some(function (c) { return c[0] === q[0] && c[1] === q[1]; }); });
      }
      if (!e.cell) { return true; }
      return !queens.some(function (q) {
        return (q[0] === e.cell[0]) !== (q[1] === e.cell[1]);
      });
    }
    var ok = g.edges.map(allowed);
    var fwd = new Uint8Array(g.nodes.length), bwd = new Uint8Array(g.nodes.length);
    var order = g.nodes.map(function (n, i) { return i; }).sort(function (a, b) { return g.nodes[a].layer - g.nodes[b].layer; });
    var out = g.nodes.map(function () { return []; });
    g.edges.forEach(function (e, i) { if (ok[i]) { out[e.from].push(i); } });
    fwd[g.root] = 1;
    order.forEach(function (u) { if (fwd[u]) { out[u].forEach(function (i) { fwd[g.edges[i].to] = 1; }); } });
    var paths = new Array(g.nodes.length).fill(0);
    bwd[g.one] = 1;
    paths[g.one] = 1;
    for (var k = order.length - 1; k >= 0; k--) {
      var u = order[k];
      out[u].forEach(function (i) {
        var v = g.edges[i].to;
        if (bwd[v]) { bwd[u] = 1; paths[u] += paths[v]; }
      });
    }
    g.edges.forEach(function (e, i) { on[i] = ok[i] && fwd[e.from] && bwd[e.to] ? 1 : 0; });
    return { on: on, paths: paths[g.root] };
  }

  // draw builds the SVG of a graph of an n×n board, or of a feature model
  // (n 0): its layers are named by features, shortened to the margin (the
  // full name in a title), and its nodes by their layer alone.
  function draw(g, lay, hl, n) {
    var model = !n;
    var svg = el('svg', { width: lay.width + 140, height: lay.height + 60, viewBox: '-100 -30 ' + (lay.width + 140) + ' ' + (lay.height + 60),
      class: 'dg-svg dg-' + g.view + (hl.paths !== null ? ' dg-has-hl' : ''), role: 'img',
      'aria-label': (g.view === 'ranks' ? 'Rank view' : 'Decision diagram') + ': ' + g.nodes.length + ' nodes, ' + g.edges.length + ' edges' });
    var last = g.layers.length - 1;
    var labels = el('g', { class: 'dg-layers' });
    g.layers.forEach(function (name, l) {
      var t = el('text', { x: -90, y: l * lay.dy + 4, class: 'dg-layer' });
      t.textContent = model && name.length > 13 ? name.slice(0, 12) + '…' : name;
      if (model) {
        var title = el('title', {});
        title.textContent = name;
        t.appendChild(title);
      }
      labels.appendChild(t);
      if (l < last && g.view === 'ranks') {
        labels.appendChild(el('line', { x1: -20, x2: lay.width + 20, y1: l * lay.dy, y2: l * lay.dy, class: 'dg-rule' }));
      }
    });
    svg.appendChild(labels);
    var edges = el('g', { class: 'dg-edges' }), text = el('g', { class: 'dg-labels' });
    var files = Math.max(n, 1);
    g.edges.forEach(function (e, i) {
      var a = lay.xy[e.from], b = lay.xy[e.to];
      var my = (a[1] + b[1]) / 2;
      var d = 'M' + a[0].toFixed(1) + ',' + a[1] + ' C' + a[0].toFixed(1) + ',' + my + ' ' + b[0].toFixed(1) + ',' + my + ' ' + b[0].toFixed(1) + ',' + b[1];
      var cls = 'dg-edge ' + (e.label === 'lo' ? 'dg-lo' : e.label === 'hi' ? 'dg-hi' : 'dg-file') + (hl.on[i] ? ' dg-on' : '');
      var gEdge = el('g', { class: cls, 'data-edge': i });
      if (e.cell) { gEdge.setAttribute('data-cell', cellName(e.cell)); }
      var p = el('path', { d: d, class: 'dg-line' });
      if (e.label !== 'lo' && e.label !== 'hi' && e.cell) {
        // A hue per file (the CSP allows styles set through the CSSOM).
        p.style.setProperty('--file', 'hsl(' + Math.round(e.cell[1] * 300 / files) + ',50%,45%)');
      }
      gEdge.appendChild(p);
      gEdge.appendChild(el('path', { d: d, class: 'dg-hit' }));
      edges.appendChild(gEdge);
      if (g.view === 'ranks' || (g.collapsed && e.label === 'hi')) {
        var t = el('text', { x: (a[0] * 0.6 + b[0] * 0.4).toFixed(1), y: (a[1] * 0.6 + b[1] * 0.4 + 3).toFixed(1), class: 'dg-elabel' + (hl.on[i] ? ' dg-on' : '') });
        t.textContent = g.view === 'ranks' ? e.label : cellName(e.cell);
        text.appendChild(t);
      }
    });
    svg.appendChild(edges);
    svg.appendChild(text);
    var nodes = el('g', { class: 'dg-nodes' });
    g.nodes.forEach(function (nd, i) {
      var xy = lay.xy[i], gn = el('g', { class: 'dg-node' + (i === g.one ? ' dg-one' : '') + (i === g.root ? ' dg-root' : ''), 'data-node': i,
        transform: 'translate(' + xy[0].toFixed(1) + ',' + xy[1] + ')' });
      if (i === g.one) {
        gn.appendChild(el('rect', { x: -11, y: -11, width: 22, height: 22, rx: 3 }));
      } else if (nd.chain > 1) {
        gn.appendChild(el('rect', { x: -15, y: -10, width: 30, height: 20, rx: 10 }));
      } else {
        gn.appendChild(el('circle', { r: g.view === 'bdd' ? 12 : 8 }));
      }
      if (i === g.one || (g.view === 'bdd' && !model)) {
        var t = el('text', { y: 3.5, class: 'dg-nlabel' });
        t.textContent = i === g.one ? '1' : (nd.chain > 1 ? nd.cells.length + '' : nd.label);
        gn.appendChild(t);
      }
      nodes.appendChild(gn);
    });
    svg.appendChild(nodes);
    return svg;
  }

  // profile shows the nodes per rank when the diagram is past drawing:
  // the restricted diagram's, over the whole diagram's when they differ.
  function profile(box, data) {
    var model = !data.n;
    var whole = data.whole_profile && (!model && data.queens.length || model && data.whole_profile.some(function (p, i) { return p.nodes !== data.profile[i].nodes; })) ?
      data.whole_profile : null;
    var max = Math.max.apply(null, (whole || data.profile).map(function (p) { return p.nodes; }).concat([1]));
    var wrap = document.createElement('div');
    wrap.className = 'dg-profile';
    wrap.id = 'dg-profile';
    var h = document.createElement('p');
    var diagram = 'The diagram' + (!model && data.queens.length ? ' of the solutions that hold your queens' : '') +
      ' has ' + group(data.diagram_nodes) + ' nodes';
    h.textContent = model ? 'The diagram of the configurations left has ' + group(data.diagram_nodes) + ' nodes' +
      (data.truncated ? ', more than the ' + group(data.max_nodes) + ' this server draws' : '') +
      ' (' + data.backend + ', variable order from the ' + data.order + ' heuristic, sifted further). Its nodes per level, top first:' :
      (data.view === 'ranks' ?
      'The rank view has more than the ' + group(data.max_nodes) + ' nodes this viewer draws. ' + diagram + '.' :
      diagram + ', more than the ' + group(data.max_nodes) + ' this viewer draws.') +
      ' Its nodes per rank, the shape of the space:';
    wrap.appendChild(h);
    if (whole) {
      var key = document.createElement('p');
      key.className = 'dg-pkey';
      key.textContent = (model ? 'Dark: under your decisions. Light' : 'Dark: with your queens. Light') + ': the whole diagram, ' +
        group(whole.reduce(function (a, p) { return a + p.nodes; }, 0)) + ' nodes.';
      wrap.appendChild(key);
    }
    // Rank 1 on top, as in the rank view.
    data.profile.forEach(function (p, i) {
      var all = whole ? whole[i] : null;
      var row = document.createElement('div');
      row.className = 'dg-prow';
      var l = document.createElement('span');
      l.textContent = p.label;
      l.title = p.label; // a feature's name may be cut
      var bar = document.createElement('span');
      bar.className = 'dg-bar';
      bar.style.width = (100 * p.nodes / max).toFixed(1) + '%';
      var v = document.createElement('span');
      v.className = 'dg-pval';
      v.textContent = group(p.nodes) + (all ? ' / ' + group(all.nodes) : '');
      var track = document.createElement('span');
      track.className = 'dg-track';
      if (all) {
        var back = document.createElement('span');
        back.className = 'dg-bar dg-whole';
        back.style.width = (100 * all.nodes / max).toFixed(1) + '%';
        track.appendChild(back);
      }
      track.appendChild(bar);
      row.appendChild(l);
      row.appendChild(track);
      row.appendChild(v);
      wrap.appendChild(row);
    });
    box.appendChild(wrap);
  }

  function status(root, text) {
    var s = root.querySelector('#dg-status');
    if (s) { s.textContent = text; }
  }

  // show fetches and draws the viewer inside root.
  function show(root) {
    var queens = JSON.parse(root.dataset.queens || '[]');
    var remaining = prefs.remaining || false;
    var frame = root.querySelector('#dg-frame');
    syncControls(root);
    status(root, 'Loading the diagram…');
    var t0 = performance.now();
    var whole = remaining || !queens.length ? Promise.resolve(null) : fetchGraph(root, [], prefs.view);
    whole.then(function (w) {
      if (w && !w.truncated) { return { data: w, whole: true }; }
      return fetchGraph(root, queens, prefs.view).then(function (d) { return { data: d, whole: !queens.length }; });
    }).then(function (got) {
      if (!document.body.contains(root)) { return; }
      render(root, frame, got.data, got.whole ? queens : [], t0);
    }).catch(function (err) {
      if (err.name === 'AbortError') { return; }
      status(root, 'The diagram could not be shown: ' + err.message);
    });
  }

  // drop lets go of the drawn graph: its Panzoom and its wheel listener.
  function drop() {
    if (current) {
      current.pz.destroy();
      current.frame.removeEventListener('wheel', current.pz.zoomWithWheel);
    }
    current = null;
  }

  function render(root, frame, data, queens, t0) {
    drop();
    frame.textContent = '';
    ['renderMs', 'paintedMs', 'layoutMs', 'svgMs'].forEach(function (k) { delete root.dataset[k]; });
    root.querySelector('#dg-fit').disabled = data.truncated;
    root.querySelector('#dg-zoom-in').disabled = data.truncated;
    root.querySelector('#dg-zoom-out').disabled = data.truncated;
    var levels = root.querySelector('#dg-levels');
    if (levels) { levels.textContent = ''; }
    if (data.truncated) {
      profile(frame, data);
      status(root, '');
      return;
    }
    if (levels) { profile(levels, data); }
    var t1 = performance.now();
    var g = data.view === 'bdd' && prefs.collapse && data.n ? collapseChains(data) : data;
    var lay = layout(g, frame.clientHeight / Math.max(frame.clientWidth, 1));
    var hl = highlight(g, queens);
    var t2 = performance.now();
    var stage = document.createElement('div');
    stage.className = 'dg-stage';
    stage.id = 'dg-stage';
    var svg = draw(g, lay, hl, data.n);
    var t3 = performance.now();
    stage.appendChild(svg);
    var tip = document.createElement('div');
    tip.className = 'dg-tip';
    tip.id = 'dg-tip';
    tip.hidden = true;
    frame.appendChild(stage);
    frame.appendChild(tip);
    frame.tabIndex = 0;
    frame.setAttribute('aria-label', (g.view === 'ranks' ? 'Rank view' : 'Decision diagram') +
      ': drag or use the arrow keys to pan, + and − to zoom, 0 to fit');
    void stage.getBoundingClientRect(); // the layout of the page, timed too
    var pz = window.Panzoom(stage, { maxScale: 6, minScale: 0.02, step: 0.25, canvas: true, cursor: 'grab' });
    frame.addEventListener('wheel', pz.zoomWithWheel, { passive: false });
    current = { g: g, n: data.n, data: data, lay: lay, hl: hl, pz: pz, frame: frame, stage: stage, svg: svg, tip: tip, root: root, cells: index(g) };
    stage.addEventListener('panzoomchange', function (ev) { scaleClass(ev.detail.scale); });
    fit();
    var took = performance.now() - t1;
    root.dataset.layoutMs = (t2 - t1).toFixed(0);
    root.dataset.svgMs = (t3 - t2).toFixed(0);
    root.dataset.renderMs = took.toFixed(0);
    // Painted: the frame after next has the graph on screen.
    requestAnimationFrame(function () {
      requestAnimationFrame(function () { root.dataset.paintedMs = (performance.now() - t1).toFixed(0); });
    });
    root.dataset.nodes = g.nodes.length;
    root.dataset.edges = g.edges.length;
    var lit = 0;
    hl.on.forEach(function (x) { lit += x; });
    root.dataset.highlighted = lit;
    var parts = [group(g.nodes.length) + ' nodes, ' + group(g.edges.length) + ' edges'];
    if (hl.paths !== null) {
      parts.push(hl.paths === 1 ? 'highlighted: the one of ' + group(data.solutions) + ' solutions that holds your queens'
        : 'highlighted: the ' + group(hl.paths) + ' of ' + group(data.solutions) + ' solutions that hold your queens');
      root.dataset.highlightedPaths = hl.paths;
    } else {
      var one = String(data.solutions) === '1';
      parts.push(group(data.solutions) + (data.n ? (one ? ' solution' : ' solutions') : (one ? ' configuration left' : ' configurations left')) +
        (queens.length || JSON.parse(root.dataset.queens || '[]').length ? (one ? ' left, its path holds your queens' : ' left, every path holds your queens') : ''));
      delete root.dataset.highlightedPaths;
    }
    parts.push('laid out and drawn in ' + Math.round(performance.now() - t0) + ' ms (' + Math.round(took) + ' ms here)');
    status(root, parts.join(' · ') + '.');
  }

  // index maps a square's name to the nodes and edges that stand for it.
  function index(g) {
    var m = new Map();
    function add(name, sel) {
      if (!m.has(name)) { m.set(name, []); }
      m.get(name).push(sel);
    }
    g.nodes.forEach(function (nd, i) { if (g.view === 'bdd') { nd.cells.forEach(function (c) { add(cellName(c), '[data-node="' + i + '"]'); }); } });
    g.edges.forEach(function (e, i) { if (e.cell) { add(cellName(e.cell), '[data-edge="' + i + '"]'); } });
    return m;
  }

  function scaleClass(scale) {
    if (!current) { return; }
    current.svg.classList.toggle('dg-far', scale < 0.45);
    current.root.dataset.scale = scale.toFixed(3);
  }

  // fit zooms and pans so that the whole graph fills the frame.
  function fit() {
    if (!current) { return; }
    var fw = current.frame.clientWidth, fh = current.frame.clientHeight;
    var w = current.svg.width.baseVal.value, h = current.svg.height.baseVal.value;
    var s = Math.min(fw / w, fh / h, 1.5);
    // Panzoom scales about the stage's centre and translates in unscaled
    // pixels; one reset sets both at once.
    current.pz.setOptions({ startScale: s, startX: (fw - w) / 2 / s, startY: (fh - h) / 2 / s });
    current.pz.reset({ animate: false });
    scaleClass(s);
  }

  function lightBoard(cells, on) {
    cells.forEach(function (c) {
      var b = document.querySelector('#fgrid button[data-name="' + cellName(c) + '"]');
      if (b) { b.classList.toggle('dg-lit', on); }
    });
  }

  function tipAt(ev, text) {
    var t = current.tip, r = current.frame.getBoundingClientRect();
    t.textContent = text;
    t.hidden = false;
    t.style.left = Math.min(ev.clientX - r.left + 14, r.width - 220) + 'px';
    t.style.top = (ev.clientY - r.top + 14) + 'px';
  }

  function describeNode(i) {
    var g = current.g, nd = g.nodes[i];
    if (i === g.one) { return '1: every path down to here is one solution.'; }
    if (!current.n) { return nd.label + ': ' + group(nd.paths) + ' configurations below this node, counting the features it skips either way.'; }
    var below = group(nd.paths) + (String(nd.paths) === '1' ? ' solution' : ' solutions') + ' below this node';
    if (g.view === 'ranks') {
      var files = nd.cells.map(function (c) { return fileName(c[1]); }).join(', ');
      return g.layers[nd.layer] + ': ' + below + '. The queen of this rank can go on ' + (files || 'no file') + '.';
    }
    if (nd.chain > 1) { return 'No queen on ' + nd.label + ' but one: ' + nd.cells.map(cellName).join(', ') + '. ' + below + '.'; }
    return 'A queen on ' + nd.label + '? ' + below + '.';
  }

  function describeEdge(i) {
    var g = current.g, e = g.edges[i], to = g.nodes[e.to];
    var lead = String(to.paths) === '1' ? '1 solution continues from here' : group(to.paths) + ' solutions continue from here';
    if (!current.n) { return (e.label === 'hi' ? 'Select ' : 'Deselect ') + g.nodes[e.from].label + '.'; }
    if (e.label === 'lo') { return 'No queen on ' + g.nodes[e.from].label + ': ' + lead + '.'; }
    return 'A queen on ' + cellName(e.cell) + ': ' + lead + '.';
  }

  function over(ev) {
    if (!current || !current.frame.contains(ev.target)) { return; }
    var n = ev.target.closest('[data-node]'), e = ev.target.closest('[data-edge]');
    clearHover();
    if (n) {
      var i = +n.getAttribute('data-node');
      n.classList.add('dg-hover');
      current.hover = { el: n, cells: current.g.nodes[i].cells };
      tipAt(ev, describeNode(i));
    } else if (e) {
      var j = +e.getAttribute('data-edge'), edge = current.g.edges[j];
      e.classList.add('dg-hover');
      current.hover = { el: e, cells: edge.cell ? [edge.cell] : current.g.nodes[edge.from].cells };
      tipAt(ev, describeEdge(j));
    } else {
      return;
    }
    lightBoard(current.hover.cells, true);
  }

  function clearHover() {
    if (!current || !current.hover) { return; }
    current.hover.el.classList.remove('dg-hover');
    lightBoard(current.hover.cells, false);
    current.tip.hidden = true;
    current.hover = null;
  }

  // A square of the board lights the nodes and edges that stand for it.
  function overSquare(ev, on) {
    var b = ev.target.closest ? ev.target.closest('#fgrid button[data-name]') : null;
    if (!b || !current) { return; }
    var sels = current.cells.get(b.getAttribute('data-name')) || [];
    sels.forEach(function (sel) {
      var x = current.svg.querySelector(sel);
      if (x) { x.classList.toggle('dg-lit', on); }
    });
  }

  document.addEventListener('mouseover', function (ev) { over(ev); overSquare(ev, true); });
  document.addEventListener('mouseout', function (ev) {
    if (current && current.hover && !current.hover.el.contains(ev.relatedTarget)) { clearHover(); }
    overSquare(ev, false);
  });

  function syncControls(root) {
    root.querySelectorAll('[data-dg-view]').forEach(function (b) {
      var on = b.getAttribute('data-dg-view') === prefs.view;
      b.classList.toggle('on', on);
      b.setAttribute('aria-pressed', on ? 'true' : 'false');
    });
    var c = root.querySelector('#dg-collapse');
    if (c) { c.checked = prefs.collapse; c.closest('label').hidden = prefs.view !== 'bdd'; }
    var r = root.querySelector('#dg-remaining');
    if (r) { r.checked = prefs.remaining; r.closest('label').hidden = !JSON.parse(root.dataset.queens || '[]').length; }
  }

  document.addEventListener('click', function (ev) {
    var root = document.getElementById('dg');
    if (!root || !root.contains(ev.target)) { return; }
    var b = ev.target.closest('button');
    if (!b) { return; }
    if (b.hasAttribute('data-dg-view')) {
      prefs.view = b.getAttribute('data-dg-view');
      show(root);
    } else if (b.id === 'dg-fit') {
      fit();
    } else if (b.id === 'dg-zoom-in' && current) {
      current.pz.zoomIn();
    } else if (b.id === 'dg-zoom-out' && current) {
      current.pz.zoomOut();
    }
  });

  // The frame takes the keyboard too: arrows pan, + and − zoom, 0 fits.
  document.addEventListener('keydown', function (ev) {
    if (!current || ev.target !== current.frame || ev.altKey || ev.ctrlKey || ev.metaKey) { return; }
    var step = 60 / current.pz.getScale();
    switch (ev.key) {
      case 'ArrowLeft': current.pz.pan(step, 0, { relative: true, force: true }); break;
      case 'ArrowRight': current.pz.pan(-step, 0, { relative: true, force: true }); break;
      case 'ArrowUp': current.pz.pan(0, step, { relative: true, force: true }); break;
      case 'ArrowDown': current.pz.pan(0, -step, { relative: true, force: true }); break;
      case '+': case '=': current.pz.zoomIn(); break;
      case '-': case '_': current.pz.zoomOut(); break;
      case '0': fit(); break;
      default: return;
    }
    ev.preventDefault();
  });

  document.addEventListener('change', function (ev) {
    var root = document.getElementById('dg');
    if (!root || !root.contains(ev.target)) { return; }
    if (ev.target.id === 'dg-collapse') { prefs.collapse = ev.target.checked; show(root); }
    if (ev.target.id === 'dg-remaining') { prefs.remaining = ev.target.checked; show(root); }
  });

  // The Diagram button opens the viewer under the board, below the fold
  // of most windows: the page scrolls to it.
  var opening = false;
  document.addEventListener('htmx:beforeRequest', function (ev) {
    var elt = ev.detail && ev.detail.elt;
    opening = !!(elt && elt.id === 'diagram-toggle' && elt.getAttribute('aria-pressed') !== 'true');
  });

  function start() {
    var panel = document.getElementById('diagram');
    if (opening && panel) {
      opening = false;
      var reduce = window.matchMedia('(prefers-reduced-motion: reduce)').matches;
      panel.scrollIntoView({ block: 'start', behavior: reduce ? 'auto' : 'smooth' });
    }
    var root = document.getElementById('dg');
    if (!root) {
      drop();
      return;
    }
    if (root.dataset.started) { return; }
    // A model's diagram is asked for when its panel is open (the
    // address's diagram=1 keeps it open across the steps).
    var details = root.closest('details');
    if (details && !details.open) {
      if (!closedPanels.has(details)) {
        closedPanels.add(details);
        details.addEventListener('toggle', function () { closedPanels.delete(details); start(); }, { once: true });
      }
      return;
    }
    root.dataset.started = '1';
    show(root);
  }
  // closedPanels are the closed panels waiting to be opened.
  var closedPanels = new WeakSet();
  document.addEventListener('DOMContentLoaded', start);
  document.addEventListener('htmx:afterSettle', start);
  window.addEventListener('resize', function () { if (current) { fit(); } });
}());
