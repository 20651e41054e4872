// The address bar names the board the page shows. A whole page whose
// board fell back from the one its address asked for (a board this server
// cannot show: the notice says why) names the board it shows in #app's
// data-href; this puts it in the address bar, as htmx does for a fragment
// (HX-Replace-Url), before the list of steps (explain.js, loaded after
// this) reads the address, so that the steps, a reload and a shared link
// show what the page shows.
(function () {
  'use strict';
  var app = document.getElementById('app');
  var href = app && app.getAttribute('data-href');
  if (href && href !== location.pathname + location.search) {
    history.replaceState(history.state, '', href);
  }
}());
