// Keyboard navigation of a grid of squares, the board's page's and a model
// page's (a board as a model): the grid is an ARIA grid with a roving tab
// stop, one square in the tab order, and the arrow keys move it. No
// inline handlers (the pages' Content-Security-Policy forbids them), so
// listeners are delegated from the document and survive every swap.
(function () {
  'use strict';

  var GRID = 'table[role="grid"]';
  var CELL = GRID + ' td > button';

  function rows(table) {
    var out = [];
    table.querySelectorAll('tr[role="row"]').forEach(function (tr) {
      out.push(Array.prototype.slice.call(tr.querySelectorAll('td > button')));
    });
    return out;
  }

  function moveTo(table, btn) {
    table.querySelectorAll('td > button').forEach(function (b) { b.tabIndex = -1; });
    btn.tabIndex = 0;
    btn.focus();
  }

  document.addEventListener('keydown', function (ev) {
    var btn = ev.target.closest ? ev.target.closest(CELL) : null;
    if (!btn || ev.altKey || ev.ctrlKey || ev.metaKey) { return; }
    var table = btn.closest(GRID);
    var rs = rows(table), r = -1, c = -1;
    for (var i = 0; i < rs.length && r < 0; i++) {
      c = rs[i].indexOf(btn);
      if (c >= 0) { r = i; }
    }
    if (r < 0) { return; }
    var n = rs.length;
    switch (ev.key) {
      case 'ArrowUp': r = Math.max(0, r - 1); break;
      case 'ArrowDown': r = Math.min(n - 1, r + 1); break;
      case 'ArrowLeft': c = Math.max(0, c - 1); break;
      case 'ArrowRight': c = Math.min(rs[r].length - 1, c + 1); break;
      case 'Home': c = 0; break;
      case 'End': c = rs[r].length - 1; break;
      case 'PageUp': r = 0; break;
      case 'PageDown': r = n - 1; break;
      default: return;
    }
    ev.preventDefault();
    moveTo(table, rs[r][c]);
  });

  // A mouse click keeps the roving tab stop where the person is.
  document.addEventListener('focusin', function (ev) {
    var btn = ev.target.closest ? ev.target.closest(CELL) : null;
    if (btn && btn.tabIndex !== 0) { moveTo(btn.closest(GRID), btn); }
  });
}());
