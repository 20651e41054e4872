// The Why? and Make room panel, the history of steps, keyboard focus and
// clicks in flight.
//
// - Hovering or focusing a reason marks its queens on the board.
// - A panel is not a step: opening one adds a history entry of the same
//   address, so Back (or Escape, or Close) closes it without undoing a
//   queen; a step taken with the panel open takes that entry's place.
// - Undo, Redo and a numbered list of the steps move through the browser's
//   own history, so the address, Back and Forward stay in step with them.
//   Every entry this page makes carries its position (pos) in its state.
// - After every swap focus returns to the square acted on.
// - Clicks on the board made while a step is in flight are queued and
//   applied in order once the board they act on is shown.
(function () {
  'use strict';

  var CELL = '#board-form button[data-cell]';
  var STORE = 'nqueens-steps';
  var panelPos = -1;      // the position of the open panel's entry, or -1
  var acted = '';         // the square the last request acted on
  var inFlight = false;
  var queue = [];         // squares clicked while a step was in flight
  var cur = 0;            // the position of the entry shown
  var steps = [];         // {pos, url}: the steps, by position

  function cellButton(name) {
    return name ? document.getElementById('cell-' + name) : null;
  }

  // mark puts class cls on the board squares named in names ("a1 b5").
  function mark(names, cls) {
    document.querySelectorAll(CELL + '.' + cls).forEach(function (b) { b.classList.remove(cls); });
    (names || '').split(' ').forEach(function (n) {
      var b = cellButton(n);
      if (b) { b.classList.add(cls); }
    });
  }

  // focusCell makes b the board's tab stop and focuses it, unless it has
  // the focus already (a focus asks for a layout of the page).
  function focusCell(b, scroll) {
    document.querySelectorAll(CELL + '[tabindex="0"]').forEach(function (x) { if (x !== b) { x.tabIndex = -1; } });
    if (b.tabIndex !== 0) { b.tabIndex = 0; }
    if (document.activeElement !== b) { b.focus({ preventScroll: !scroll }); }
  }

  // ---- Reasons ----

  function reasonOf(ev) {
    return ev.target.closest ? ev.target.closest('#reasons li.reason') : null;
  }
  document.addEventListener('mouseover', function (ev) {
    var r = reasonOf(ev);
    if (r) { mark(r.getAttribute('data-queens'), 'reason-on'); }
  });
  document.addEventListener('mouseout', function (ev) {
    var r = reasonOf(ev);
    if (r && !r.contains(ev.relatedTarget)) { mark('', 'reason-on'); }
  });
  document.addEventListener('focusin', function (ev) {
    var r = reasonOf(ev);
    mark(r ? r.getAttribute('data-queens') : '', 'reason-on');
  });

  // ---- The history of steps ----

  function save() {
    try {
      sessionStorage.setItem(STORE, JSON.stringify({ cur: cur, steps: steps }));
    } catch (e) { /* private mode: the list lives as long as the page */ }
  }

  // here is the address without scheme and host.
  function here() { return location.pathname + location.search; }

  // stamp writes the position into the state of the entry shown, keeping
  // what htmx put there.
  function stamp(pos, extra) {
    var s = Object.assign({}, history.state || {}, extra || {}, { pos: pos });
    history.replaceState(s, '');
  }

  // record makes the entry at cur the newest step, with the address shown.
  function record() {
    steps = steps.filter(function (s) { return s.pos < cur; });
    steps.push({ pos: cur, url: here() });
    save();
  }

  (function load() {
    var kept = null;
    try { kept = JSON.parse(sessionStorage.getItem(STORE) || 'null'); } catch (e) { kept = null; }
    var st = history.state;
    if (kept && st && typeof st.pos === 'number') {
      steps = kept.steps || [];
      cur = st.pos;
      if (!steps.some(function (s) { return s.pos === cur; })) { record(); }
      return;
    }
    cur = 0;
    steps = [];
    stamp(0, { htmx: true });
    record();
  }());

  // stepAt is the index in steps of the step shown (the one at or below a
  // panel's entry).
  function stepAt() {
    var k = -1;
    steps.forEach(function (s, i) { if (s.pos <= cur) { k = i; } });
    return k;
  }

  function go(i) {
    if (i < 0 || i >= steps.length) { return; }
    var delta = steps[i].pos - cur;
    if (delta !== 0) { history.go(delta); }
  }

  // parts reads the queens, the squares Complete filled in and the
  // settings of an address, for the step's label.
  function parts(url) {
    var u = new URL(url, location.origin);
    var list = function (name) { var v = u.searchParams.get(name); return v ? v.split(',') : []; };
    var get = function (name) { return u.searchParams.get(name) || ''; };
    return { n: get('n') || '8', q: list('q'), auto: list('auto'), backend: get('backend'),
      order: get('order'), heat: get('heat'), diagram: get('diagram') };
  }

  // modeName is how the page names a mode: "BDD", "SAT-PLAIN", "Both".
  function modeName(backend) {
    return backend === 'both' ? 'Both' : (backend || 'bdd').toUpperCase();
  }

  // orderName is the order menu's name of an order value.
  function orderName(value) {
    var opt = document.querySelector('#order option[value="' + (value || 'row') + '"]');
    return opt ? opt.textContent.replace(/ \(.*\)$/, '') : value || 'rank by rank';
  }

  // describe says what the step from the address was to the address now
  // did: the queens placed and removed, else the setting it changed.
  function describe(was, now) {
    if (now.n !== was.n) { return now.n + '×' + now.n; }
    var added = now.q.filter(function (c) { return was.q.indexOf(c) < 0; });
    var gone = was.q.filter(function (c) { return now.q.indexOf(c) < 0; });
    if (added.length > 1 && added.every(function (c) { return now.auto.indexOf(c) >= 0; })) {
      return 'Complete +' + added.length;
    }
    if (now.q.length === 0 && gone.length > 1) { return 'Reset'; }
    var out = gone.map(function (c) { return '−' + c; }).concat(added.map(function (c) { return '+' + c; }));
    if (out.length) { return out.join(' '); }
    if (now.backend !== was.backend) { return modeName(now.backend); }
    if (now.heat !== was.heat) { return now.heat ? 'heat map on' : 'heat map off'; }
    if (now.diagram !== was.diagram) { return now.diagram ? 'diagram on' : 'diagram off'; }
    if (now.order !== was.order) { return 'order: ' + orderName(now.order); }
    return 'same board';
  }

  var labels = new Map(); // "address before\naddress" -> label

  // label says what step i did, from its address and the one before.
  function label(i) {
    var key = (i > 0 ? steps[i - 1].url : '') + '\n' + steps[i].url;
    var l = labels.get(key);
    if (l === undefined) {
      var now = parts(steps[i].url);
      l = i === 0 ? now.n + '×' + now.n + (now.q.length ? ', ' + now.q.join(', ') : ', empty') : describe(parts(steps[i - 1].url), now);
      labels.set(key, l);
    }
    return l;
  }

  // render draws Undo, Redo and the list of steps at the top of the side
  // column, after every swap and every move through the history.
  function render() {
    var side = document.querySelector('#app .side');
    if (!side) { return; }
    var box = document.getElementById('history');
    if (!box) {
      box = document.createElement('nav');
      box.id = 'history';
      box.setAttribute('data-client', ''); // the page's own: a step's answer leaves it
      box.className = 'card history';
      box.setAttribute('aria-labelledby', 'history-h');
    }
    // The list comes first in the column, after the panel when one is open.
    var panel = document.getElementById('panel');
    var before = panel ? panel.nextSibling : side.firstChild;
    if (box.parentNode !== side || (box !== before && box.previousElementSibling !== panel)) {
      side.insertBefore(box, before);
    }
    var k = stepAt();
    // Drawn again only when the list or the step shown changed.
    var sig = k + ' ' + steps.map(function (st) { return st.pos + st.url; }).join(' ');
    if (box.sig === sig) { return; }
    box.sig = sig;
    box.textContent = '';
    var h = document.createElement('h2');
    h.id = 'history-h';
    h.textContent = 'Steps';
    box.appendChild(h);
    var bar = document.createElement('div');
    bar.className = 'history-bar';
    [['Undo', 'history-undo', k - 1, 'Back to the step before (the browser\'s Back does the same)'],
      ['Redo', 'history-redo', k + 1, 'Forward to the step undone (the browser\'s Forward does the same)']].forEach(function (b) {
      var btn = document.createElement('button');
      btn.type = 'button';
      btn.className = 'btn';
      btn.id = b[1];
      btn.textContent = b[0];
      btn.title = b[3];
      btn.disabled = b[2] < 0 || b[2] >= steps.length;
      btn.setAttribute('data-step', String(b[2]));
      bar.appendChild(btn);
    });
    box.appendChild(bar);
    var ol = document.createElement('ol');
    ol.className = 'history-steps';
    ol.id = 'history-steps';
    steps.forEach(function (s, i) {
      var li = document.createElement('li');
      var btn = document.createElement('button');
      btn.type = 'button';
      btn.className = 'step' + (i > k ? ' undone' : '');
      btn.setAttribute('data-step', String(i));
      btn.textContent = label(i);
      btn.title = 'Go back to this board: ' + s.url;
      if (i === k) { btn.setAttribute('aria-current', 'step'); }
      li.appendChild(btn);
      ol.appendChild(li);
    });
    box.appendChild(ol);
  }

  document.addEventListener('click', function (ev) {
    var b = ev.target.closest ? ev.target.closest('#history button[data-step]') : null;
    if (b && !b.disabled) {
      go(parseInt(b.getAttribute('data-step'), 10));
    }
  });

  // htmx leaves the history to this page (historyEnabled is off in the
  // page's htmx config, its events still fire): a step makes one call, a
  // push or a replace with the position in its state, where htmx would
  // make four (a save of the entry shown, a stamp of it, the push, a stamp
  // of the new entry). A step taken with the panel open replaces the
  // panel's entry, so that Back from it goes to the board before, without
  // a panel.
  document.addEventListener('htmx:beforeHistoryUpdate', function (ev) {
    var h = ev.detail && ev.detail.history;
    if (!h) { return; }
    if (panelPos === cur && h.type === 'push') {
      h.type = 'replace';
    }
    var st = history.state || {};
    if (h.type === 'push' && (!st.htmx || st.pos !== cur)) {
      // The entry left behind is the board's from now on, as htmx would
      // save it (Forward onto the entry of a closed panel, then a step).
      history.replaceState({ htmx: true, pos: cur }, '');
    }
    panelPos = -1;
  });
  document.addEventListener('htmx:pushedIntoHistory', function (ev) {
    cur += 1;
    history.pushState({ htmx: true, pos: cur }, '', ev.detail.path);
    record();
  });
  document.addEventListener('htmx:replacedInHistory', function (ev) {
    history.replaceState({ htmx: true, pos: cur }, '', ev.detail.path);
    record();
  });

  // ---- The panel ----

  // closePanel takes the panel and its marks off the page; the board
  // under it is the current state's, so nothing needs asking.
  function closePanel() {
    var p = document.getElementById('panel');
    if (!p) { return; }
    var cell = p.getAttribute('data-cell');
    p.remove();
    ['because', 'gone', 'asked', 'reason-on'].forEach(function (cls) { mark('', cls); });
    var b = cellButton(cell);
    if (b) { focusCell(b, false); }
  }

  // afterKey runs f at once for a click of the pointer, and for a click
  // the keyboard made (Enter on a link: detail 0) once the key is up:
  // moving the focus while the key is down would hand the rest of its
  // press to the element the focus lands on, and Enter on a square acts
  // (a queen placed on a1 from the skip link, Why? asked again from
  // Close).
  function afterKey(ev, f) {
    if (ev.detail !== 0) { f(); return; }
    var done = false;
    var run = function () {
      if (done) { return; }
      done = true;
      document.removeEventListener('keyup', run, true);
      f();
    };
    document.addEventListener('keyup', run, true);
    setTimeout(run, 1000); // a key held down, or its release missed
  }

  // dismiss closes the panel the way Back would.
  function dismiss() {
    if (panelPos === cur) {
      history.back();
    } else {
      closePanel();
    }
  }

  // Back to the entry under an open panel closes it; htmx, which would
  // restore the same board, does not hear of it. Any other move through
  // the history is htmx's, and the list follows it.
  window.addEventListener('popstate', function (ev) {
    var st = ev.state || {};
    var open = panelPos >= 0;
    if (typeof st.pos === 'number') { cur = st.pos; }
    save();
    if (open && cur === panelPos - 1) {
      panelPos = -1;
      ev.stopImmediatePropagation();
      closePanel();
      render();
      return;
    }
    panelPos = -1;
    if (st.panel) {
      // Forward onto the entry of a panel closed before: the board is
      // the same, and the next step made from here rewrites the entry
      // (htmx saves the page under it first).
      ev.stopImmediatePropagation();
    }
    render();
  }, true);

  document.addEventListener('keydown', function (ev) {
    if (ev.key === 'Escape' && document.getElementById('panel')) {
      ev.preventDefault();
      dismiss();
    }
  });

  document.addEventListener('click', function (ev) {
    var t = ev.target.closest ? ev.target : null;
    if (!t) { return; }
    // The panel's Close link.
    var close = t.closest('#panel a[data-close]');
    if (close && !ev.ctrlKey && !ev.metaKey && !ev.shiftKey) {
      ev.preventDefault();
      ev.stopImmediatePropagation();
      afterKey(ev, dismiss);
      return;
    }
    // The skip link goes to the board's square in the tab order.
    if (t.closest('#skip-board')) {
      var stop = document.querySelector(CELL + '[tabindex="0"]') || document.querySelector(CELL);
      if (stop) {
        ev.preventDefault();
        afterKey(ev, function () { stop.focus(); });
      }
      return;
    }
    var btn = t.closest(CELL);
    if (btn) {
      if (inFlight) {
        // Applied once the step in flight has shown its board.
        ev.preventDefault();
        ev.stopImmediatePropagation();
        queue.push(btn.getAttribute('data-cell'));
        btn.classList.add('queued');
        return;
      }
      acted = btn.getAttribute('data-cell');
      return;
    }
    var p = t.closest('#panel');
    if (p && t.closest('a')) {
      acted = p.getAttribute('data-cell');
    }
  }, true);

  // ---- Clicks in flight ----

  document.addEventListener('htmx:beforeRequest', function (ev) {
    var elt = ev.detail && ev.detail.elt;
    if (elt && elt.closest && elt.closest('#app')) { inFlight = true; }
  });
  function done() {
    inFlight = false;
    if (queue.length > 0) {
      var next = cellButton(queue.shift());
      if (next) {
        next.click();
        return true;
      }
    }
    return false;
  }
  document.addEventListener('htmx:afterRequest', function (ev) {
    // A failed request swaps nothing into #app: go on with the queue.
    if (ev.detail && !ev.detail.successful) { done(); }
  });

  document.addEventListener('htmx:afterSettle', function (ev) {
    var elt = ev.detail && ev.detail.elt;
    if (!elt || elt.id !== 'app') {
      return;
    }
    var panel = document.getElementById('panel');
    if (panel && panelPos < 0) {
      history.pushState({ panel: true, pos: cur + 1 }, '', location.href);
      cur += 1;
      panelPos = cur;
      save();
    }
    render();
    showChanges();
    if (done()) { return; }
    var b = cellButton(acted);
    if (b) { focusCell(b, false); }
    // On a narrow screen the answer is below the board: bring it into view.
    if (panel && window.matchMedia('(max-width: 900px)').matches) {
      var reduce = window.matchMedia('(prefers-reduced-motion: reduce)').matches;
      panel.scrollIntoView({ block: 'start', behavior: reduce ? 'auto' : 'smooth' });
    }
  });

  // ---- What changed ----

  // Before a step's board replaces the old one, note what each square was;
  // after it, mark for a moment the squares newly blocked and the queens
  // newly forced, and tell screen readers.
  var before = null;
  var newsTimer = 0;
  function states() {
    var out = {};
    document.querySelectorAll(CELL).forEach(function (b) {
      var c = b.classList;
      out[b.getAttribute('data-cell')] = c.contains('queen') ? 'queen' : c.contains('forced') ? 'forced' : c.contains('blocked') ? 'blocked' : 'free';
    });
    return out;
  }
  document.addEventListener('htmx:beforeSwap', function (ev) {
    var t = ev.detail && ev.detail.target;
    before = t && t.id === 'app' ? states() : null;
  });
  function showChanges() {
    if (!before) { return; }
    var was = before;
    before = null;
    var now = states();
    if (Object.keys(now).length !== Object.keys(was).length) { return; }
    var blocked = [], forced = [];
    Object.keys(now).forEach(function (c) {
      if (now[c] === 'blocked' && was[c] === 'free') { blocked.push(c); }
      if (now[c] === 'forced' && was[c] !== 'forced' && was[c] !== 'queen') { forced.push(c); }
    });
    blocked.forEach(function (c) { cellButton(c).classList.add('news'); });
    forced.forEach(function (c) { cellButton(c).classList.add('news', 'news-forced'); });
    clearTimeout(newsTimer);
    if (blocked.length || forced.length) {
      newsTimer = setTimeout(function () {
        document.querySelectorAll(CELL + '.news').forEach(function (b) { b.classList.remove('news', 'news-forced'); });
      }, 2500);
    }
    var words = [];
    if (blocked.length) { words.push(blocked.length + (blocked.length === 1 ? ' square' : ' squares') + ' newly blocked'); }
    if (forced.length) { words.push((forced.length === 1 ? 'a queen newly forced on ' : 'queens newly forced on ') + forced.join(', ')); }
    var out = document.getElementById('announce');
    if (out && words.length) {
      out.textContent = (out.textContent ? out.textContent + ' ' : '') + words.join('; ') + '.';
    }
  }

  // Back and Forward swap in the whole page's board: draw the list again.
  document.addEventListener('htmx:historyRestore', function () {
    panelPos = -1;
    render();
  });

  document.addEventListener('DOMContentLoaded', render);
  if (document.readyState !== 'loading') { render(); }
}());
