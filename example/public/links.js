/*
 * The demo page's "Ways in": the identities linked to the logged-in account (the server's `accounts` option). Each
 * redirect provider has a Link button, which goes to its login with ?link=1 and comes back here; each linked identity
 * but the account's own has Unlink. Linking and unlinking need a login of the last 5 minutes. Every call goes through
 * the page's authkoa/client (`auth.links`).
 */
window.demoLinks = function ($, auth, hooks) {
  'use strict';
  // hooks: loggedIn() → bool; changed() after an action (an event to show, other sessions ended).
  var redirectKinds = ['dev', 'social', 'oauth2', 'oidc', 'apple', 'server'];
  var providers = []; // the redirect providers /auth/list names, which a Link button can start

  function show(text, failed) { $('#links-message').text(text).toggleClass('error', !!failed); }

  function failed(err) {
    show((err.status ? 'HTTP ' + err.status + ': ' : '') + err.message + (err.code ? ' (' + err.code + ')' : ''), true);
  }

  function item(l) {
    var li = $('<li>').attr('data-link', l.provider).append(
      $('<strong class="link-provider">').text(l.provider),
      $('<span class="link-meta">').text((l.name || '') + (l.primary ? ' (this account itself)' : ', linked ' +
        new Date(l.linked).toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'short' })))
    );
    if (!l.primary) {
      li.append($('<span>').append($('<button type="button" class="small link-remove">').text('Unlink').on('click', function () {
        show('');
        auth.links.unlink(l.provider).then(function () {
          show('Unlinked ' + l.provider + '.');
          hooks.changed();
          render();
        }, failed);
      })));
    }
    return li;
  }

  function render() {
    $('#links').prop('hidden', !hooks.loggedIn());
    if (!hooks.loggedIn()) { $('#link-list').empty(); show(''); return; }
    auth.links.list().then(function (links) {
      $('#link-list').empty().append(links.map(item));
      var linked = links.map(function (l) { return l.provider; });
      $('#link-start').empty().append(providers.filter(function (p) { return linked.indexOf(p) < 0; }).map(function (p) {
        // A navigation: the provider's page, then back here; a stale login is answered reauth_required there.
        return $('<a class="button" role="button">').text('Link ' + p).attr('data-link-start', p)
          .attr('href', auth.links.start(p, { from: location.pathname, navigate: false }));
      }));
    }, failed);
  }

  /** A provider /auth/list?details=1 named: the redirect ones can be linked from here. */
  function addProvider(p) {
    if (redirectKinds.indexOf(p.kind) >= 0) providers.push(p.name);
  }

  return { render: render, addProvider: addProvider };
};
