/* global document */
/*
 * Table pages (index, compare, matrix): click a header to sort, type to filter rows. Rows carry their own
 * sort keys in data-sort and their filter text in data-text; nothing here reads or writes HTML.
 */
(function () {
  'use strict';
  Array.prototype.forEach.call(document.querySelectorAll('table.sortable'), function (table) {
    var heads = table.querySelectorAll('thead th');
    Array.prototype.forEach.call(heads, function (th, col) {
      if (!th.classList.contains('sortable')) return;
      th.addEventListener('click', function () {
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        var dir = th.getAttribute('data-dir') === 'asc' ? -1 : 1;
        Array.prototype.forEach.call(heads, function (h) {
          h.removeAttribute('data-dir');
        });
        th.setAttribute('data-dir', dir === 1 ? 'asc' : 'desc');
        var key = function (r) {
          var c = r.cells[col];
          var v = c ? c.getAttribute('data-sort') || c.textContent : '';
          var n = Number(v);
          return v !== '' && !isNaN(n) ? n : v.toLowerCase();
        };
        rows.sort(function (a, b) {
          var x = key(a),
            y = key(b);
          return (x < y ? -1 : x > y ? 1 : 0) * dir;
        });
        rows.forEach(function (r) {
          body.appendChild(r);
        });
      });
    });
  });
  var input = document.getElementById('filter');
  var shown = document.getElementById('shown');
  if (input) {
    var apply = function () {
      var q = input.value.trim().toLowerCase().split(/\s+/).filter(Boolean);
      var n = 0,
        total = 0;
      Array.prototype.forEach.call(document.querySelectorAll('tr[data-text]'), function (r) {
        total++;
        var text = r.getAttribute('data-text');
        var ok = q.every(function (w) {
          return text.indexOf(w) !== -1;
        });
        r.style.display = ok ? '' : 'none';
        if (ok) n++;
      });
      if (shown) shown.textContent = q.length ? n + ' of ' + total + ' shown' : '';
    };
    input.addEventListener('input', apply);
  }
})();
