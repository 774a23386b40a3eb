/* global document */
/*
 * Table pages (index, compare, matrix): click a header to sort, type to filter rows. Rows carry their own
 * sort keys in data-sort and their filter text in data-text; nothing here reads or writes HTML.
 */
(function () {
  'use strict';
  Array.prototype.forEach.call(document.querySelectorAll('table.sortable'), function (table) {
    const heads = table.querySelectorAll('thead th');
    Array.prototype.forEach.call(heads, function (head, column) {
      if (!head.classList.contains('sortable')) return;
      head.addEventListener('click', function () {
        const body = table.tBodies[0];
        const rows = Array.prototype.slice.call(body.rows);
        const direction = head.getAttribute('data-dir') === 'asc' ? -1 : 1;
        Array.prototype.forEach.call(heads, function (other) {
          other.removeAttribute('data-dir');
        });
        head.setAttribute('data-dir', direction === 1 ? 'asc' : 'desc');
        /* a number where the cell's key reads as one, so 10 sorts after 9; else the text, in lower case */
        const sortKey = function (row) {
          const cell = row.cells[column];
          const key = cell ? cell.getAttribute('data-sort') || cell.textContent : '';
          const number = Number(key);
          return key !== '' && !isNaN(number) ? number : key.toLowerCase();
        };
        rows.sort(function (a, b) {
          const x = sortKey(a),
            y = sortKey(b);
          return (x < y ? -1 : x > y ? 1 : 0) * direction;
        });
        rows.forEach(function (row) {
          body.appendChild(row);
        });
      });
    });
  });
  const input = document.getElementById('filter');
  const shown = document.getElementById('shown');
  if (input) {
    const apply = function () {
      const words = input.value.trim().toLowerCase().split(/\s+/).filter(Boolean);
      let shownRows = 0,
        total = 0;
      Array.prototype.forEach.call(document.querySelectorAll('tr[data-text]'), function (row) {
        total++;
        const text = row.getAttribute('data-text');
        const matches = words.every(function (word) {
          return text.indexOf(word) !== -1;
        });
        row.style.display = matches ? '' : 'none';
        if (matches) shownRows++;
      });
      if (shown) shown.textContent = words.length ? shownRows + ' of ' + total + ' shown' : '';
    };
    input.addEventListener('input', apply);
  }
})();
