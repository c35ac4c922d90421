/*
 * The demo page's "Your devices": the logged-in user's sessions, one row per login (per browser), with
 * "Log out" for each other one and "Log out everywhere else". Every call goes through the page's
 * authkoa/client (`auth.sessions`), which sends the XSRF header itself. The list is read again after each action.
 */
window.demoDevices = function ($, auth, hooks) {
  'use strict';
  // hooks: loggedIn() → bool; say(text) in the page's result line; ended() when this browser's own session is found ended.

  function show(text) { $('#devices-message').text(text); }

  /** A failed call: the server's words; a 401 means this browser's session itself is gone (ended from elsewhere). */
  function failed(err) {
    show((err.status ? 'HTTP ' + err.status + ': ' : '') + err.message + (err.code ? ' (' + err.code + ')' : ''));
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
          hooks.say('Logged out ' + s.device + ' (' + s.provider + ').');
          render();
        }, failed);
      }));
    return $('<tr>').attr('data-sid', s.sid).toggleClass('current', s.current).append(
      $('<td class="device-name">').text(s.device),
      $('<td>').text(s.provider),
      $('<td class="when">').text(when(s.created)),
      $('<td class="when">').text(when(s.lastSeen)),
      last
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
      hooks.say('Logged out everywhere else.');
      render();
    }, failed);
  });

  return { render: render };
};
