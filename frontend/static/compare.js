// The end-to-end time of a step: from the click (the input event htmx
// answers to) to the new board (or model configuration) painted, measured here and shown beside
// the server's own figures, split into the backends' time (the timing
// card's data-backend-ns), the server's rendering and the rest of the
// request on the server (its Server-Timing header: render, app), the
// transfer (from the request sent to the answer received, less the
// server's time) and the browser's work (from the answer received to the
// board painted: parsing, htmx's swap, style, layout and paint). A click
// whose board had to be compiled first says the wait and the step apart.
// Each click is also a User Timing measure ("click to paint"), the window
// the browser's performance trace shows it in.
(function () {
  'use strict';

  var sent = 0;      // performance.now() when the request left
  var received = 0;  // when its answer was in
  var server = null; // the answer's Server-Timing, by name, in ms
  var size = 0;      // characters of the answer's HTML
  var last = null;   // the last measurement, written into every new card
  var waiting = null;    // when the click whose board is being made was made
  var waitedFrom = null; // the same, for the request that fetches that board

  function timing(xhr) {
    var out = {};
    var h = xhr && xhr.getResponseHeader ? xhr.getResponseHeader('Server-Timing') : null;
    (h || '').split(',').forEach(function (part) {
      var m = /^\s*([\w-]+)\s*;\s*dur=([\d.]+)/.exec(part);
      if (m) { out[m[1]] = parseFloat(m[2]); }
    });
    return out;
  }

  // ms writes milliseconds as the server's cards do: three significant
  // digits and a unit.
  function ms(v) {
    if (v < 0) { v = 0; }
    if (v < 1) { return (v * 1000).toPrecision(3).replace(/\.?0+$/, '') + ' µs'; }
    if (v < 1000) { return (v >= 100 ? v.toFixed(0) : v.toPrecision(3)) + ' ms'; }
    return (v / 1000).toPrecision(3) + ' s';
  }

  function show() {
    var el = document.getElementById('e2e');
    if (!el || !last) { return; }
    var split = ms(last.backend) + ' backends + ' + ms(last.render) + ' rendering + ' +
      ms(last.other) + ' rest of the server + ' + ms(last.transfer) + ' transfer + ' +
      ms(last.browser) + ' browser (swap and paint)' + (last.bytes ? ', ' + Math.round(last.bytes / 1024) + ' KB of HTML.' : '.');
    if (last.wait > 0) {
      // A click that waited for a compile: the wait and the step apart.
      el.textContent = last.what + ': ' + ms(last.wait + last.total) + ' end to end: ' + ms(last.wait) +
        ' waiting for the board to be made, then ' + ms(last.total) + ' for the step = ' + split;
    } else {
      el.textContent = last.what + ': ' + ms(last.total) + ' end to end = ' + split;
    }
    el.setAttribute('data-total-ms', (last.wait + last.total).toFixed(3));
    el.setAttribute('data-wait-ms', last.wait.toFixed(3));
    el.setAttribute('data-server-ms', (last.backend + last.render + last.other).toFixed(3));
    el.setAttribute('data-bytes', String(last.bytes || 0));
  }

  // A click is timed from its input event (the submit or click htmx
  // answers to, when it has one), so that the browser's handling of the
  // click itself counts too.
  document.addEventListener('htmx:beforeRequest', function (ev) {
    var elt = ev.target;
    // The orders panel and the page's own asking again (while a backend
    // compiles) are no person's step.
    if (elt && elt.closest && elt.closest('#orders, [data-poll]')) { return; }
    // Only a step is timed: a request that swaps a part of the page
    // alone (the model page's search and filter) is not.
    var target = ev.detail && ev.detail.target;
    if (target && target.id !== 'app') { return; }
    var trig = ev.detail && ev.detail.requestConfig && ev.detail.requestConfig.triggeringEvent;
    sent = performance.now();
    if (trig && trig.timeStamp > 0 && trig.timeStamp <= sent) { sent = trig.timeStamp; }
    // The request that fetches the board a compile was waited for: the
    // click that started the wait is the one being timed.
    waitedFrom = elt && elt.closest && elt.closest('.compiling') ? waiting : null;
    received = 0;
    server = null;
  });

  // The answer is in when htmx starts to handle it, before the swap; the
  // browser's own resource timing, when it has the request, says so more
  // exactly (the end of the response's last byte).
  document.addEventListener('htmx:beforeOnLoad', function (ev) {
    if (!sent) { return; }
    received = performance.now();
    var xhr = ev.detail && ev.detail.xhr;
    server = timing(xhr);
    size = xhr && typeof xhr.responseText === 'string' ? xhr.responseText.length : 0;
    if (xhr && xhr.responseURL && performance.getEntriesByName) {
      var entries = performance.getEntriesByName(xhr.responseURL);
      var e = entries[entries.length - 1];
      if (e && e.responseEnd > sent) { received = e.responseEnd; }
      if (performance.clearResourceTimings) { performance.clearResourceTimings(); }
    }
  });

  // painted calls f once the frame that shows the page as it is now has
  // been drawn: the next animation frame runs just before that frame's
  // rendering, and a task posted from it runs just after.
  function painted(f) {
    requestAnimationFrame(function () {
      var ch = new MessageChannel();
      ch.port1.onmessage = f;
      ch.port2.postMessage(null);
    });
  }

  document.addEventListener('htmx:afterSettle', function () {
    if (document.querySelector('#app .compiling')) {
      // Not a board yet: the figure waits for the board being made.
      if (sent && waitedFrom === null) { waiting = sent; }
      sent = 0;
      return;
    }
    if (!sent || !received) { show(); return; }
    var start = sent, back = received, st = server || {}, from = waitedFrom;
    sent = 0;
    waiting = null;
    waitedFrom = null;
    painted(function () {
      var end = performance.now();
      if (performance.measure) {
        // The same window in the browser's performance trace.
        performance.measure('click to paint', { start: start, end: end });
      }
      var card = document.getElementById('timing');
      var backend = card ? parseInt(card.getAttribute('data-backend-ns') || '0', 10) / 1e6 : 0;
      var app = st.app || 0, render = st.render || 0;
      last = {
        what: 'Your last click',
        total: end - start,
        backend: backend,
        render: render,
        other: Math.max(0, app - backend - render),
        transfer: Math.max(0, back - start - app),
        browser: end - back,
        bytes: size,
        wait: from === null ? 0 : start - from
      };
      show();
    });
  });

  // The page itself: from navigation start to the first board painted,
  // with the server's figures from the navigation's Server-Timing.
  document.addEventListener('DOMContentLoaded', function () {
    if (document.querySelector('#app .compiling')) {
      // The page opened on a board being made: its wait began with the page.
      waiting = 0;
      return;
    }
    var nav = performance.getEntriesByType ? performance.getEntriesByType('navigation')[0] : null;
    if (!nav) { return; }
    requestAnimationFrame(function () {
      requestAnimationFrame(function () {
        var st = {};
        (nav.serverTiming || []).forEach(function (e) { st[e.name] = e.duration; });
        var card = document.getElementById('timing');
        var backend = card ? parseInt(card.getAttribute('data-backend-ns') || '0', 10) / 1e6 : 0;
        var app = st.app || 0, render = st.render || 0;
        if (last || !card) { return; }
        last = {
          what: 'This page',
          total: performance.now(),
          backend: backend,
          render: render,
          other: Math.max(0, app - backend - render),
          transfer: Math.max(0, nav.responseEnd - nav.requestStart - app),
          browser: performance.now() - nav.responseEnd,
          bytes: nav.decodedBodySize || 0,
          wait: 0
        };
        show();
      });
    });
  });
}());
