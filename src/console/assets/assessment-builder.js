// The question builder's enhancement: questions dragged by their handle into another place. The
// drop posts the builder's own move form (the same command as Move up / Move down, which work
// without this script); the page then reloads in the new order.
(function () {
  'use strict';
  var list = document.getElementById('builder-questions');
  if (!list || !list.dataset.move) return;
  var items = Array.prototype.slice.call(list.querySelectorAll('li.builder-question'));
  if (items.length < 2) return;
  var hint = document.querySelector('.drag-hint');
  if (hint) hint.hidden = false;
  var dragged = null;
  items.forEach(function (item) {
    var handle = item.querySelector('.drag-handle');
    if (handle) handle.hidden = false;
    item.draggable = true;
    item.addEventListener('dragstart', function (event) {
      dragged = item;
      item.classList.add('dragging');
      event.dataTransfer.effectAllowed = 'move';
      event.dataTransfer.setData('text/plain', item.dataset.index);
    });
    item.addEventListener('dragend', function () {
      item.classList.remove('dragging');
      items.forEach(function (other) {
        other.classList.remove('drop-target');
      });
    });
    item.addEventListener('dragover', function (event) {
      if (!dragged || dragged === item) return;
      event.preventDefault();
      item.classList.add('drop-target');
    });
    item.addEventListener('dragleave', function () {
      item.classList.remove('drop-target');
    });
    item.addEventListener('drop', function (event) {
      event.preventDefault();
      if (!dragged || dragged === item) return;
      var source = dragged.querySelector('form');
      var form = document.createElement('form');
      form.method = 'post';
      form.action = list.dataset.move;
      var fields = {
        _csrf: source.querySelector('input[name="_csrf"]').value,
        instance: source.querySelector('input[name="instance"]').value,
        action: 'move',
        question: String(Number(dragged.dataset.index) + 1),
        to: String(Number(item.dataset.index) + 1),
      };
      Object.keys(fields).forEach(function (name) {
        var input = document.createElement('input');
        input.type = 'hidden';
        input.name = name;
        input.value = fields[name];
        form.appendChild(input);
      });
      document.body.appendChild(form);
      form.submit();
    });
  });
})();
