// The portal's progressive JavaScript: opening the invite link, saving answers as they are
// given, the countdown, the typing test, and reporting proctoring signals. Every page works
// without it except the link exchange and the typing test.
'use strict';

(function () {
  var page = document.body.getAttribute('data-page');
  var csrfMeta = document.querySelector('meta[name="csrf-token"]');
  var csrf = csrfMeta ? csrfMeta.getAttribute('content') : '';
  var slugMatch = /^\/portal\/a\/([^/?#]+)/.exec(location.pathname);
  var slug = slugMatch ? slugMatch[1] : null;

  // The page's messages in the candidate's language, from the server (data-messages on <body>):
  // {name} placeholders and {n, plural, one {…} other {…}} as in the catalogues (src/i18n).
  var lang = document.body.getAttribute('data-lang') || 'en';
  var messages = {};
  try {
    messages = JSON.parse(document.body.getAttribute('data-messages') || '{}');
  } catch {
    messages = {};
  }
  var plurals = new Intl.PluralRules(lang);
  var numbers = new Intl.NumberFormat(lang);
  function fill(text, params) {
    return text
      .replace(/\{(\w+), plural,((?:[^{}]|\{[^{}]*\})*)\}/g, function (whole, name, body) {
        var n = Number(params[name]);
        var branches = {};
        body.replace(/(=\d+|\w+)\s*\{([^{}]*)\}/g, function (b, selector, branch) {
          branches[selector] = branch;
        });
        var chosen = branches['=' + n] || branches[plurals.select(n)] || branches.other || '';
        return chosen.replace(/#/g, numbers.format(n));
      })
      .replace(/\{(\w+)\}/g, function (whole, name) {
        var v = params[name];
        return v === undefined ? whole : typeof v === 'number' ? numbers.format(v) : String(v);
      });
  }
  function say(key, params) {
    return fill(messages[key] || key, params || {});
  }

  function send(method, url, body, keepalive) {
    return fetch(url, {
      method: method,
      headers: { 'content-type': 'application/json', 'x-csrf-token': csrf },
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
      keepalive: !!keepalive,
    });
  }

  // 1. The invite link: exchange the token from the fragment for a session cookie, then drop it
  //    from the address bar so that it is neither bookmarked nor shown.
  if (page === 'landing') {
    var status = document.getElementById('landing-status');
    var match = /[#&?]sessionToken=([A-Za-z0-9_-]+)/.exec(location.hash);
    if (!match) {
      status.textContent = say('needLink');
      return;
    }
    history.replaceState(null, '', '/portal/');
    fetch('/portal/api/session', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: match[1] }),
      credentials: 'same-origin',
    })
      .then(function (response) {
        if (response.status === 429) {
          var wait = Number(response.headers.get('retry-after')) || 60;
          status.textContent = say('tooMany', { seconds: wait });
          return;
        }
        // 409: every assessment of this link is completed; anything else: the link does not work.
        location.replace(response.ok ? '/portal/' : response.status === 409 ? '/portal/link-used' : '/portal/link-invalid');
      })
      .catch(function () {
        status.textContent = say('unreachable');
      });
    return;
  }

  // The sticky bar's height, so that a focused element is scrolled clear of it (WCAG 2.4.11).
  var bar = document.querySelector('.attempt-bar');
  if (bar) {
    var measure = function () {
      document.documentElement.style.setProperty('--bar-height', bar.offsetHeight + 16 + 'px');
    };
    measure();
    window.addEventListener('resize', measure);
  }

  // 2. The countdown: the server's deadline, corrected for the difference between clocks.
  var timer = document.getElementById('timer');
  if (timer) {
    var deadline = Date.parse(timer.getAttribute('data-deadline'));
    var skew = Date.parse(timer.getAttribute('data-now')) - Date.now();
    var value = document.getElementById('timer-value');
    var warned = false;
    // Screen readers hear the time left once at each threshold (5 and 1 minutes), in a live region
    // of its own; the countdown itself, updated every second, is not live. A threshold already
    // passed when the page opens was announced on an earlier page (or the time was short from the
    // start) and is not repeated.
    var notice = document.getElementById('time-notice');
    var thresholds = [5, 1];
    var announced = Math.max(0, deadline - (Date.now() + skew));
    var tick = function () {
      var left = Math.max(0, deadline - (Date.now() + skew));
      var minutes = Math.floor(left / 60000);
      var seconds = Math.floor((left % 60000) / 1000);
      value.textContent = minutes + ':' + (seconds < 10 ? '0' : '') + seconds;
      if (left <= 60000 && !warned) {
        warned = true;
        timer.classList.add('urgent');
      }
      thresholds.forEach(function (at) {
        if (notice && left > 0 && left <= at * 60000 && announced > at * 60000) notice.textContent = say('timeNotice', { minutes: at });
      });
      announced = left;
      if (left <= 0) {
        clearInterval(interval);
        // The server has completed the attempt with what was saved; show it.
        setTimeout(function () {
          location.replace('/portal/a/' + slug);
        }, 1500);
      }
    };
    var interval = setInterval(tick, 1000);
    tick();
  }

  // 3. Saving as you go.
  var form = document.getElementById('answer-form');
  var saveStatus = document.getElementById('save-status');
  if (form && slug) {
    var question = form.getAttribute('data-question');
    var type = form.getAttribute('data-type');
    var pending = null;
    var currentValue = function () {
      if (type === 'single-choice' || type === 'likert') {
        var checked = form.querySelector('input[name="value"]:checked');
        return checked ? Number(checked.value) : undefined;
      }
      if (type === 'multiple-choice') {
        return Array.prototype.map.call(form.querySelectorAll('input[name="value"]:checked'), function (el) {
          return Number(el.value);
        });
      }
      if (type === 'ranking') {
        return Array.prototype.map.call(form.querySelectorAll('input[name="value"]'), function (el) {
          return Number(el.value);
        });
      }
      if (type === 'coding') {
        return { language: form.querySelector('[name="language"]').value, source: form.querySelector('[name="value"]').value };
      }
      return form.querySelector('[name="value"]').value;
    };
    var practice = form.getAttribute('data-practice') === 'true';
    var save = function () {
      // The practice question's answer is never stored: it is only checked, by the form's button.
      if (practice) return;
      var value = currentValue();
      if (value === undefined) return;
      send('PUT', '/portal/api/a/' + slug + '/answers/' + encodeURIComponent(question), { value: value })
        .then(function (response) {
          if (response.status === 409) location.replace('/portal/a/' + slug);
          saveStatus.textContent = response.ok ? say('saved') : say('notSaved', { status: String(response.status) });
        })
        .catch(function () {
          saveStatus.textContent = say('offline');
        });
    };
    form.addEventListener('change', save);

    // A ranking: Move up / Move down move the option in place (moving its neighbour, so that the
    // focused button stays where focus is), say where it went, and save the new order.
    var list = form.querySelector('.ranking-list');
    var rankingStatus = form.querySelector('.ranking-status');
    if (list) {
      var refresh = function () {
        var items = list.querySelectorAll('.rank-item');
        Array.prototype.forEach.call(items, function (item, place) {
          var up = item.querySelector('[data-direction="up"]');
          var down = item.querySelector('[data-direction="down"]');
          if (place === 0) up.setAttribute('aria-disabled', 'true');
          else up.removeAttribute('aria-disabled');
          if (place === items.length - 1) down.setAttribute('aria-disabled', 'true');
          else down.removeAttribute('aria-disabled');
        });
        return items;
      };
      list.addEventListener('click', function (event) {
        var button = event.target.closest('.rank-move');
        if (!button) return;
        event.preventDefault();
        var item = button.closest('.rank-item');
        var text = item.querySelector('.rank-text').textContent;
        var up = button.getAttribute('data-direction') === 'up';
        var neighbour = up ? item.previousElementSibling : item.nextElementSibling;
        var items = list.querySelectorAll('.rank-item');
        if (!neighbour) {
          rankingStatus.textContent = say(up ? 'rankFirst' : 'rankLast', { text: text, total: items.length });
          return;
        }
        if (up) list.insertBefore(neighbour, item.nextElementSibling);
        else list.insertBefore(neighbour, item);
        items = refresh();
        var place = Array.prototype.indexOf.call(items, item) + 1;
        button.focus();
        rankingStatus.textContent = say('rankMoved', { text: text, place: place, total: items.length });
        save();
      });
    }
    form.addEventListener('input', function () {
      clearTimeout(pending);
      pending = setTimeout(save, 600);
    });

    // A coding question: Run the examples in the service's sandbox, and read out each result
    // (as text: the program's output is never markup).
    var run = form.querySelector('.run-examples');
    var runOutput = form.querySelector('.run-output');
    if (run && runOutput) {
      run.hidden = false;
      run.addEventListener('click', function () {
        run.disabled = true;
        runOutput.textContent = '…';
        send('POST', '/portal/api/a/' + slug + '/run/' + encodeURIComponent(question), { value: currentValue() })
          .then(function (response) {
            return response.json().then(function (body) {
              if (!response.ok) {
                runOutput.textContent = body.detail || say('notSaved', { status: String(response.status) });
                return;
              }
              runOutput.textContent = body.examples
                .map(function (example, index) {
                  var lines = [
                    index +
                      1 +
                      '. ' +
                      (example.passed ? run.getAttribute('data-passed') : run.getAttribute('data-failed')) +
                      (example.status === 'ok' ? '' : ' (' + example.status + ')'),
                  ];
                  if (example.actual !== undefined) lines.push('   ' + JSON.stringify(example.actual));
                  if (example.stdout) lines.push(example.stdout.replace(/^/gm, '   '));
                  if (example.error) lines.push(example.error.replace(/^/gm, '   '));
                  return lines.join('\n');
                })
                .join('\n');
            });
          })
          .catch(function () {
            runOutput.textContent = say('offline');
          })
          .then(function () {
            run.disabled = false;
          });
      });
    }
  }

  // The practice question's feedback: focus moves to it, so that it is read out first.
  var practiceFeedback = document.getElementById('practice-feedback');
  if (practiceFeedback) practiceFeedback.focus();

  // 4. Proctoring signals, recorded by the server with their time.
  if (slug && (page === 'question' || page === 'typing' || page === 'review')) {
    var signal = function (kind, detail, extra) {
      var body = { kind: kind, detail: detail || '' };
      if (extra)
        Object.keys(extra).forEach(function (name) {
          body[name] = extra[name];
        });
      send('POST', '/portal/api/a/' + slug + '/signals', body, true).catch(function () {});
    };
    // A browser driven by automation says so (the server also looks at the user agent).
    if (navigator.webdriver) signal('automation', 'navigator.webdriver');
    // How an answer of code or free text came to be: keystrokes and pastes on this page, against
    // how much the answer grew. Grown by many characters with few keystrokes and nothing pasted
    // (set by a script, dropped in) is reported once per page, with the numbers.
    var provenanceForm = document.getElementById('answer-form');
    var provenanceType = provenanceForm && provenanceForm.getAttribute('data-type');
    var watched = provenanceForm && (provenanceType === 'coding' || provenanceType === 'free-text') ? provenanceForm.querySelector('[name="value"]') : null;
    var provenanceQuestion = provenanceForm ? provenanceForm.getAttribute('data-question') : null;
    var keystrokes = 0;
    var pastedChars = 0;
    var startLength = watched ? watched.value.length : 0;
    var untypedReported = false;
    document.addEventListener('keydown', function () {
      keystrokes++;
    });
    if (watched) {
      watched.addEventListener('input', function () {
        var grown = watched.value.length - startLength - pastedChars;
        if (!untypedReported && grown >= 50 && grown > 5 * keystrokes) {
          untypedReported = true;
          signal('untyped-answer', '', { chars: grown, keystrokes: keystrokes, question: provenanceQuestion });
        }
      });
    }
    // Moving to the next question also hides this page; only hiding without leaving counts.
    var leaving = false;
    window.addEventListener('beforeunload', function () {
      leaving = true;
    });
    // Closing the tab is not leaving the test either: a browser may close a page without asking
    // beforeunload, but it always ends it with pagehide, before the page is reported hidden.
    window.addEventListener('pagehide', function () {
      leaving = true;
    });
    document.addEventListener('visibilitychange', function () {
      if (document.visibilityState === 'hidden' && !leaving) signal('page-hidden', '');
    });
    window.addEventListener('blur', function () {
      if (document.visibilityState === 'visible' && !leaving) signal('focus-lost', '');
    });
    document.addEventListener('paste', function (event) {
      var text = event.clipboardData ? event.clipboardData.getData('text') : '';
      pastedChars += text.length;
      var extra = { chars: text.length };
      if (provenanceQuestion) extra.question = provenanceQuestion;
      signal('paste', text.length + ' characters', extra);
    });
    document.addEventListener('copy', function () {
      signal('copy', String(document.getSelection() || '').length + ' characters');
    });
    document.addEventListener('fullscreenchange', function () {
      if (!document.fullscreenElement) signal('fullscreen-exit', '');
    });
  }

  // 5. The typing test: the server starts the clock, receives the text and the intervals
  //    between keystrokes, and computes the speed itself. Pasting is blocked (and recorded above).
  var typing = document.getElementById('typing');
  if (typing && slug) {
    var area = document.getElementById('typing-area');
    var start = document.getElementById('typing-start');
    var finish = document.getElementById('typing-finish');
    var typingStatus = document.getElementById('typing-status');
    var intervals = [];
    var last = 0;
    var begin = function () {
      area.disabled = false;
      finish.disabled = false;
      start.disabled = true;
      // Out of the way once used: on a phone the passage and the box need the room.
      start.hidden = true;
      area.focus();
      typingStatus.textContent = say('typingRunning');
      keepPassageInView();
    };
    // On a phone the on-screen keyboard takes half the screen: while the candidate types, the
    // passage stays in view above the box (the page is scrolled so that it sits just below the
    // sticky bar), and a long passage scrolls along with what has been typed.
    var passage = document.getElementById('passage');
    // (bar: the sticky attempt bar, found above.)
    var keepPassageInView = function () {
      if (!passage) return;
      var top = passage.getBoundingClientRect().top;
      var covered = bar ? bar.getBoundingClientRect().bottom : 0;
      if (top < covered || area.getBoundingClientRect().bottom > window.innerHeight) {
        window.scrollBy(0, top - covered - 8);
      }
    };
    var followPassage = function () {
      if (!passage || passage.scrollHeight <= passage.clientHeight) return;
      var done = Math.min(1, area.value.length / Math.max(1, passage.textContent.length));
      passage.scrollTop = Math.max(0, done * passage.scrollHeight - passage.clientHeight / 2);
    };
    area.addEventListener('focus', function () {
      setTimeout(keepPassageInView, 300);
    });
    area.addEventListener('input', followPassage);
    if (window.visualViewport) {
      window.visualViewport.addEventListener('resize', function () {
        if (document.activeElement === area) keepPassageInView();
      });
    }
    if (typing.getAttribute('data-running') === 'true') begin();
    start.addEventListener('click', function () {
      send('POST', '/portal/api/a/' + slug + '/typing/start', {}).then(function (response) {
        if (response.ok) begin();
        else typingStatus.textContent = say('typingCannotStart', { status: String(response.status) });
      });
    });
    area.addEventListener('paste', function (event) {
      event.preventDefault();
      typingStatus.textContent = say('noPaste');
    });
    area.addEventListener('keydown', function () {
      var now = performance.now();
      if (last) intervals.push(Math.round(now - last));
      last = now;
    });
    finish.addEventListener('click', function () {
      finish.disabled = true;
      send('POST', '/portal/api/a/' + slug + '/typing', { typed: area.value, intervals: intervals.slice(0, 20000) }).then(function (response) {
        if (response.ok) location.replace('/portal/a/' + slug + '?q=' + new URLSearchParams(location.search).get('q'));
        else {
          finish.disabled = false;
          typingStatus.textContent = say('notSaved', { status: String(response.status) });
        }
      });
    });
  }

  // 6. Webcam snapshots, only on the attempt's pages of a candidate who agreed (the server draws
  //    #webcam then, and allows the camera to those pages alone): a still frame drawn to a canvas,
  //    sent as a small JPEG when the server says the next is due, then every interval. The server
  //    keeps the schedule (data-next, by its clock, corrected by data-now for the difference), so
  //    moving to another page neither takes an extra one nor skips one. A camera refused or
  //    missing is reported once; the assessment goes on without.
  var webcam = document.getElementById('webcam');
  if (webcam && slug) {
    var webcamInterval = Number(webcam.getAttribute('data-interval')) * 1000;
    var firstDelay = Math.max(0, Date.parse(webcam.getAttribute('data-next')) - Date.parse(webcam.getAttribute('data-now')));
    var webcamReported = webcam.getAttribute('data-reported') === 'true';
    var cameraUnavailable = function (name) {
      webcam.textContent = say('webcamUnavailable');
      if (webcamReported) return;
      webcamReported = true;
      send('POST', '/portal/api/a/' + slug + '/webcam/unavailable', { detail: String(name || 'unknown').slice(0, 200) }).catch(function () {});
    };
    if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) cameraUnavailable('NoMediaDevices');
    else {
      navigator.mediaDevices.getUserMedia({ video: { width: { ideal: 320 }, height: { ideal: 240 } }, audio: false }).then(
        function (stream) {
          var video = document.createElement('video');
          video.muted = true;
          video.playsInline = true;
          video.srcObject = stream;
          var canvas = document.createElement('canvas');
          canvas.width = 320;
          canvas.height = 240;
          var pending = null;
          var stopped = false;
          var schedule = function (ms) {
            if (!stopped) pending = setTimeout(shoot, ms);
          };
          var stop = function () {
            stopped = true;
            clearTimeout(pending);
            stream.getTracks().forEach(function (track) {
              track.stop();
            });
          };
          var shoot = function () {
            // No frame yet (the camera is still starting): look again in a moment.
            if (video.readyState < 2 || !video.videoWidth) return schedule(500);
            canvas.getContext('2d').drawImage(video, 0, 0, canvas.width, canvas.height);
            canvas.toBlob(
              function (blob) {
                if (!blob) return schedule(webcamInterval);
                fetch('/portal/api/a/' + slug + '/webcam/snapshots', {
                  method: 'POST',
                  headers: { 'content-type': 'image/jpeg', 'x-csrf-token': csrf },
                  body: blob,
                  credentials: 'same-origin',
                })
                  .then(function (response) {
                    // Finished, or no longer agreed: no more snapshots from this page.
                    if (response.status === 409 || response.status === 403 || response.status === 401) stop();
                    else schedule(webcamInterval);
                  })
                  .catch(function () {
                    schedule(webcamInterval);
                  });
              },
              'image/jpeg',
              0.6,
            );
          };
          window.addEventListener('pagehide', stop);
          var played = video.play();
          if (played && played.then) played.then(null, function () {});
          schedule(firstDelay);
        },
        function (error) {
          cameraUnavailable(error && error.name);
        },
      );
    }
  }

  // 7. Submitting: a second click does nothing.
  var submit = document.getElementById('submit');
  if (submit) {
    submit.form.addEventListener('submit', function () {
      setTimeout(function () {
        submit.disabled = true;
      }, 0);
    });
  }
})();
