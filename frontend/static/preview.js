// Preview: hovering or focusing a free square shows what a queen there
// would do (the solutions left, the squares it would block, the queens it
// would force) without placing it. One request to the JSON API per square,
// after the pointer rests on it for a moment, or after a long press on a
// touch screen; nothing in the address changes.
(function () {
  'use strict';

  var CELL = '#board-form button[data-cell]';
  var DELAY = 180; // ms the pointer rests before the request
  var LONG = 450;  // ms of a long press on a touch screen
  var timer = 0;
  var shown = '';  // the square previewed, or ''
  var seq = 0;     // answers to older requests are ignored

  // square reads a square's name in chess notation: [row, col].
  function square(name) {
    var m = /^([a-z]+)([0-9]+)$/.exec(name);
    if (!m) { return null; }
    var col = 0;
    for (var i = 0; i < m[1].length; i++) { col = col * 26 + (m[1].charCodeAt(i) - 96); }
    return [parseInt(m[2], 10) - 1, col - 1];
  }

  function field(name) {
    var el = document.querySelector('#board-form input[name="' + name + '"]');
    return el ? el.value : '';
  }

  function clear() {
    clearTimeout(timer);
    seq++;
    shown = '';
    document.querySelectorAll(CELL + '.pv-blocked, ' + CELL + '.pv-forced, ' + CELL + '.pv-at').forEach(function (b) {
      b.classList.remove('pv-blocked', 'pv-forced', 'pv-at');
    });
    var out = document.getElementById('preview');
    if (out) { out.textContent = ''; }
  }

  function output() {
    var out = document.getElementById('preview');
    if (!out) {
      var status = document.querySelector('#app .status');
      if (!status) { return null; }
      out = document.createElement('p');
      out.id = 'preview';
      out.setAttribute('data-client', ''); // the page's own: a step's answer leaves it
      out.className = 'preview';
      out.setAttribute('aria-live', 'polite');
      status.appendChild(out);
    }
    return out;
  }

  function preview(btn) {
    // A step may have changed the board while the pointer rested: the
    // square may hold a queen by now (the API refuses a queen twice).
    if (!btn.isConnected || !btn.classList.contains('free')) { return; }
    var name = btn.getAttribute('data-cell');
    var placed = field('q') ? field('q').split(',') : [];
    if (placed.indexOf(name) >= 0) { return; } // a queen stands there already
    var queens = placed.map(square);
    var backend = field('backend');
    var body = { n: parseInt(field('n'), 10), queens: queens.concat([square(name)]) };
    if (backend && backend !== 'both') { body.backend = backend; }
    if (field('order')) { body.order = field('order'); }
    var mine = ++seq;
    fetch('/api/v1/analyze', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (a) {
        if (!a || mine !== seq || !btn.isConnected) { return; }
        shown = name;
        btn.classList.add('pv-at');
        var blocked = 0, forced = [];
        var n = a.n;
        var key = function (p) { return p[0] * n + p[1]; };
        var at = {};
        a.blocked.forEach(function (p) { at[key(p)] = 'blocked'; });
        a.forced.forEach(function (p) { at[key(p)] = 'forced'; });
        document.querySelectorAll(CELL + '.free').forEach(function (b) {
          var p = square(b.getAttribute('data-cell'));
          var st = p && at[key(p)];
          if (b === btn || !st) { return; }
          if (st === 'blocked') { b.classList.add('pv-blocked'); blocked++; }
          if (st === 'forced') { b.classList.add('pv-forced'); forced.push(b.getAttribute('data-cell')); }
        });
        var words = 'A queen on ' + name + ': ';
        if (a.solutions) {
          words += a.solutions + (a.solutions_at_least ? '+' : '') + (a.solutions === '1' ? ' solution' : ' solutions') + ' left, ';
        }
        words += blocked + (blocked === 1 ? ' square' : ' squares') + ' blocked';
        words += forced.length ? ', forces ' + forced.join(', ') + '.' : '.';
        var out = output();
        if (out) { out.textContent = words; }
      })
      .catch(function () { /* a preview that fails shows nothing */ });
  }

  function start(ev) {
    var btn = ev.target.closest ? ev.target.closest(CELL) : null;
    if (!btn || !btn.classList.contains('free')) { return; }
    if (shown === btn.getAttribute('data-cell')) { return; }
    clear();
    timer = setTimeout(function () { preview(btn); }, DELAY);
  }
  function stop(ev) {
    var btn = ev.target.closest ? ev.target.closest(CELL) : null;
    if (btn && (!ev.relatedTarget || !btn.contains(ev.relatedTarget))) { clear(); }
  }
  // On a touch screen, which has no hover, a long press on a free square
  // previews it; the tap that ends the press places nothing.
  var press = 0, pressed = false;
  document.addEventListener('pointerdown', function (ev) {
    clearTimeout(press);
    pressed = false;
    var btn = ev.pointerType === 'touch' && ev.target.closest ? ev.target.closest(CELL) : null;
    if (!btn || !btn.classList.contains('free')) { return; }
    press = setTimeout(function () {
      pressed = true;
      clear();
      preview(btn);
    }, LONG);
  });
  ['pointerup', 'pointercancel', 'pointerleave'].forEach(function (type) {
    document.addEventListener(type, function () { clearTimeout(press); });
  });
  document.addEventListener('click', function (ev) {
    if (pressed && ev.target.closest && ev.target.closest(CELL)) {
      pressed = false;
      ev.preventDefault();
      ev.stopImmediatePropagation();
    }
  }, true);
  document.addEventListener('contextmenu', function (ev) {
    if (pressed) { ev.preventDefault(); }
  });

  document.addEventListener('mouseover', start);
  document.addEventListener('focusin', start);
  document.addEventListener('mouseout', stop);
  document.addEventListener('focusout', stop);
  // A step replaces the board: the preview of the old one goes.
  document.addEventListener('htmx:beforeRequest', clear);
}());
