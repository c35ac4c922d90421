import type { RouteDocs } from '../../providers/core/provider.js';
import { redirectDoc, SESSION_SECURITY } from '../../providers/core/route-docs.js';

/**
 * The password kind's routes for the OpenAPI description (`auth.openapi()`): what each reads and answers.
 * The 4XX/5XX error answers (`{ error, code }`) are added to every operation by the document.
 */

const text = (description: string, extra: Record<string, unknown> = {}) => ({ type: 'string', description, ...extra });
const body = (schema: Record<string, unknown>) => ({
  required: true,
  content: { 'application/json': { schema }, 'application/x-www-form-urlencoded': { schema } },
});
const object = (required: string[], properties: Record<string, unknown>) => ({ type: 'object', required, properties });
const status = (value: string, extra: Record<string, unknown> = {}) => ({
  'application/json': {
    schema: object(['status', ...Object.keys(extra)], { status: { type: 'string', enum: [value] }, ...extra }),
  },
});
const answer = (description: string, value: string) => ({ description, content: status(value) });
const html = (description: string) => ({ description, content: { 'text/html': { schema: { type: 'string' } } } });
const page = { 'text/html': { schema: { type: 'string' } } };
/** A link opened in a browser is refused with a page (a spent, expired or changed link; a refused password). */
const refusals = {
  '4XX': {
    description: 'refused: Error JSON, or a page for a browser',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } }, ...page },
  },
};
const user = { $ref: '#/components/schemas/User' };
const mfa = { $ref: '#/components/schemas/MfaRequired' };
const EMAIL = text('an address; compared in lower case', { maxLength: 254 });
const PASSWORD = text('at least `minLength` (8) and at most 256 characters', { maxLength: 256 });
const TOKEN = text("the link's token", { maxLength: 4096 });
const TOKEN_QUERY = [{ name: 'token', in: 'query', required: true, schema: TOKEN }];
const FRESH = 'Needs a fresh login (`fresh`, 5 minutes by default), else 401 `reauth_required`.';

const LOGIN = {
  post: {
    description:
      'The address in `user`, the password in `passwd`. A wrong password, an unknown address and an unconfirmed ' +
      'account all answer 403 `bad_credentials` alike ("if you just signed up, confirm your address first"); the ' +
      'right password for an unconfirmed account also mails a new link; 429 with Retry-After while locked out.',
    requestBody: body(object(['user', 'passwd'], { user: EMAIL, passwd: PASSWORD, aud: text('the audience') })),
    responses: {
      200: {
        description: 'logged in: the user (session cookies set), or a second step due',
        content: { 'application/json': { schema: { oneOf: [user, mfa] } } },
      },
    },
  },
};

const SIGNUP = {
  post: {
    description:
      'Answers 202 `check_email` alike whether or not the address has an account: a free address gets a ' +
      'confirmation link, a taken one a notice. 400 `invalid_email` or `weak_password`; 429 over the limits.',
    requestBody: body(
      object(['email', 'password'], {
        email: EMAIL,
        password: PASSWORD,
        name: text('the name the session shows', { maxLength: 128 }),
        from: text('where the browser goes once the address is confirmed (by the redirect policy)'),
      }),
    ),
    responses: { 202: answer('a message is on its way', 'check_email') },
  },
};

const CONFIRM = {
  get: {
    description: "The link's page: a button that POSTs the token (a mail scanner's GET spends nothing).",
    parameters: TOKEN_QUERY,
    responses: { 200: html('the page with the button'), ...refusals },
  },
  post: {
    description:
      'Spends the link once: a sign-up link confirms the address and logs in; a new-address link applies the ' +
      'change and ends the other sessions. 403 `confirmation_used`, `confirmation_expired` or ' +
      '`confirmation_invalid` for a dead link.',
    requestBody: body(object(['token'], { token: TOKEN })),
    responses: {
      200: {
        description: 'logged in, or the new address applied',
        content: {
          'application/json': {
            schema: { oneOf: [user, mfa, status('email_changed', { email: EMAIL })['application/json'].schema] },
          },
          // The new address's link confirmed from its page (a form POST).
          ...page,
        },
      },
      303: redirectDoc("the link's page in a browser: to where the sign-up asked, else the site"),
      ...refusals,
    },
  },
};

const RESET = {
  post: {
    description:
      'Answers 202 `check_email` alike for any well-formed address; an account gets a single-use link ' +
      '(`resetTimeout`, 1 hour by default). 429 over the limits, whatever the address.',
    requestBody: body(object(['email'], { email: EMAIL })),
    responses: { 202: answer('a link is on its way if the address has an account', 'check_email') },
  },
};

const RESET_CONFIRM = {
  get: {
    description: "The link's page: the form for a new password.",
    parameters: TOKEN_QUERY,
    responses: { 200: html('the form'), ...refusals },
  },
  post: {
    description:
      'Sets the new password and ends every session of the account; does not log in. A refused password ' +
      '(400 `weak_password`) leaves the link unspent.',
    requestBody: body(object(['token', 'password'], { token: TOKEN, password: PASSWORD })),
    responses: {
      200: { description: 'the password is set', content: { ...status('password_reset'), ...page } },
      ...refusals,
    },
  },
};

const PASSWORD_CHANGE = {
  post: {
    description: `${FRESH} A wrong \`current\` is 403 \`bad_credentials\`. The account's other sessions end.`,
    security: SESSION_SECURITY,
    requestBody: body(object(['current', 'password'], { current: PASSWORD, password: PASSWORD })),
    responses: { 200: answer('the password is changed', 'password_changed') },
  },
};

const EMAIL_CHANGE = {
  post: {
    description: `${FRESH} A link goes to the new address, a notice to the old; the change applies when confirmed.`,
    security: SESSION_SECURITY,
    requestBody: body(object(['email'], { email: EMAIL })),
    responses: { 202: answer('the messages are on their way', 'check_email') },
  },
};

const ACCOUNT = {
  delete: {
    description: `${FRESH} Every session ends; the account, its second factors and passkeys go.`,
    security: SESSION_SECURITY,
    responses: { 200: answer('the account is deleted', 'account_deleted') },
  },
};

/** The operations, by route; sign-up is described only when it is on. */
export function passwordRouteDocs(signup: boolean): RouteDocs {
  return {
    login: LOGIN,
    ...(signup && { signup: SIGNUP }),
    confirm: CONFIRM,
    reset: RESET,
    'reset/confirm': RESET_CONFIRM,
    password: PASSWORD_CHANGE,
    email: EMAIL_CHANGE,
    account: ACCOUNT,
  };
}
