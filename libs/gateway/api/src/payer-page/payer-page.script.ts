/**
 * The page's only script, inlined under the response's CSP nonce. Everything works without it
 * (the button is a plain form post, links reload); it only adds what a static page cannot do:
 *
 * - the countdown ticks. It counts down from the seconds the server computed
 *   (`data-remaining-seconds`), not from `expires_at`, so a wrong clock on the phone cannot
 *   show a wrong deadline;
 * - while the order is unfinished, the page asks `data-status-url` every few seconds and
 *   reloads when the status differs from the one it shows (e.g. the agent confirmed);
 * - the "I have paid" and "Show payment details" buttons are disabled once pressed, against double taps;
 * - "Copy" buttons appear where the clipboard API exists.
 *
 * It is a fixed string with no values spliced in: all data reaches it through escaped
 * data-* attributes, so no order field can ever become code.
 */
export const PAYER_PAGE_SCRIPT = `
(function () {
  'use strict';
  var POLL_INTERVAL_MS = 3000;
  var page = document.querySelector('main[data-status]');
  if (!page) return;

  function pad(value) { return value < 10 ? '0' + value : String(value); }
  function formatRemaining(totalSeconds) {
    var seconds = Math.max(0, Math.floor(totalSeconds));
    var hours = Math.floor(seconds / 3600);
    var minutes = Math.floor((seconds % 3600) / 60);
    var rest = pad(seconds % 60);
    return hours > 0 ? hours + ':' + pad(minutes) + ':' + rest : pad(minutes) + ':' + rest;
  }

  var countdown = document.querySelector('[data-remaining-seconds]');
  if (countdown) {
    var deadline = Date.now() + Number(countdown.getAttribute('data-remaining-seconds')) * 1000;
    var tick = function () {
      var left = (deadline - Date.now()) / 1000;
      countdown.textContent = formatRemaining(left);
      if (left > 0) setTimeout(tick, 1000 - (Date.now() % 1000));
    };
    tick();
  }

  var statusUrl = page.getAttribute('data-status-url');
  if (statusUrl) {
    var shown = page.getAttribute('data-status') + '/' + page.getAttribute('data-sub-status');
    var poll = function () {
      fetch(statusUrl, { cache: 'no-store', headers: { accept: 'application/json' } })
        .then(function (response) { return response.ok ? response.json() : null; })
        .then(function (current) {
          if (current && current.status + '/' + (current.sub_status || '') !== shown) window.location.reload();
          else setTimeout(poll, POLL_INTERVAL_MS);
        })
        .catch(function () { setTimeout(poll, POLL_INTERVAL_MS); });
    };
    setTimeout(poll, POLL_INTERVAL_MS);
  }

  Array.prototype.forEach.call(document.querySelectorAll('form[data-paid-form], form[data-details-form]'), function (form) {
    form.addEventListener('submit', function () {
      var button = form.querySelector('button');
      // Disabled after the submit has started, so this very submit still goes out.
      setTimeout(function () { button.disabled = true; button.textContent = 'Sending…'; }, 0);
    });
  });

  if (navigator.clipboard) {
    Array.prototype.forEach.call(document.querySelectorAll('button[data-copy]'), function (button) {
      button.hidden = false;
      button.addEventListener('click', function () {
        navigator.clipboard.writeText(button.getAttribute('data-copy')).then(function () {
          button.textContent = 'Copied';
          setTimeout(function () { button.textContent = 'Copy'; }, 2000);
        });
      });
    });
  }
})();
`;
