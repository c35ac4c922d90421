/*
 * The demo page's "Your devices": the logged-in user's sessions, one row per login (per browser), with
 * "Log out" for each other one and "Log out everywhere else". Every call goes through the page's
 * authkoa/client (`auth.sessions`), which sends the XSRF header itself. The list is read again after each action.
 */
window.demoDevices = function ($, auth, hooks) {
  'use strict';
  // hooks: loggedIn() → bool; changed() after an action on the list; ended() when this browser's own session is found ended.

  /** A message beside the list's buttons; `failed` marks a refusal. */
  function show(text, failed) { $('#devices-message').text(text).toggleClass('error', !!failed); }

  /** A failed call: the server's words; a 401 means this browser's session itself is gone (ended from elsewhere). */
  function failed(err) {
    show((err.status ? 'HTTP ' + err.status + ': ' : '') + err.message + (err.code ? ' (' + err.code + ')' : ''), true);
    if (err.status === 401) hooks.ended();
  }

  function when(iso) { return new Date(iso).toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'short' }); }

  /** One table row: device, provider, created, last seen, and "This device" or a Log out button. */
  function row(s) {
    var last = s.current
      ? $('<td>').append($('<strong class="this-device">').text('This device'))
      : $('<td>').append($('<button type="button" class="device-logout">').text('Log out').on('click', function () {
        show('');
        auth.sessions.end(s.sid).then(function () {
          show('Logged out ' + s.device + ' (' + s.provider + ').');
          hooks.changed();
          render();
        }, failed);
      }));
    // data-label: the column's name, shown beside each value when a narrow screen stacks the row (style.css).
    return $('<tr>').attr('data-sid', s.sid).toggleClass('current', s.current).append(
      $('<td class="device-name" data-label="Device">').text(s.device),
      $('<td data-label="Provider">').text(s.provider),
      $('<td class="when" data-label="Logged in">').text(when(s.created)),
      $('<td class="when" data-label="Last seen">').text(when(s.lastSeen)),
      last.addClass('action')
    );
  }

  /** The user's sessions, newest first; hidden when nobody is logged in. */
  function render() {
    $('#devices').prop('hidden', !hooks.loggedIn());
    if (!hooks.loggedIn()) {
      $('#device-list').empty();
      show('');
      return;
    }
    auth.sessions.list().then(function (sessions) {
      $('#device-list').empty().append(sessions.map(row));
      var others = sessions.filter(function (s) { return !s.current; }).length;
      $('#devices-end-others').prop('disabled', others === 0);
      $('#devices-count').text(sessions.length === 1 ? 'Logged in on this device only.' : 'Logged in on ' + sessions.length + ' devices.');
    }, failed);
  }

  $('#devices-refresh').on('click', function () { show(''); render(); });
  $('#devices-end-others').on('click', function () {
    show('');
    auth.sessions.endOthers().then(function () {
      show('Logged out everywhere else.');
      hooks.changed();
      render();
    }, failed);
  });

  return { render: render };
};
