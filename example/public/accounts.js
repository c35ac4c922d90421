/*
 * The demo page's accounts (a `password` provider over the `accounts` option): "Log in with a password",
 * "Create an account" and "Forgot password". Each call goes through the page's authkoa/client: the login
 * is `auth.login(provider, { user: <address>, passwd })`, the rest `auth.accounts.*`. The mailed links
 * (confirm the address, choose a new password) land in the outbox and open authkoa's own pages.
 */
window.demoAccounts = function ($, auth, hooks) {
  'use strict';
  // hooks: loggedIn(result, name) once a login resolved (the session, or a second step to ask); failed(where)
  // for a refusal the page says as it says the others.
  var provider = null;

  function show(text, failed) { $('#accounts-message').text(text).toggleClass('error', !!failed); }
  /** A sentence with a link to the outbox, where the message just sent is. */
  function toOutbox(text) {
    show(text + ' ');
    $('#accounts-message').append($('<a href="/outbox">').text('Open the outbox'));
  }
  function field(form, name) { return $(form).find('[name=' + name + ']').val(); }

  $('#password-login').on('submit', function (e) {
    e.preventDefault();
    var form = this;
    show('');
    auth.login(provider, { user: field(form, 'user'), passwd: field(form, 'passwd') }).then(function (result) {
      form.reset();
      hooks.loggedIn(result, provider);
    }, function (err) {
      // The right password for an address never confirmed: the server sent a new link.
      if (err.code === 'email_not_confirmed') return toOutbox('Confirm your address first: a new link is on its way.');
      hooks.failed('#accounts-message')(err);
    });
  });
  $('#signup').on('submit', function (e) {
    e.preventDefault();
    var form = this;
    var name = field(form, 'name');
    var input = { email: field(form, 'email'), password: field(form, 'password') };
    if (name) input.name = name;
    show('');
    auth.accounts.signup(input, { provider: provider }).then(function () {
      form.reset();
      // The same answer whether or not the address had an account: only the message differs.
      toOutbox('Check your email: the link to confirm the address is on its way.');
    }, hooks.failed('#accounts-message'));
  });
  $('#reset').on('submit', function (e) {
    e.preventDefault();
    var form = this;
    show('');
    auth.accounts.reset(field(form, 'email'), { provider: provider }).then(function () {
      form.reset();
      toOutbox('If the address has an account, a link to choose a new password is on its way.');
    }, hooks.failed('#accounts-message'));
  });

  return {
    /** The password provider `name` (from /auth/list): its forms are shown. */
    add: function (name) {
      provider = name;
      $('#accounts').prop('hidden', false);
    },
  };
};
