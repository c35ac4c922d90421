/* The demo page: every call goes through $.RestClient, built once from the tree of routes below. */
(function ($) {
  'use strict';

  // The JWT cookie is HttpOnly; XSRF-TOKEN is readable on purpose so this script can echo it in a header.
  function xsrf() {
    var m = document.cookie.match(/(?:^|; )XSRF-TOKEN=([^;]*)/);
    return m ? decodeURIComponent(m[1]) : '';
  }

  var client = new $.RestClient('/', {
    stripTrailingSlash: true,
    ajax: { beforeSend: function (xhr) { xhr.setRequestHeader('X-XSRF-TOKEN', xsrf()); } },
  });
  var auth = client.add('auth', { isSingle: true });
  auth.add('list', { isSingle: true });
  auth.add('user', { isSingle: true });
  auth.add('logout', { isSingle: true, ajax: { dataType: 'text' } });
  var api = client.add('api', { isSingle: true });
  ['private', 'admin', 'editors', 'events'].forEach(function (name) { api.add(name, { isSingle: true }); });

  /** A resource for /auth/<provider> with a login verb; the plugin builds /auth/<name>/login. */
  function providerResource(name, options) {
    var r = auth[name] || auth.add(name, $.extend({ isSingle: true }, options));
    if (!r.login) r.addVerb('login', 'GET');
    if (!r.loginPost) r.addVerb('loginPost', 'POST', { url: 'login', stringifyData: true });
    return r;
  }

  function show(el, text) { $(el).text(text); }
  function errorText(xhr) {
    var body = xhr.responseJSON;
    return 'HTTP ' + xhr.status + (body && body.error ? ': ' + body.error + ' (' + body.code + ')' : '');
  }
  /** A failed passkey call: a PasskeyError (server refusal, or status 0 in the browser) or the browser's own error. */
  function passkeyFailed(err) {
    events.render(); // a refused passkey login is a login_failed event
    if (err.name === 'NotAllowedError') return show('#result', 'Passkey prompt cancelled.');
    if (err.name === 'PasskeyError') return show('#result', (err.status ? 'HTTP ' + err.status + ': ' : '') + err.message + ' (' + err.code + ')');
    show('#result', err.name + ': ' + err.message);
  }

  var current = null; // the logged-in user
  // The two-step login part (/two-step.js): the section of a logged-in user, and the prompt after a first step.
  var twoStep = demoTwoStep($, {
    loggedIn: function () { return !!current; },
    passed: function () { refreshUser(); show('#result', 'Logged in with two steps.'); },
    say: function (text) { show('#result', text); },
    // A second factor added or removed ends the user's other sessions (endOtherSessionsOnFactorChange).
    changed: function () { devices.render(); events.render(); },
  });
  // "Your devices" (/devices.js): the user's sessions, and logging other ones out.
  var devices = demoDevices($, {
    loggedIn: function () { return !!current; },
    // Said after each action on the list: a device logged out is a session_revoked event to show.
    say: function (text) { show('#result', text); events.render(); },
    ended: function () { refreshUser(); },
  });
  // "Recent auth events" (/events.js): read again after everything the page does that the server may tell as an event.
  var events = demoEvents($, {
    loggedIn: function () { return !!current; },
    read: function () { return api.events.read(); },
  });
  var passkey = null; // the passkey provider's resources, once /auth/list names one

  /** Lists the user's passkeys, each with a Remove button; shown to a logged-in user when the demo has passkeys. */
  function renderPasskeys() {
    var on = !!(current && passkey);
    $('#passkeys').prop('hidden', !on);
    if (!on) return $('#passkey-list').empty();
    passkey.list.read().done(function (keys) {
      $('#passkey-list').empty().append(keys.length ? keys.map(function (k) {
        var remove = $('<button type="button">').text('Remove').on('click', function () {
          passkey.keys.destroy(k.id)
            .done(function () { show('#result', 'Passkey removed.'); renderPasskeys(); devices.render(); events.render(); })
            .fail(function (xhr) { show('#result', errorText(xhr)); });
        });
        var used = k.lastUsedAt ? 'last used ' + new Date(k.lastUsedAt).toLocaleString() : 'never used';
        return $('<li>').attr('data-passkey', k.id).append($('<code>').text(k.id.slice(0, 12) + '…'),
          ' ' + (k.backedUp ? 'synced' : 'this device') + ', added ' + new Date(k.createdAt).toLocaleString() + ', ' + used + ' ', remove);
      }) : $('<li class="none">').text('No passkeys yet.'));
    }).fail(function (xhr) { show('#result', errorText(xhr)); });
  }

  function renderUser(user) {
    current = user;
    renderPasskeys();
    twoStep.render();
    devices.render();
    events.render();
    if (!user) {
      show('#status', 'Not logged in.');
      $('#user').prop('hidden', true);
      return;
    }
    show('#status', 'Logged in as ' + user.name + '.');
    show('#user-name', user.name);
    show('#user-id', user.id);
    show('#user-role', user.role || '—');
    $('#avatar').attr('src', user.picture || '');
    $('#user').prop('hidden', false);
  }

  function refreshUser() {
    return auth.user.read().done(renderUser).fail(function () { renderUser(null); });
  }

  function addProvider(p) {
    var box = $('#providers');
    if (p.kind === 'direct') {
      var form = $($('#direct-form').html());
      form.find('legend').text(p.name + ' (demo / demo)');
      form.attr('data-provider', p.name);
      form.on('submit', function (e) {
        e.preventDefault();
        providerResource(p.name).loginPost({ user: form.find('[name=user]').val(), passwd: form.find('[name=passwd]').val() })
          // Emptied once it has done its work: a password left in the field waits for the next person at the screen.
          .done(function (body) {
            form[0].reset();
            if (body && body.mfa_required) return twoStep.ask(body);
            refreshUser(); show('#result', 'Logged in through ' + p.name + '.');
          })
          .fail(function (xhr) { show('#result', errorText(xhr)); events.render(); });
      });
      box.append(form);
    } else if (p.kind === 'verified') {
      var vform = $($('#verified-form').html());
      vform.find('legend').text(p.name + ' (the message lands in the outbox)');
      vform.on('submit', function (e) {
        e.preventDefault();
        providerResource(p.name).login({ user: vform.find('[name=user]').val(), address: vform.find('[name=address]').val(), from: '/' })
          .done(function () { vform[0].reset(); show('#result', 'Sent. Open the outbox: /outbox'); $('#result').append(' <a href="/outbox">outbox</a>'); })
          .fail(function (xhr) { show('#result', errorText(xhr)); });
      });
      box.append(vform);
    } else if (p.kind === 'telegram') {
      var tg = $('<button type="button">').text('Log in with ' + p.name);
      tg.on('click', function () {
        providerResource(p.name).login().done(function (r) {
          var link = 'https://t.me/' + encodeURIComponent(r.bot) + '?start=' + encodeURIComponent(r.token);
          $('#result').empty().append('Open ', $('<a target="_blank" rel="noopener">').attr('href', link).text(link), ' and press Start…');
          var poll = setInterval(function () {
            providerResource(p.name).login({ token: r.token }).done(function () { clearInterval(poll); refreshUser(); show('#result', 'Logged in through Telegram.'); });
          }, 2000);
        });
      });
      box.append(tg);
    } else if (p.kind === 'passkey') {
      // window.authkoaPasskey (/vendor/passkey.js) runs the browser prompt; list and removal go through the client.
      var base = '/auth/' + encodeURIComponent(p.name);
      passkey = { base: base, list: providerResource(p.name).add('list', { isSingle: true }), keys: auth.add(p.name + '-keys', { url: p.name }) };
      var pk = $('<button type="button">').text('Log in with a passkey').attr('data-provider', p.name);
      pk.on('click', function () {
        authkoaPasskey.loginWithPasskey({ base: base })
          .then(function (body) {
            if (body && body.mfa_required) return twoStep.ask(body);
            refreshUser(); show('#result', 'Logged in through ' + p.name + '.');
          }, passkeyFailed);
      });
      box.append(pk);
      renderPasskeys();
    } else {
      // OAuth2 kinds: the browser itself goes to the provider and comes back to `from`.
      var a = $('<a class="button" role="button">').text('Log in with ' + p.name)
        .attr('href', '/auth/' + encodeURIComponent(p.name) + '/login?from=' + encodeURIComponent(location.pathname));
      a.attr('data-provider', p.name);
      box.append(a);
    }
  }

  $('#logout').on('click', function () {
    auth.logout.read().always(function () { renderUser(null); show('#result', 'Logged out.'); });
  });
  $('#passkey-add').on('click', function () {
    authkoaPasskey.registerPasskey({ base: passkey.base })
      .then(function () { show('#result', 'Passkey added.'); renderPasskeys(); devices.render(); events.render(); }, passkeyFailed);
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

  auth.list.read({ details: 1 }).done(function (providers) { providers.forEach(addProvider); });
  auth.user.read().done(renderUser).fail(function () {
    renderUser(null);
    // A login whose second step is still pending (the page was reloaded in between): ask for it again.
    twoStep.resume();
  });
})(jQuery);
