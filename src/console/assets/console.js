// The console's only script: a print button on reports and a confirmation before revoking a key.
// Everything works without it.
'use strict';
document.addEventListener('DOMContentLoaded', function () {
  document.querySelectorAll('.print-button').forEach(function (button) {
    button.hidden = false;
    button.addEventListener('click', function () {
      window.print();
    });
  });
  document.querySelectorAll('form.confirm').forEach(function (form) {
    form.addEventListener('submit', function (event) {
      if (!window.confirm(form.getAttribute('data-confirm') || 'Are you sure?')) event.preventDefault();
    });
  });
});
