/*
 * The demo page's "Tokens": the logged-in user's personal access tokens (the server's `tokens` option). Making one
 * shows its secret once, with a button that calls /api/private with it as a bearer (no cookie) to show it works;
 * each listed token has Revoke. Every call goes through the page's authkoa/client (`auth.tokens`).
 */
window.demoTokens = function ($, auth, hooks) {
  'use strict';
  // hooks: loggedIn() → bool; changed() after an action (a token event to show); stale() when a fresh login is due.

  function show(text, failed) { $('#tokens-message').text(text).toggleClass('error', !!failed); }

  function failed(err) {
    show((err.status ? 'HTTP ' + err.status + ': ' : '') + err.message + (err.code ? ' (' + err.code + ')' : ''), true);
    if (err.code === 'reauth_required') hooks.stale();
  }

  function when(iso) { return iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'short' }) : 'never'; }

  /** One token: its name, scopes, when made, last used and expiring, and Revoke. */
  function item(t) {
    var revoke = $('<button type="button" class="small token-revoke">').text('Revoke').on('click', function () {
      show('');
      auth.tokens.revoke(t.id).then(function () {
        show('Revoked "' + t.name + '".');
        if ($('#token-secret').data('id') === t.id) $('#token-new').prop('hidden', true);
        hooks.changed();
        render();
      }, failed);
    });
    return $('<li>').attr('data-token', t.id).append(
      $('<strong class="token-name">').text(t.name),
      $('<span class="token-meta">').text(
        (t.scopes.length ? 'scopes ' + t.scopes.join(', ') : 'no scopes') + ', made ' + when(t.created) +
        ', last used ' + when(t.lastUsed) + ', expires ' + when(t.expires)
      ),
      $('<span>').append(revoke)
    );
  }

  /** The user's tokens; the card is hidden when nobody is logged in. */
  function render() {
    $('#tokens').prop('hidden', !hooks.loggedIn());
    if (!hooks.loggedIn()) {
      $('#token-list').empty();
      $('#token-new').prop('hidden', true);
      show('');
      return;
    }
    auth.tokens.list().then(function (tokens) {
      $('#token-list').empty().append(tokens.length ? tokens.map(item) : $('<li class="none">').text('No tokens yet.'));
    }, failed);
  }

  $('#token-form').on('submit', function (e) {
    e.preventDefault();
    show('');
    var name = String($('#token-name').val() || '').trim() || 'demo token';
    auth.tokens.create({ name: name, expiresIn: $('#token-expiry').val() }).then(function (made) {
      // The secret is in this answer only: shown here, never again.
      $('#token-secret').text(made.token).data('id', made.id).data('token', made.token);
      $('#token-try-result').text('');
      $('#token-new').prop('hidden', false);
      $('#token-name').val('');
      hooks.changed();
      render();
    }, failed);
  });

  // A script's call: the token as a bearer, and no cookie, so the answer is the token's doing alone.
  $('#token-try').on('click', function () {
    fetch('/api/private', { credentials: 'omit', headers: { authorization: 'Bearer ' + $('#token-secret').data('token') } })
      .then(function (res) { return res.json().then(function (body) { return [res.status, body]; }); })
      .then(function (answer) {
        $('#token-try-result').text('HTTP ' + answer[0] + ': ' + JSON.stringify(answer[1], null, 2));
        render(); // its last use
      }, function (err) { $('#token-try-result').text(String(err)); });
  });

  return { render: render };
};
