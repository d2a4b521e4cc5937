// The console's only script: a print button on reports, a file picker that fills the import box,
// a search box over a long list of assessments to choose from,
// a confirmation before revoking a key or resetting a password, and a reload of a page of work in
// progress.
// Everything works without it.
'use strict';
document.addEventListener('DOMContentLoaded', function () {
  document.querySelectorAll('.print-button').forEach(function (button) {
    button.hidden = false;
    button.addEventListener('click', function () {
      window.print();
    });
  });
  // A chosen file fills the document box, so that publishing sends what the author sees.
  document.querySelectorAll('input[type=file][data-fills]').forEach(function (input) {
    input.addEventListener('change', function () {
      var target = document.getElementById(input.getAttribute('data-fills'));
      var file = input.files && input.files[0];
      if (!target || !file) return;
      file.text().then(function (text) {
        target.value = text;
      });
    });
  });
  // A page of work in progress (a bulk invite) shows how far it is: reloaded every few seconds.
  var refresh = document.querySelector('[data-refresh]');
  if (refresh) {
    window.setTimeout(
      function () {
        window.location.reload();
      },
      1000 * Number(refresh.getAttribute('data-refresh') || 5),
    );
  }
  // A search box over a long list of choices hides the choices whose words do not contain it
  // (a ticked one stays, so that nothing chosen is out of sight).
  document.querySelectorAll('input[data-filters]').forEach(function (input) {
    var list = document.getElementById(input.getAttribute('data-filters'));
    if (!list) return;
    input.closest('.option-search').hidden = false;
    input.addEventListener('input', function () {
      var wanted = input.value.trim().toLowerCase();
      list.querySelectorAll('.option').forEach(function (option) {
        var box = option.querySelector('input');
        option.hidden = wanted !== '' && !(box && box.checked) && option.textContent.toLowerCase().indexOf(wanted) === -1;
      });
    });
  });
  // A copy button puts its field's text on the clipboard (without script, the field is there to copy from).
  document.querySelectorAll('.copy-button[data-copies]').forEach(function (button) {
    var source = document.getElementById(button.getAttribute('data-copies'));
    if (!source || !navigator.clipboard) return;
    button.hidden = false;
    button.addEventListener('click', function () {
      navigator.clipboard.writeText(source.value).then(function () {
        button.textContent = 'Copied';
      });
    });
  });
  // Choosing a colour is choosing not to keep the default one.
  var accent = document.getElementById('set-accent');
  var accentDefault = document.getElementById('set-accent-default');
  if (accent && accentDefault) {
    accent.addEventListener('input', function () {
      accentDefault.checked = false;
    });
  }
  document.querySelectorAll('form.confirm').forEach(function (form) {
    form.addEventListener('submit', function (event) {
      if (!window.confirm(form.getAttribute('data-confirm') || 'Are you sure?')) event.preventDefault();
    });
  });
});
