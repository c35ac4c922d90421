/*
 * The demo page. Its auth calls (providers, the user, logins, logout, passkeys) go through authkoa/client
 * (window.authkoaClient, /vendor/authkoa-client.js), which sends the XSRF header itself and rejects with
 * an AuthClientError carrying the server's code; the calls to the app's own protected routes go through
 * $.RestClient, built once from the tree of routes below.
 */
(function ($) {
  'use strict';

  // The JWT cookie is HttpOnly; XSRF-TOKEN is readable on purpose so this script can echo it in a header.
  function xsrf() {
    var m = document.cookie.match(/(?:^|; )XSRF-TOKEN=([^;]*)/);
    return m ? decodeURIComponent(m[1]) : '';
  }

  // The app's own API (/api/…): $.RestClient, echoing the XSRF token itself.
  var client = new $.RestClient('/', {
    stripTrailingSlash: true,
    ajax: { beforeSend: function (xhr) { xhr.setRequestHeader('X-XSRF-TOKEN', xsrf()); } },
  });
  var api = client.add('api', { isSingle: true });
  ['private', 'admin', 'editors', 'events'].forEach(function (name) { api.add(name, { isSingle: true }); });

  // authkoa's routes (/auth/…): the page's origin is the app's, so the client needs no options.
  var auth = authkoaClient.createAuthClient();

  /** A message next to the control that caused it; `failed` marks it as a refusal (red). */
  function show(el, text, failed) { $(el).text(text).toggleClass('error', !!failed); }
  function errorText(xhr) {
    var body = xhr.responseJSON;
    return 'HTTP ' + xhr.status + (body && body.error ? ': ' + body.error + ' (' + body.code + ')' : '');
  }
  /**
   * A failed call, shown in `where` (beside the control that made it): an AuthClientError (the server's refusal,
   * or status 0 for one in the browser) or the browser's own error (the passkey prompt). A session ended from
   * another device is said at the top, where the user was shown.
   */
  function authFailed(where) {
    return function (err) {
      events.render(); // a refused login is a login_failed event
      if (err.code === 'session_revoked') return renderUser(null, err);
      if (err.name === 'NotAllowedError') return show(where, 'Passkey prompt cancelled.', true);
      if (err.name === 'AuthClientError') return show(where, (err.status ? 'HTTP ' + err.status + ': ' : '') + err.message + ' (' + err.code + ')', true);
      show(where, err.name + ': ' + err.message, true);
    };
  }
  /** What a login resolved to: a second step to ask, or the session (said at the top, where the user appears). */
  function loggedIn(name) {
    return function (result) {
      if (result.state === 'mfa_required') return twoStep.ask(result);
      show('#login-message', '');
      refreshUser().then(function () { show('#session-message', 'Logged in through ' + name + '.'); });
    };
  }

  var current = null; // the logged-in user
  // The two-step login part (/two-step.js): the section of a logged-in user, and the prompt after a first step.
  var twoStep = demoTwoStep($, auth, {
    loggedIn: function () { return !!current; },
    passed: function () { refreshUser().then(function () { show('#session-message', 'Logged in with two steps.'); }); },
    // The prompt after a first step sits above the login forms: said beside the form that was used.
    say: function (text) { show('#login-message', text); },
    // A second factor added or removed ends the user's other sessions (endOtherSessionsOnFactorChange).
    changed: function () { devices.render(); events.render(); },
  });
  // "Your devices" (/devices.js): the user's sessions, and logging other ones out.
  var devices = demoDevices($, auth, {
    loggedIn: function () { return !!current; },
    // After each action on the list: a device logged out is a session_revoked event to show.
    changed: function () { events.render(); },
    ended: function () { refreshUser(); },
  });
  // "Tokens" (/tokens.js): the user's personal access tokens; making one needs a fresh login.
  var tokens = demoTokens($, auth, {
    loggedIn: function () { return !!current; },
    changed: function () { events.render(); },
    stale: function () { show('#tokens-message', 'Making a token needs a login of the last 5 minutes: log out and in again.', true); },
  });
  // "Ways in" (/links.js): the identities linked to the account; linking one goes through its provider's page.
  var links = demoLinks($, auth, {
    loggedIn: function () { return !!current; },
    changed: function () { devices.render(); events.render(); },
  });
  // "Recent auth events" (/events.js): read again after everything the page does that the server may tell as an event.
  var events = demoEvents($, {
    loggedIn: function () { return !!current; },
    read: function () { return api.events.read(); },
  });
  // "Accounts" (/accounts.js): password login, sign-up and reset, for a password provider /auth/list names.
  var accounts = demoAccounts($, auth, {
    loggedIn: function (result, name) { loggedIn(name)(result); },
    failed: authFailed,
    // A new password ends the account's other sessions; a deletion all of them, this one's cookies included.
    changed: function () { devices.render(); events.render(); },
    deleted: function () { renderUser(null); show('#session-message', 'Account deleted.'); },
  });
  var passkey = null; // the passkey provider's name, once /auth/list names one

  function when(iso) { return new Date(iso).toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'short' }); }

  /**
   * One passkey: the browser it was added from (the server keeps it from that request, so a laptop's passkey
   * reads the same on a phone), synced or kept by that one authenticator, when added and last used, its id
   * cut short (the whole id on hover), and Remove.
   */
  function passkeyItem(k) {
    var remove = $('<button type="button" class="small">').text('Remove').on('click', function () {
      auth.passkeys.remove(k.id, { provider: passkey }).then(function () {
        show('#passkeys-message', 'Passkey removed.');
        renderPasskeys(); devices.render(); events.render();
      }, authFailed('#passkeys-message'));
    });
    var used = k.lastUsedAt ? 'last used ' + when(k.lastUsedAt) : 'never used';
    var kept = k.backedUp ? 'synced' : 'kept on that authenticator only';
    return $('<li>').attr('data-passkey', k.id).append(
      $('<strong class="passkey-device">').text('Added on ' + k.device),
      $('<span class="passkey-meta">').text(kept + ', added ' + when(k.createdAt) + ', ' + used),
      $('<span class="passkey-id">').append($('<code class="long-id">').attr('title', k.id).text(k.id), ' ', remove)
    );
  }

  /** Lists the user's passkeys, each with a Remove button; shown to a logged-in user when the demo has passkeys. */
  function renderPasskeys() {
    var on = !!(current && passkey);
    $('#passkeys').prop('hidden', !on);
    if (!on) { show('#passkeys-message', ''); return $('#passkey-list').empty(); }
    auth.passkeys.list({ provider: passkey }).then(function (keys) {
      $('#passkey-list').empty().append(keys.length ? keys.map(passkeyItem) : $('<li class="none">').text('No passkeys yet.'));
    }, authFailed('#passkeys-message'));
  }

  /**
   * The page for `user`, or for nobody: the login forms only then. `why` is the refusal that found nobody: a
   * session ended from another device (`session_revoked`, which the server keeps telling this browser) says so.
   */
  function renderUser(user, why) {
    current = user;
    accounts.render(user);
    renderPasskeys();
    twoStep.render();
    devices.render();
    tokens.render();
    links.render();
    events.render();
    $('#login').prop('hidden', !!user);
    $('#user, #session-actions').prop('hidden', !user);
    show('#session-message', '');
    if (!user) {
      var ended = !!why && why.code === 'session_revoked';
      show('#status', ended ? 'This session was ended from another device. Log in again to go on.' : 'Not logged in.');
      $('#status').toggleClass('error', ended);
      return;
    }
    $('#status').removeClass('error');
    show('#status', 'Logged in as ' + user.name + '.');
    show('#user-name', user.name);
    // Shown on one line, cut short with an ellipsis; the whole id on hover, in a copy, and with Copy.
    $('#user-id').text(user.id).attr('title', user.id);
    show('#user-role', user.role || '—');
    $('#avatar').attr('src', user.picture || '');
  }

  function refreshUser() {
    return auth.user().then(function (user) { renderUser(user); }, function (err) { renderUser(null, err); });
  }

  function addProvider(p) {
    var box = $('#providers');
    if (p.kind === 'direct') {
      var form = $($('#direct-form').html());
      form.find('legend').text(p.name + ' (demo / demo)');
      form.attr('data-provider', p.name);
      form.on('submit', function (e) {
        e.preventDefault();
        show('#login-message', '');
        auth.login(p.name, { user: form.find('[name=user]').val(), passwd: form.find('[name=passwd]').val() })
          // Emptied once it has done its work: a password left in the field waits for the next person at the screen.
          .then(function (result) { form[0].reset(); loggedIn(p.name)(result); }, authFailed('#login-message'));
      });
      box.append(form);
    } else if (p.kind === 'verified') {
      var vform = $($('#verified-form').html());
      vform.find('legend').text(p.name + ' (the message lands in the outbox)');
      vform.on('submit', function (e) {
        e.preventDefault();
        // Step 1 resolves `pending`: the link is sent; opening it is step 2.
        auth.login(p.name, { user: vform.find('[name=user]').val(), address: vform.find('[name=address]').val(), from: '/' })
          .then(function () { vform[0].reset(); show('#login-message', 'Sent. Open the outbox: /outbox'); $('#login-message').append(' <a href="/outbox">outbox</a>'); }, authFailed('#login-message'));
      });
      box.append(vform);
    } else if (p.kind === 'password') {
      // Its forms have their own place under the provider buttons (index.html, #accounts).
      accounts.add(p.name);
    } else if (p.kind === 'telegram') {
      var tg = $('<button type="button">').text('Log in with ' + p.name);
      tg.on('click', function () {
        auth.login(p.name).then(function (opened) {
          var r = opened.answer; // `pending`: { bot, token }
          var link = 'https://t.me/' + encodeURIComponent(r.bot) + '?start=' + encodeURIComponent(r.token);
          $('#login-message').empty().removeClass('error').append('Open ', $('<a target="_blank" rel="noopener">').attr('href', link).text(link), ' and press Start…');
          // request_not_verified until Start was pressed; then the session (or a second step).
          var poll = setInterval(function () {
            auth.login(p.name, { token: r.token }).then(function (result) { clearInterval(poll); loggedIn('Telegram')(result); }, function () {});
          }, 2000);
        }, authFailed('#login-message'));
      });
      box.append(tg);
    } else if (p.kind === 'passkey') {
      // The client runs the browser's prompt between the options and the answer.
      passkey = p.name;
      var pk = $('<button type="button">').text('Log in with a passkey').attr('data-provider', p.name);
      pk.on('click', function () {
        show('#login-message', '');
        auth.passkeys.login({ provider: p.name }).then(loggedIn(p.name), authFailed('#login-message'));
      });
      box.append(pk);
      renderPasskeys();
    } else {
      // OAuth2 kinds: the browser itself goes to the provider and comes back to `from`.
      var a = $('<a class="button" role="button">').text('Log in with ' + p.name)
        .attr('href', auth.loginRedirect(p.name, { from: location.pathname, navigate: false }));
      a.attr('data-provider', p.name);
      box.append(a);
    }
  }

  $('#logout').on('click', function () {
    auth.logout().then(function () { renderUser(null); show('#session-message', 'Logged out.'); }, authFailed('#session-message'));
  });
  $('#user-id-copy').on('click', function () {
    var id = $('#user-id').text();
    // The clipboard needs a secure context (localhost is one); elsewhere the id is selected for a manual copy.
    var copied = navigator.clipboard ? navigator.clipboard.writeText(id) : Promise.reject(new Error('no clipboard'));
    copied.then(function () { show('#session-message', 'Id copied.'); }, function () {
      window.getSelection().selectAllChildren($('#user-id')[0]);
      show('#session-message', 'Id selected: copy it with your browser.');
    });
  });
  $('#passkey-add').on('click', function () {
    show('#passkeys-message', '');
    auth.passkeys.register({ provider: passkey }).then(function () {
      show('#passkeys-message', 'Passkey added.');
      renderPasskeys(); devices.render(); events.render();
    }, authFailed('#passkeys-message'));
  });
  $('[data-call]').on('click', function () {
    var name = $(this).attr('data-call');
    api[name].read()
      .done(function (body) { show('#result', JSON.stringify(body, null, 2)); events.render(); })
      .fail(function (xhr) {
        show('#result', errorText(xhr));
        // 401: this browser's session is over (logged out, or ended from another device): show it.
        if (xhr.status === 401 && current) refreshUser();
      });
  });

  auth.providers({ details: true }).then(function (providers) {
    providers.forEach(addProvider);
    providers.forEach(links.addProvider);
    links.render();
  }, authFailed('#login-message'));
  // The demo's optional features that are off (/features: a package not installed, passkeys on an IP
  // address), said under the logins, so a missing button is explained rather than just absent.
  $.getJSON('/features').then(function (body) {
    body.features.forEach(function (f) {
      if (f.available) return;
      $('#login').append($('<p class="unavailable">').attr('data-feature', f.name).text(f.what + ': off, ' + f.reason + '.'));
    });
  });
  auth.user().then(function (user) { renderUser(user); }, function (err) {
    renderUser(null, err);
    // A login whose second step is still pending (the page was reloaded in between): ask for it again.
    twoStep.resume();
  });
})(jQuery);
