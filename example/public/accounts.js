/*
 * The demo page's accounts (a `password` provider over the `accounts` option): "Log in with a password",
 * "Create an account" and "Forgot password" for nobody, and "Your account" (a new password, a new address,
 * deletion) for a user of that provider. Each call goes through the page's authkoa/client: the login is
 * `auth.login(provider, { user: <address>, passwd })`, the rest `auth.accounts.*`. The mailed links (confirm
 * the address, choose a new password) land in the outbox and open authkoa's own pages.
 */
window.demoAccounts = function ($, auth, hooks) {
  'use strict';
  // hooks: loggedIn(result, name) once a login resolved (the session, or a second step to ask); failed(where)
  // for a refusal the page says as it says the others; changed() after a change that ends other sessions;
  // deleted() once the account (and this session) is gone.
  var provider = null;
  var user = null; // the page's user, kept for when /auth/list answers after /auth/user

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
      // A wrong password and an address never confirmed answer alike (bad_credentials): the server tells nobody
      // which, and mails a new link to the owner when the password was right.
      if (err.code === 'bad_credentials') {
        hooks.failed('#accounts-message')(err); // the events panel shows the login_failed
        toOutbox('Wrong address or password. If you just signed up, confirm your address first: the link is in the outbox.');
        return $('#accounts-message').addClass('error');
      }
      hooks.failed('#accounts-message')(err);
    });
  });
  $('#signup').on('submit', function (e) {
    e.preventDefault();
    var form = this;
    var name = field(form, 'name');
    // The confirmed browser comes back to this page (the link's page goes on to `from`).
    var input = { email: field(form, 'email'), password: field(form, 'password'), from: location.pathname };
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

  /** A refusal of the account's own section: a login too old for it is said in words. */
  function refused(err) {
    if (err.code === 'reauth_required')
      return say('This needs a login of the last 5 minutes: log out and in again, then retry.', true);
    hooks.failed('#account-message')(err);
  }
  function say(text, failed) { $('#account-message').text(text).toggleClass('error', !!failed); }

  $('#change-password').on('submit', function (e) {
    e.preventDefault();
    var form = this;
    say('');
    auth.accounts.changePassword(field(form, 'current'), field(form, 'password'), { provider: provider }).then(function () {
      form.reset();
      say('Password changed: your other devices are logged out.');
      hooks.changed();
    }, refused);
  });
  $('#change-email').on('submit', function (e) {
    e.preventDefault();
    var form = this;
    say('');
    auth.accounts.changeEmail(field(form, 'email'), { provider: provider }).then(function () {
      form.reset();
      say('Check the new address: the change applies once its link is opened. ');
      $('#account-message').append($('<a href="/outbox">').text('Open the outbox'));
    }, refused);
  });
  // Deleting takes a second, deliberate press, as turning off two-step login does.
  $('#account-delete').on('click', function () {
    say('');
    $('#account-delete').prop('hidden', true);
    $('#account-delete-confirm').prop('hidden', false);
    $('#account-delete-no').trigger('focus');
  });
  $('#account-delete-no').on('click', function () { render(true); });
  $('#account-delete-yes').on('click', function () {
    auth.accounts.delete({ provider: provider }).then(function () {
      render(false);
      hooks.deleted();
    }, refused);
  });

  /** "Your account" for a user of the password provider, with its delete button unpressed; hidden otherwise. */
  function render(own) {
    $('#account').prop('hidden', !own);
    $('#account-delete').prop('hidden', false);
    $('#account-delete-confirm').prop('hidden', true);
    if (!own) say('');
    $('#change-password [name=username]').val('');
  }

  return {
    /** The password provider `name` (from /auth/list): its forms are shown. */
    add: function (name) {
      provider = name;
      $('#accounts').prop('hidden', false);
      showAccount(user);
    },
    /** The page's user changed (or is nobody): "Your account" for one of the password provider's. */
    render: function (u) {
      user = u;
      showAccount(user);
    },
  };

  function showAccount(u) {
    var own = !!(u && provider && u.id.indexOf(provider + '_') === 0);
    render(own);
    // The form names the account for a password manager, which saves the new password under it.
    if (own) $('#change-password [name=username]').val(u.email || '');
  }
};
