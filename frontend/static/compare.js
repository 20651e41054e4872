// The end-to-end time of a step: from the click (htmx sending the request)
// to the new board painted, measured here and shown beside the server's
// own figures, split into the backends' time (the timing card's
// data-backend-ns), the server's rendering and the rest of the request on
// the server (its Server-Timing header: render, app), the transfer (from
// the request sent to the answer received, less the server's time) and
// the browser's work (from the answer received to the board painted:
// parsing, htmx's swap and settle, layout and paint).
(function () {
  'use strict';

  var sent = 0;      // performance.now() when the request left
  var received = 0;  // when its answer was in
  var server = null; // the answer's Server-Timing, by name, in ms
  var size = 0;      // characters of the answer's HTML
  var last = null;   // the last measurement, written into every new card

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
    el.textContent = last.what + ': ' + ms(last.total) + ' end to end = ' +
      ms(last.backend) + ' backends + ' + ms(last.render) + ' rendering + ' +
      ms(last.other) + ' rest of the server + ' + ms(last.transfer) + ' transfer + ' +
      ms(last.browser) + ' browser (swap and paint)' + (last.bytes ? ', ' + Math.round(last.bytes / 1024) + ' KB of HTML.' : '.');
    el.setAttribute('data-total-ms', last.total.toFixed(3));
    el.setAttribute('data-server-ms', (last.backend + last.render + last.other).toFixed(3));
    el.setAttribute('data-bytes', String(last.bytes || 0));
  }

  document.addEventListener('htmx:beforeRequest', function (ev) {
    if (ev.target && ev.target.closest && ev.target.closest('#orders')) { return; }
    sent = performance.now();
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

  // After the swap has settled, the next animation frame is the first
  // paint that can show the new board; the frame after it has painted.
  document.addEventListener('htmx:afterSettle', function () {
    if (!sent || !received) { show(); return; }
    var start = sent, back = received, st = server || {};
    sent = 0;
    requestAnimationFrame(function () {
      requestAnimationFrame(function () {
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
          bytes: size
        };
        show();
      });
    });
  });

  // The page itself: from navigation start to the first board painted,
  // with the server's figures from the navigation's Server-Timing.
  document.addEventListener('DOMContentLoaded', function () {
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
          bytes: nav.decodedBodySize || 0
        };
        show();
      });
    });
  });
}());
