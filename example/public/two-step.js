/*
 * The demo page's two-step login: the "Two-step login" section of a logged-in user (turn the app on with
 * its QR code, the recovery codes shown once, new codes, turn it off) and the "Second step" prompt after
 * a login resolved `mfa_required`. Every call goes through the page's authkoa/client (`auth.mfa`), which
 * sends the XSRF header itself.
 */
window.demoTwoStep = function ($, auth, hooks) {
  'use strict';
  // hooks: loggedIn() → bool; passed() once a second step finished the login; say(text) beside the login forms;
  // changed() once the user's factors changed (their other sessions end then).
  /** A message in `el`; `bad` marks a refusal (red). */
  function show(el, text, bad) { $(el).text(text).toggleClass('error', !!bad); }

  /** A failed call shown in `where`: the server's error (an AuthClientError), or the browser's own (passkey prompt). */
  function failed(where) {
    return function (err) {
      if (err.name === 'NotAllowedError') return show(where, 'Passkey prompt cancelled.', true);
      show(where, (err.status ? 'HTTP ' + err.status + ': ' : '') + err.message + (err.code ? ' (' + err.code + ')' : ''), true);
    };
  }

  /** The logged-in user's second factors: on or off, recovery codes left, and the buttons that fit. */
  function render() {
    $('#two-step').prop('hidden', !hooks.loggedIn());
    $('#mfa-setup, #mfa-codes, #mfa-off-confirm').prop('hidden', true);
    show('#mfa-message', '');
    if (!hooks.loggedIn()) return;
    auth.mfa.status().then(function (status) {
      var s = status.summary || { totp: false, recoveryCodesLeft: 0 };
      show('#mfa-status', s.totp
        ? 'On: after each login, a code from your authenticator app is asked. Recovery codes left: ' + s.recoveryCodesLeft + '.'
        : 'Off: a password (or any other login) is enough.');
      $('#mfa-on').prop('hidden', s.totp);
      $('#mfa-off, #mfa-new-codes').prop('hidden', !s.totp);
    }, failed('#mfa-message'));
  }

  /** Recovery codes, shown once, until "I have saved them". */
  function codeList(codes) {
    $('#mfa-code-list').empty().append(codes.map(function (c) { return $('<li>').text(c); }));
    $('#mfa-setup').prop('hidden', true);
    $('#mfa-codes').prop('hidden', false);
    $('#mfa-codes-done').trigger('focus');
  }

  function bindSettings() {
    $('#mfa-on').on('click', function () {
      show('#mfa-message', '');
      auth.mfa.setupTotp().then(function (s) {
        $('#mfa-qr').attr('src', s.qr);
        show('#mfa-secret', s.secret);
        show('#mfa-status', 'Setting up: not on until the app\'s code is entered.');
        $('#mfa-on').prop('hidden', true);
        $('#mfa-setup').prop('hidden', false);
        $('#mfa-confirm [name=code]').trigger('focus');
      }, failed('#mfa-message'));
    });
    $('#mfa-confirm').on('submit', function (e) {
      e.preventDefault();
      var form = this;
      show('#mfa-message', '');
      auth.mfa.confirmTotp($(form).find('[name=code]').val()).then(function (r) {
        form.reset();
        show('#mfa-status', 'On: after each login, a code from your authenticator app is asked.');
        codeList(r.recoveryCodes);
        hooks.changed();
      }, failed('#mfa-message'));
    });
    $('#mfa-new-codes').on('click', function () {
      show('#mfa-message', '');
      auth.mfa.newRecoveryCodes().then(codeList, failed('#mfa-message'));
    });
    $('#mfa-codes-done').on('click', render);
    // Turning it off takes a second, deliberate press: one tap on a phone must not leave a password alone in charge.
    $('#mfa-off').on('click', function () {
      show('#mfa-message', '');
      $('#mfa-off, #mfa-new-codes').prop('hidden', true);
      $('#mfa-off-confirm').prop('hidden', false);
      $('#mfa-off-no').trigger('focus');
    });
    $('#mfa-off-no').on('click', function () { render(); });
    $('#mfa-off-yes').on('click', function () {
      auth.mfa.disableTotp().then(function () {
        render();
        hooks.changed();
        show('#mfa-message', 'Two-step login turned off.');
      }, failed('#mfa-message'));
    });
  }

  /** A login resolved `mfa_required` with its `factors`: ask for what the user may answer with. */
  function ask(pending) {
    var f = pending.factors || [];
    $('#mfa-verify').prop('hidden', f.indexOf('totp') < 0);
    $('#mfa-recovery-box').prop('hidden', f.indexOf('recovery') < 0).prop('open', false);
    $('#mfa-passkey').prop('hidden', f.indexOf('passkey') < 0);
    show('#second-step-message', '');
    $('#second-step').prop('hidden', false);
    hooks.say('First step passed: the second step is asked above.');
    // On a phone the prompt may be a screen away from the form just used: brought into view.
    $('#second-step')[0].scrollIntoView({ block: 'start' });
    $('#mfa-verify [name=code]').trigger('focus');
  }

  function bindPrompt() {
    function passed() {
      $('#second-step').prop('hidden', true);
      $('#mfa-verify, #mfa-recovery').each(function () { this.reset(); });
      hooks.passed();
    }
    $('#mfa-verify').on('submit', function (e) {
      e.preventDefault();
      auth.mfa.verify({ code: $(this).find('[name=code]').val() }).then(passed, failed('#second-step-message'));
    });
    $('#mfa-recovery').on('submit', function (e) {
      e.preventDefault();
      auth.mfa.verify({ recoveryCode: $(this).find('[name=recoveryCode]').val() }).then(passed, failed('#second-step-message'));
    });
    $('#mfa-passkey').on('click', function () {
      auth.mfa.verifyWithPasskey().then(passed, failed('#second-step-message'));
    });
  }

  bindSettings();
  bindPrompt();
  return {
    render: render,
    ask: ask,
    /** Nobody logged in: a login whose second step is still pending (the page was reloaded in between) is asked again. */
    resume: function () {
      auth.mfa.status().then(function (s) { if (s.state === 'mfa_required' && !s.enrollRequired) ask(s); }, function () {});
    },
  };
};
