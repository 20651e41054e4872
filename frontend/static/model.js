// The model page's conveniences; the server renders every state (htmx).
// No inline handlers (the Content-Security-Policy forbids them): the
// listeners are delegated from the document and survive every swap.
//
// - Focus stays where the person was across a swap: on the same control,
//   else on the row acted on, with the caret kept in the search.
// - Keys on a feature: + selects, - deselects, ? asks why, u takes back;
//   / goes to the search; Escape closes Why?.
// - Hovering or focusing a reason of Why? marks its decisions' rows.
// - A square clicked while a step is in flight is clicked again once
//   that step's answer has settled.
// - Undo, Redo and the list of steps move through the browser's history,
//   so that the address, Back and Forward stay in step with them.
// - A configuration file opened (FeatureIDE XML, Kconfig, CSV, JSON) is
//   read by the server and its decisions become the page's; a file that
//   does not read, unknown names and conflicting decisions are said.
// - The page that opens a model uploads a file (drop it, or choose it),
//   says the size limit before it sends, and shows a parse error with its
//   line quoted and the column marked.
(function () {
  'use strict';

  // ---- Focus across swaps ----

  var focus = null; // {id, name, value, row, start, end}

  function remember() {
    var el = document.activeElement;
    if (!el || el === document.body) { focus = null; return; }
    var row = el.closest ? el.closest('.frow') : null;
    var name = row ? row.getAttribute('data-name') : null;
    var panel = el.closest ? el.closest('#panel') : null;
    if (panel) { name = panel.getAttribute('data-feature'); }
    focus = { id: el.id, name: el.getAttribute('name'), value: el.getAttribute('value'), row: name };
    if (el.id === 'find') { focus.start = el.selectionStart; focus.end = el.selectionEnd; }
  }

  function rowByName(name) {
    var rows = document.querySelectorAll('.frow');
    for (var i = 0; i < rows.length; i++) {
      if (rows[i].getAttribute('data-name') === name) { return rows[i]; }
    }
    return null;
  }

  // squareByName is a grid's square of the feature (a board's).
  function squareByName(name) {
    var sq = document.querySelectorAll('#fgrid button[data-name]');
    for (var i = 0; i < sq.length; i++) {
      if (sq[i].getAttribute('data-name') === name) { return sq[i]; }
    }
    return null;
  }

  function restore() {
    if (!focus) { return; }
    var f = focus, el = null;
    focus = null;
    // Why? asked: to the panel, where the answer is; closed: back to the
    // feature's row, or its square on a grid.
    if (f.name === 'ask') { el = document.getElementById('panel'); }
    if (!el && f.id) { el = document.getElementById(f.id); }
    if (!el && f.row) {
      var row = rowByName(f.row);
      if (row) {
        var line = row.querySelector('.fline');
        el = line.querySelector('button[name="' + f.name + '"]') || line.querySelector('button.why, button.act, button.twist');
      } else {
        el = squareByName(f.row);
      }
    }
    if (!el && f.name === 'undo') { el = document.querySelector('#decisions .chip'); }
    if (!el) { el = document.getElementById('features'); }
    // The diagram's panel, opened, comes into view as a whole, not its
    // heading alone at the foot of the window.
    var dg = document.getElementById('diagram');
    if (f.id === 'diagram-h' && dg && dg.open) { dg.scrollIntoView({ block: 'start' }); }
    // A part swapped around the control in use (the search's results
    // while the person types on) leaves the control as it is.
    if (!el || el === document.activeElement) { return; }
    el.focus({ preventScroll: false });
    if (f.id === 'find' && typeof f.start === 'number') {
      try { el.setSelectionRange(f.start, f.end); } catch (e) { /* not a text field */ }
    }
  }

  document.addEventListener('htmx:beforeRequest', remember);
  document.addEventListener('htmx:afterSettle', function () {
    restore();
    announce();
    syncTitle();
    marks();
    history_.render();
  });

  // ---- Clicks while a step is in flight ----
  //
  // A step replaces the one in flight (hx-sync): a square clicked while
  // one is under way (a slow backend) would lose the step before it. It
  // is kept instead, marked, and clicked again once the step in flight
  // has settled, on the board its answer shows.

  var inFlight = 0, queued = [];
  function steps(ev) { return ev.detail && ev.detail.target && ev.detail.target.id === 'app'; }
  function next() {
    if (inFlight || !queued.length) { return; }
    var b = squareByName(queued.shift());
    if (b && !b.disabled) { b.click(); }
  }
  document.addEventListener('htmx:beforeSend', function (ev) { if (steps(ev)) { inFlight++; } });
  // The page's own asking again while a backend compiles (every two
  // seconds) waits for a person's step in flight: it would replace it.
  document.addEventListener('htmx:beforeRequest', function (ev) {
    var elt = ev.target;
    if (inFlight && elt && elt.closest && elt.closest('[data-poll]')) { ev.preventDefault(); }
  });
  // The answer has settled when its request ends (htmx ends it after
  // the settle).
  ['htmx:afterRequest', 'htmx:sendAbort'].forEach(function (name) {
    document.addEventListener(name, function (ev) {
      if (!steps(ev)) { return; }
      inFlight = Math.max(0, inFlight - 1);
      setTimeout(next, 0);
    });
  });
  document.addEventListener('click', function (ev) {
    var b = ev.target.closest ? ev.target.closest('#fgrid button[data-name]') : null;
    if (!b || !inFlight) { return; }
    ev.preventDefault();
    ev.stopPropagation();
    queued.push(b.getAttribute('data-name'));
    b.classList.add('queued');
  }, true);

  // ---- Keys ----

  function press(row, sel) {
    var b = row && row.querySelector(':scope > .fline ' + sel);
    if (b) { b.click(); return true; }
    return false;
  }

  document.addEventListener('keydown', function (ev) {
    if (ev.altKey || ev.ctrlKey || ev.metaKey) { return; }
    var t = ev.target;
    var typing = t && (t.tagName === 'INPUT' || t.tagName === 'SELECT' || t.tagName === 'TEXTAREA');
    if (ev.key === '/' && !typing) {
      var find = document.getElementById('find');
      if (find) { ev.preventDefault(); find.focus(); find.select(); }
      return;
    }
    if (ev.key === 'Escape') {
      var close = document.getElementById('why-close');
      if (close && !typing) { ev.preventDefault(); close.click(); }
      return;
    }
    if (typing) { return; }
    var row = t.closest ? t.closest('.frow') : null;
    if (!row) { return; }
    var done = false;
    switch (ev.key) {
      case '+': done = press(row, 'button.pick'); break;
      case '-': done = press(row, 'button.drop'); break;
      case '?': done = press(row, 'button.why'); break;
      case 'u': done = press(row, 'button.undo'); break;
      case 'ArrowDown': case 'ArrowUp': done = step(row, ev.key === 'ArrowDown' ? 1 : -1); break;
      default: return;
    }
    if (done) { ev.preventDefault(); }
  });

  // step moves the focus to the next or previous row's first button.
  function step(row, by) {
    var rows = Array.prototype.slice.call(document.querySelectorAll('.frow'));
    var i = rows.indexOf(row) + by;
    if (i < 0 || i >= rows.length) { return false; }
    var b = rows[i].querySelector(':scope > .fline button');
    if (!b) { return false; }
    b.focus();
    return true;
  }

  // ---- Reasons ----

  function mark(ids) {
    document.querySelectorAll('.frow.because, .cell.because').forEach(function (r) { r.classList.remove('because'); });
    (ids || '').split(' ').forEach(function (id) {
      var r = id && document.getElementById(id);
      if (r) { r.classList.add('because'); }
    });
  }
  function marks() { mark(''); }
  function reasonOf(ev) { return ev.target.closest ? ev.target.closest('#reasons li.reason') : null; }
  document.addEventListener('mouseover', function (ev) {
    var r = reasonOf(ev);
    if (r) {
      document.querySelectorAll('#reasons li.reason.on').forEach(function (x) { x.classList.remove('on'); });
      r.classList.add('on');
      mark(r.getAttribute('data-rows'));
    }
  });
  document.addEventListener('mouseout', function (ev) {
    var r = reasonOf(ev);
    if (r && !r.contains(ev.relatedTarget)) { r.classList.remove('on'); mark(''); }
  });
  document.addEventListener('focusin', function (ev) {
    var r = reasonOf(ev);
    if (r) { r.classList.add('on'); mark(r.getAttribute('data-rows')); }
  });
  document.addEventListener('focusout', function (ev) {
    var r = reasonOf(ev);
    if (r) { r.classList.remove('on'); mark(''); }
  });

  // ---- Dismiss, announce, title ----

  document.addEventListener('click', function (ev) {
    var d = ev.target.closest ? ev.target.closest('[data-dismiss]') : null;
    if (d) {
      var n = d.closest('.notice');
      if (n) { n.remove(); }
    }
  });

  function announce() {
    var out = document.getElementById('announce');
    if (!out) { return; }
    var parts = [];
    ['#notice p', '#count', '#agreement', '#panel-h', '#panel-text'].forEach(function (sel) {
      var el = document.querySelector(sel);
      var t = el ? el.textContent.trim() : '';
      if (t) { parts.push(/[.?!:]$/.test(t) ? t : t + '.'); }
    });
    out.textContent = parts.join(' ');
  }

  function syncTitle() {
    var app = document.getElementById('app');
    var t = app && app.getAttribute('data-title');
    if (t) { document.title = t; }
  }
  document.addEventListener('htmx:historyRestore', function () { syncTitle(); history_.restamp(); history_.render(); });

  document.addEventListener('htmx:sendError', function () {
    var area = document.getElementById('notice');
    if (!area) { return; }
    area.innerHTML = '';
    var div = document.createElement('div');
    div.className = 'notice error';
    div.setAttribute('role', 'alert');
    var p = document.createElement('p');
    p.textContent = 'The server did not answer. Your configuration is still here; try again in a moment.';
    div.appendChild(p);
    area.appendChild(div);
  });

  // ---- Undo, Redo and the steps ----
  //
  // Every entry of the browser's history that this page makes carries its
  // position (pos) in its state; the steps, by position, are kept for the
  // tab's life in sessionStorage.

  // splitNames reads a list of feature names as the address writes it
  // (modelstate.SplitNames): separated by commas, a name that holds a
  // comma between double quotes, a quote in it doubled.
  function splitNames(s) {
    var out = [], i = 0;
    while (i < s.length) {
      var name = '';
      while (s[i] === ' ') { i++; }
      if (s[i] === '"') {
        for (i++; i < s.length; i++) {
          if (s[i] === '"') {
            if (s[i + 1] !== '"') { i++; break; }
            i++;
          }
          name += s[i];
        }
        var comma = s.indexOf(',', i);
        i = comma < 0 ? s.length : comma + 1;
      } else {
        var end = s.indexOf(',', i);
        if (end < 0) { end = s.length; }
        name = s.slice(i, end).trim();
        i = end + 1;
      }
      if (name) { out.push(name); }
    }
    return out;
  }

  var history_ = (function () {
    var STORE = 'model-steps';
    var cur = 0, steps = [];
    function here() { return location.pathname + location.search; }
    function save() {
      try { sessionStorage.setItem(STORE, JSON.stringify({ cur: cur, steps: steps })); } catch (e) { /* private mode */ }
    }
    // stamp writes the position into the state of the entry shown,
    // keeping what htmx put there (htmx restores only entries it marked).
    function stamp(pos) {
      history.replaceState(Object.assign({}, history.state || {}, { htmx: true, pos: pos }), '');
    }
    // record makes the entry at cur the newest step, with the address
    // shown.
    function record() {
      steps = steps.filter(function (s) { return s.pos < cur; });
      steps.push({ pos: cur, url: here() });
      save();
    }
    // load picks up the steps of this tab when the entry shown is one of
    // them (a reload); a page opened afresh starts a new list.
    function load() {
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
      stamp(0);
      record();
    }
    function index() {
      for (var i = 0; i < steps.length; i++) { if (steps[i].pos === cur) { return i; } }
      return -1;
    }
    function decisions(url) {
      var u = new URL(url, location.href);
      var list = function (k) { return splitNames(u.searchParams.get(k) || ''); };
      return { model: u.searchParams.get('model'), sel: list('select'), desel: list('deselect'), backend: u.searchParams.get('backend') || '', why: u.searchParams.get('why') || '' };
    }
    function label(i) {
      var now = decisions(steps[i].url);
      if (i === 0) { return 'open'; }
      var was = decisions(steps[i - 1].url);
      if (now.model !== was.model) { return 'open'; }
      var out = [];
      now.sel.forEach(function (n) { if (was.sel.indexOf(n) < 0) { out.push('+' + n); } });
      now.desel.forEach(function (n) { if (was.desel.indexOf(n) < 0) { out.push('−' + n); } });
      was.sel.concat(was.desel).forEach(function (n) {
        if (now.sel.indexOf(n) < 0 && now.desel.indexOf(n) < 0) { out.push('undo ' + n); }
      });
      if (out.length) { return out.join(', '); }
      if (now.backend !== was.backend) { return 'use ' + (now.backend || 'the first backend'); }
      if (now.why && now.why !== was.why) { return 'why ' + now.why + '?'; }
      if (!now.why && was.why) { return 'close why'; }
      return 'view';
    }
    function go(i) {
      var k = index();
      if (i !== k && i >= 0 && i < steps.length) { history.go(steps[i].pos - steps[k].pos); }
    }
    function render() {
      var box = document.getElementById('history');
      if (!box) { return; }
      var k = index();
      box.innerHTML = '';
      [['Undo', 'history-undo', k - 1, 'Back to the step before (the browser\'s Back does the same)'],
        ['Redo', 'history-redo', k + 1, 'Forward to the step undone (the browser\'s Forward does the same)']].forEach(function (b) {
        var btn = document.createElement('button');
        btn.type = 'button';
        btn.className = 'btn';
        btn.id = b[1];
        btn.textContent = b[0];
        btn.title = b[3];
        btn.disabled = k < 0 || b[2] < 0 || b[2] >= steps.length;
        btn.setAttribute('data-go', b[2]);
        box.appendChild(btn);
      });
      if (steps.length < 2) { return; }
      var det = document.createElement('details');
      det.className = 'steps-list';
      det.id = 'steps-list';
      var sum = document.createElement('summary');
      sum.textContent = 'Steps (' + steps.length + ')';
      det.appendChild(sum);
      var ol = document.createElement('ol');
      steps.forEach(function (s, i) {
        var li = document.createElement('li');
        var a = document.createElement('a');
        a.href = s.url;
        a.textContent = label(i);
        a.setAttribute('data-go', i);
        if (i === k) { a.setAttribute('aria-current', 'step'); li.className = 'current'; }
        li.appendChild(a);
        ol.appendChild(li);
      });
      det.appendChild(ol);
      box.appendChild(det);
    }
    document.addEventListener('click', function (ev) {
      var el = ev.target.closest ? ev.target.closest('#history [data-go]') : null;
      if (!el || el.disabled) { return; }
      ev.preventDefault();
      go(parseInt(el.getAttribute('data-go'), 10));
    });
    // Before htmx moves to a new entry it saves the page under the one
    // shown, and its state loses the position: put it back.
    document.addEventListener('htmx:beforeHistoryUpdate', function () { stamp(cur); });
    document.addEventListener('htmx:pushedIntoHistory', function () { cur += 1; stamp(cur); record(); render(); });
    document.addEventListener('htmx:replacedInHistory', function () { stamp(cur); record(); render(); });
    // Back and Forward: the entry's position, read before htmx restores
    // the page (and rewrites the entry's state).
    window.addEventListener('popstate', function (ev) {
      var st = ev.state || {};
      if (typeof st.pos === 'number') { cur = st.pos; save(); }
      render();
    }, true);
    return { load: load, render: render, restamp: function () { stamp(cur); } };
  }());

  // A whole page that shows a configuration other than the one its
  // address asked for (the notice says why) names the one it shows in
  // #app's data-href: the address bar says it too, as htmx does for a
  // fragment, before the steps read it.
  (function () {
    var app = document.querySelector('.model-app');
    var href = app && app.getAttribute('data-href');
    if (href && href !== location.pathname + location.search) {
      history.replaceState(history.state, '', href);
    }
  }());

  if (document.getElementById('model-form') || document.querySelector('.model-app')) {
    history_.load();
    history_.render();
  }

  // ---- Opening a model ----

  var drop = document.getElementById('drop');
  var input = document.getElementById('upload');
  var status = document.getElementById('upload-status');
  var LIMIT = 16 << 20;

  function say(kind, text, quote, column) {
    status.innerHTML = '';
    var div = document.createElement('div');
    div.className = 'notice ' + kind + (quote !== undefined ? ' parse-error' : '');
    div.setAttribute('role', kind === 'error' ? 'alert' : 'status');
    var box = document.createElement('div');
    var p = document.createElement('p');
    p.textContent = text;
    box.appendChild(p);
    if (quote !== undefined) {
      var pre = document.createElement('pre');
      pre.id = 'upload-quote';
      pre.textContent = quote + '\n' + ' '.repeat(Math.max(0, column - 1)) + '^';
      box.appendChild(pre);
    }
    div.appendChild(box);
    status.appendChild(div);
  }

  function format(name) {
    var n = name.toLowerCase();
    if (/\.uvl$/.test(n)) { return 'uvl'; }
    if (/\.(dimacs|cnf)$/.test(n)) { return 'dimacs'; }
    return '';
  }

  function send(file) {
    if (file.size > LIMIT) {
      say('error', file.name + ' has ' + file.size.toLocaleString('en') + ' bytes; this server takes models of up to 16 MiB.');
      return;
    }
    say('info', 'Reading ' + file.name + '…');
    file.text().then(function (text) {
      var f = format(file.name);
      var url = '/api/v1/models?name=' + encodeURIComponent(file.name) + (f ? '&format=' + f : '');
      return fetch(url, { method: 'POST', body: file, headers: { 'Content-Type': 'application/octet-stream' } }).then(function (res) {
        return res.json().catch(function () { return {}; }).then(function (body) {
          if (res.ok && body.model) {
            say('info', 'Opening ' + (body.name || file.name) + '…');
            location.assign('/?model=' + encodeURIComponent(body.model));
            return;
          }
          var msg = body.error || ('The server refused the file (' + res.status + ').');
          if (body.line > 0) {
            // The reader's place: the line quoted (the server's quote,
            // else the file's own line) and the column marked.
            var quote = body.quote;
            if (typeof quote !== 'string' || (body.file && quote === '')) {
              quote = text.split(/\r\n|\r|\n/)[body.line - 1] || '';
            }
            say('error', file.name + ': ' + msg, quote.slice(0, 200), body.column || 1);
            return;
          }
          say('error', file.name + ': ' + msg);
        });
      });
    }).catch(function () {
      say('error', 'The file could not be sent: the server did not answer.');
    });
  }

  if (drop && input && status) {
    input.addEventListener('change', function () { if (input.files[0]) { send(input.files[0]); } });
    ['dragenter', 'dragover'].forEach(function (t) {
      drop.addEventListener(t, function (ev) { ev.preventDefault(); drop.classList.add('over'); });
    });
    ['dragleave', 'drop'].forEach(function (t) {
      drop.addEventListener(t, function () { drop.classList.remove('over'); });
    });
    drop.addEventListener('drop', function (ev) {
      ev.preventDefault();
      var f = ev.dataTransfer && ev.dataTransfer.files[0];
      if (f) { send(f); }
    });
  }
}());

