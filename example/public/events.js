/*
 * The demo page's "Recent auth events": what auth.on() heard lately, as /api/events answers it for the
 * logged-in user (their own events, and the refused logins and lock-outs), newest first. The page reads
 * it again after each login, logout and action, so the event an action caused shows up under it.
 * Every value is put in with .text(): a refused login carries the user name as typed, by anyone.
 */
window.demoEvents = function ($, hooks) {
  'use strict';
  // hooks: loggedIn() → bool; read() → the jQuery request for /api/events (the page's REST client, XSRF header included).

  function show(text) { $('#events-message').text(text); }

  function when(ms) { return new Date(ms).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' }); }

  /** The fields that tell one event from another, by type; never the user agent (long, and in every login). */
  function details(e) {
    var sid = e.sid ? 'session ' + e.sid.slice(0, 8) + '…' : '';
    switch (e.type) {
      case 'login': return (e.amr || []).join('+') + ' from ' + e.ip + (sid ? ', ' + sid : '');
      case 'login_failed': return e.reason + ' (HTTP ' + e.status + ')' + (e.userName !== undefined ? ' for "' + e.userName + '"' : '') + ' from ' + e.ip;
      case 'lockout': return e.key + ' until ' + when(e.until);
      case 'session_revoked': return e.sid ? sid : 'all sessions' + (e.keptSid ? ' but ' + e.keptSid.slice(0, 8) + '…' : '');
      case 'mfa_changed': return e.change;
      case 'mfa_failed': return e.reason + ' from ' + e.ip;
      default: return sid;
    }
  }

  function row(e) {
    // data-label: the column's name, shown beside each value when a narrow screen stacks the row (style.css).
    return $('<tr>').attr('data-type', e.type).append(
      $('<td class="event-type" data-label="Event">').append($('<code>').text(e.type)),
      $('<td class="when" data-label="Time">').attr('title', new Date(e.time).toISOString()).text(when(e.time)),
      $('<td class="event-provider" data-label="Provider">').text(e.provider || (e.type === 'lockout' ? e.scope : '—')),
      $('<td class="event-details" data-label="Details">').text(details(e))
    );
  }

  /** Hidden and emptied when nobody is logged in: the list belongs to a user. */
  function render() {
    $('#events').prop('hidden', !hooks.loggedIn());
    if (!hooks.loggedIn()) {
      $('#event-list').empty();
      show('');
      return;
    }
    hooks.read().done(function (events) {
      show('');
      $('#event-list').empty().append(events.length ? events.map(row) : $('<tr>').append($('<td colspan="4" class="none">').text('No events yet.')));
    }).fail(function (xhr) { show('HTTP ' + xhr.status + (xhr.responseJSON && xhr.responseJSON.code ? ' (' + xhr.responseJSON.code + ')' : '')); });
  }

  $('#events-refresh').on('click', render);

  return { render: render };
};
