// Small conveniences of the board's page (the keys of a grid are grid.js's).
// Everything else
// is htmx: the server renders every state. No inline handlers (the page's
// Content-Security-Policy forbids them), so listeners are delegated from
// the document and survive every swap.
(function () {
  'use strict';

  var CELL = '#board-form button[data-cell]';

  // Free and blocked squares come without a title, to keep a large
  // board's HTML small: the first time the pointer rests on one, its
  // tooltip is made from its label ("c5, blocked: attacked by a3").
  document.addEventListener('mouseover', function (ev) {
    var btn = ev.target.closest ? ev.target.closest(CELL) : null;
    if (!btn || btn.hasAttribute('title')) { return; }
    var label = btn.getAttribute('aria-label') || '';
    var cut = label.indexOf(', ');
    var what = cut < 0 ? label : label.slice(cut + 2);
    var tip = what.charAt(0).toUpperCase() + what.slice(1) + '.';
    if (btn.classList.contains('free')) {
      tip = 'Place a queen on ' + btn.getAttribute('data-cell') + (cut < 0 ? '' : ' (' + what + ')');
    } else if (btn.name === 'why') {
      tip += ' Click to ask why.';
    }
    btn.setAttribute('title', tip);
  });

  // Dismiss a notice.
  document.addEventListener('click', function (ev) {
    var d = ev.target.closest ? ev.target.closest('[data-dismiss]') : null;
    if (d) {
      var n = d.closest('.notice');
      if (n) { n.remove(); }
    }
  });

  // The app is replaced on every step, so a live region inside it would
  // not be announced: after each swap, a region outside it says the new
  // count and any explanation, for screen readers.
  document.addEventListener('htmx:afterSettle', function () {
    var out = document.getElementById('announce');
    if (!out) { return; }
    var parts = [];
    ['#notice p', '#count', '#panel-h', '#panel-text', '#agreement'].forEach(function (sel) {
      var el = document.querySelector(sel);
      var t = el ? el.textContent.trim() : '';
      if (t) { parts.push(/[.?!:]$/.test(t) ? t : t + '.'); }
    });
    out.textContent = parts.join(' ');
  });

  // The tab title follows the board: every swap brings a new #app whose
  // data-title is the title the full page would have (the page's CSP
  // allows no inline script, so the fragment cannot set it itself).
  function syncTitle() {
    var app = document.getElementById('app');
    var t = app && app.getAttribute('data-title');
    if (t) { document.title = t; }
  }
  document.addEventListener('htmx:afterSettle', syncTitle);
  document.addEventListener('htmx:historyRestore', syncTitle);

  // A step that takes longer than a moment says so on the board itself,
  // with the time it has taken so far, until its answer is in.
  var WORKING = 300; // ms before the board says it is working
  var work = { timer: 0, tick: 0, start: 0 };
  function stopWorking() {
    clearTimeout(work.timer);
    clearInterval(work.tick);
    work.timer = work.tick = 0;
    var note = document.getElementById('working');
    if (note) { note.remove(); }
    var frame = document.querySelector('#app .board-frame.working');
    if (frame) { frame.classList.remove('working'); }
  }
  document.addEventListener('htmx:beforeRequest', function (ev) {
    var elt = ev.detail && ev.detail.elt;
    if (!elt || !elt.closest || !elt.closest('#app') || elt.closest('#orders')) { return; }
    stopWorking();
    work.start = performance.now();
    work.timer = setTimeout(function () {
      var frame = document.querySelector('#app .board-frame');
      if (!frame) { return; }
      frame.classList.add('working');
      var note = document.createElement('p');
      note.id = 'working';
      note.className = 'working-note';
      note.setAttribute('role', 'status');
      note.setAttribute('data-client', ''); // the page's own: a step's answer leaves it
      frame.appendChild(note);
      var say = function () {
        note.textContent = 'Working on your click: ' + ((performance.now() - work.start) / 1000).toFixed(1) + ' s';
      };
      say();
      work.tick = setInterval(say, 100);
    }, WORKING);
  });
  document.addEventListener('htmx:afterRequest', stopWorking);

  // A request that fails without an answer (the server is restarting, the
  // network is down) gets a notice too, and the board stays as it was.
  document.addEventListener('htmx:sendError', function () {
    var area = document.getElementById('notice');
    if (!area) { return; }
    area.innerHTML = '';
    var div = document.createElement('div');
    div.className = 'notice error';
    div.setAttribute('role', 'alert');
    var p = document.createElement('p');
    p.textContent = 'The server did not answer. Your board is still here; try again in a moment.';
    div.appendChild(p);
    area.appendChild(div);
  });
}());
