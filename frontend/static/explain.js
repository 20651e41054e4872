// The Why? and Make room panel, keyboard focus and clicks in flight.
//
// - Hovering or focusing a reason marks its queens on the board.
// - A panel is not a step: opening one adds a history entry of the same
//   address, so Back (or Escape, or Close) closes it without undoing a
//   queen; a step taken with the panel open takes that entry's place.
// - After every swap focus returns to the square acted on.
// - Clicks on the board made while a step is in flight are queued and
//   applied in order once the board they act on is shown.
(function () {
  'use strict';

  var CELL = '#board-form button[data-cell]';
  var panelEntry = false; // the history entry on top is the open panel's
  var acted = '';         // the square the last request acted on
  var inFlight = false;
  var queue = [];         // squares clicked while a step was in flight

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

  // closePanel takes the panel and its marks off the page; the board
  // under it is the current state's, so nothing needs asking.
  function closePanel() {
    var p = document.getElementById('panel');
    if (!p) { return; }
    var cell = p.getAttribute('data-cell');
    p.remove();
    ['because', 'gone', 'asked', 'reason-on'].forEach(function (cls) { mark('', cls); });
    var b = cellButton(cell);
    if (b) {
      document.querySelectorAll(CELL).forEach(function (x) { x.tabIndex = -1; });
      b.tabIndex = 0;
      b.focus();
    }
  }

  // dismiss closes the panel the way Back would.
  function dismiss() {
    if (panelEntry) {
      history.back();
    } else {
      closePanel();
    }
  }

  // Back with a panel open closes it; htmx, which would restore the
  // previous board, does not hear of it.
  window.addEventListener('popstate', function (ev) {
    if (!panelEntry) { return; }
    panelEntry = false;
    ev.stopImmediatePropagation();
    closePanel();
  }, true);

  // A step taken with the panel open replaces the panel's entry, so that
  // Back from it goes to the board before, without a panel.
  document.addEventListener('htmx:beforeHistoryUpdate', function (ev) {
    var h = ev.detail && ev.detail.history;
    if (panelEntry && h && h.type === 'push') {
      h.type = 'replace';
      panelEntry = false;
    }
  });
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
      dismiss();
      return;
    }
    // The skip link goes to the board's square in the tab order.
    if (t.closest('#skip-board')) {
      var stop = document.querySelector(CELL + '[tabindex="0"]') || document.querySelector(CELL);
      if (stop) {
        ev.preventDefault();
        stop.focus();
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
    if (panel && !panelEntry) {
      history.pushState({ panel: true }, '', location.href);
      panelEntry = true;
    } else if (!panel) {
      // A swap without a panel that took no history step (a refresh):
      // the entry stays, an extra Back away.
      panelEntry = false;
    }
    if (done()) { return; }
    var b = cellButton(acted);
    if (b) {
      document.querySelectorAll(CELL).forEach(function (x) { x.tabIndex = -1; });
      b.tabIndex = 0;
      b.focus({ preventScroll: true });
    }
    // On a narrow screen the answer is below the board: bring it into view.
    if (panel && window.matchMedia('(max-width: 900px)').matches) {
      var reduce = window.matchMedia('(prefers-reduced-motion: reduce)').matches;
      panel.scrollIntoView({ block: 'start', behavior: reduce ? 'auto' : 'smooth' });
    }
  });
}());