// ---- A configuration file opened on the model page ----
(function () {
  'use strict';

  // names writes feature names for the address as the server reads them:
  // comma-separated, a name with a comma, a leading quote or spaces at
  // its ends in double quotes.
  function names(list) {
    return list.map(function (n) {
      return (n.indexOf(',') >= 0 || n.charAt(0) === '"' || n !== n.trim()) ? '"' + n.replace(/"/g, '""') + '"' : n;
    }).join(',');
  }

  function say(text, quote, column) {
    var status = document.getElementById('config-status');
    if (!status) { return; }
    status.innerHTML = '';
    var div = document.createElement('div');
    div.className = 'notice error';
    div.setAttribute('role', 'alert');
    var p = document.createElement('p');
    p.textContent = text;
    div.appendChild(p);
    if (quote !== undefined) {
      var pre = document.createElement('pre');
      pre.textContent = quote + '\n' + ' '.repeat(Math.max(0, column - 1)) + '^';
      div.appendChild(pre);
    }
    status.appendChild(div);
  }

  document.addEventListener('change', function (ev) {
    var input = ev.target;
    if (!input || input.id !== 'config-file' || !input.files[0]) { return; }
    var file = input.files[0], read = input.getAttribute('data-read');
    input.value = '';
    fetch(read, { method: 'POST', body: file, headers: { 'Content-Type': 'application/octet-stream' } }).then(function (res) {
      return res.json().catch(function () { return {}; }).then(function (body) {
        if (res.ok && body.model) {
          var q = new URLSearchParams(read.slice(read.indexOf('?') + 1));
          var href = '/?model=' + encodeURIComponent(body.model);
          if (body.select.length) { href += '&select=' + encodeURIComponent(names(body.select)); }
          if (body.deselect.length) { href += '&deselect=' + encodeURIComponent(names(body.deselect)); }
          if (q.get('backend')) { href += '&backend=' + encodeURIComponent(q.get('backend')); }
          location.assign(href);
          return;
        }
        var msg = file.name + ': ' + (body.error || ('The server refused the file (' + res.status + ').'));
        if (body.line > 0) { say(msg, (body.quote || '').slice(0, 200), body.column || 1); return; }
        say(msg);
      });
    }).catch(function () {
      say('The file could not be sent: the server did not answer.');
    });
  });
}());
