// A step's answer is merged into the page instead of replacing it (htmx's
// swap style "morph", an htmx extension of the same name): every element
// of the new #app that stands where an element of the same kind stands
// now (the same tag, id and square) keeps the element shown and takes on
// the new one's attributes, text and children, so that a click touches
// only the squares whose state changed and the panels whose content did.
// The browser then restyles, lays out and paints those alone, the focus
// and the pointer stay on the square acted on, and no listener is set up
// again. The page's own additions (the list of steps, the preview line:
// elements marked data-client) are left where they are.
//
// Only a board is merged into a board, and a model's configuration into
// a model's configuration (their forms, #board-form and #model-form, say
// which they are); any other answer (a compile's progress, a page with
// neither) replaces #app as before (the swap style htmx falls back to,
// outerHTML).
(function () {
  'use strict';

  // same reports whether the live node a stands for the same thing as
  // the new node b: the same kind of node, and for an element the same
  // tag, id and square.
  function same(a, b) {
    if (a.nodeType !== b.nodeType || a.nodeName !== b.nodeName) { return false; }
    if (a.nodeType !== 1) { return true; }
    return a.id === b.id && a.getAttribute('data-cell') === b.getAttribute('data-cell');
  }

  function client(n) {
    return n.nodeType === 1 && n.hasAttribute('data-client');
  }

  // attributes gives the live element the new one's attributes. A
  // <details> the person opened stays open; an option's and a check
  // box's state follow their attributes, as on a page just loaded.
  function attributes(live, next) {
    var a = live.attributes;
    for (var i = a.length - 1; i >= 0; i--) {
      var name = a[i].name;
      if (!next.hasAttribute(name) && !(name === 'open' && live.nodeName === 'DETAILS')) {
        live.removeAttribute(name);
      }
    }
    var b = next.attributes;
    for (var j = 0; j < b.length; j++) {
      if (live.getAttribute(b[j].name) !== b[j].value) {
        live.setAttribute(b[j].name, b[j].value);
      }
    }
    if (live.nodeName === 'OPTION') {
      live.selected = next.hasAttribute('selected');
    } else if (live.nodeName === 'INPUT' && (live.type === 'checkbox' || live.type === 'radio')) {
      live.checked = next.hasAttribute('checked');
    }
  }

  // update makes the live node show what the new one does. A subtree
  // that is the same already (the browser compares it natively) is left
  // alone: most of the page does not change with a step.
  function update(live, next) {
    if (live.nodeType !== 1) {
      if (live.nodeValue !== next.nodeValue) { live.nodeValue = next.nodeValue; }
      return;
    }
    if (live.isEqualNode(next)) { return; }
    attributes(live, next);
    // The live page parses <noscript> as text, the answer as elements:
    // there is nothing in it to show.
    if (live.nodeName !== 'NOSCRIPT') { children(live, next); }
  }

  // sibling finds, from the live node from on, the element of id.
  function sibling(from, id) {
    for (var n = from; n; n = n.nextSibling) {
      if (n.nodeType === 1 && n.id === id) { return n; }
    }
    return null;
  }

  // children merges the new element's children into the live one's, in
  // order: a child standing for the one at its place is updated, one with
  // an id met further on is moved here and updated, any other is inserted;
  // the live children left over go, but for the page's own.
  function children(live, next) {
    var at = live.firstChild;
    var n = next.firstChild;
    while (n) {
      var following = n.nextSibling;
      while (at && client(at)) { at = at.nextSibling; }
      if (at && same(at, n)) {
        update(at, n);
        at = at.nextSibling;
      } else {
        var there = n.nodeType === 1 && n.id ? sibling(at, n.id) : null;
        if (there && same(there, n)) {
          live.insertBefore(there, at);
          update(there, n);
        } else {
          live.insertBefore(n, at);
        }
      }
      n = following;
    }
    while (at) {
      var after = at.nextSibling;
      if (!client(at)) { live.removeChild(at); }
      at = after;
    }
  }

  // mergeable reports whether the new #app shows the same kind of page as
  // the live one: both a board, or both a model's configuration.
  function mergeable(live, next) {
    return ['#board-form', '#model-form'].some(function (form) {
      return live.querySelector(form) !== null && next.querySelector(form) !== null;
    });
  }

  htmx.defineExtension('morph', {
    handleSwap: function (style, target, fragment) {
      if (style !== 'morph') { return false; }
      var next = fragment.firstElementChild;
      if (!next || next.id !== target.id || !mergeable(target, next)) {
        return false;
      }
      update(target, next);
      // htmx sets up what changed (processNode) and fires htmx:load.
      return [target];
    }
  });
}());
