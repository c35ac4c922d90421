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
    schema: object(['status'], { status: { type: 'string', enum: [value] }, ...extra }),
  },
});
const html = (description: string) => ({ description, content: { 'text/html': { schema: { type: 'string' } } } });
/** A refusal of a link's page or its form: the error JSON, or a page for a browser (a dead link, a bad password). */
const pageError = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } }, ...html('').content },
});
const DEAD_LINK = pageError('a dead link (`confirmation_used`, `confirmation_expired`, `confirmation_invalid`)');
const user = { $ref: '#/components/schemas/User' };
const mfa = { $ref: '#/components/schemas/MfaRequired' };
const loggedIn = {
  description: 'logged in: the user (session cookies set), or a second step due',
  content: { 'application/json': { schema: { oneOf: [user, mfa] } } },
};
const EMAIL = text('an address; compared in lower case', { maxLength: 254 });
const PASSWORD = text('at least `minLength` (8) and at most 256 characters', { maxLength: 256 });
const TOKEN = text("the link's token", { maxLength: 4096 });
const fresh = 'Needs a fresh login (`fresh`, 5 minutes by default), else 401 `reauth_required`.';

/** A sign-up's or a new address's link: its page (GET), and its redemption (POST, the page's form or a client). */
const CONFIRM_DOCS: RouteDocs[string] = {
  get: {
    description: "The link's page: a button that POSTs the token (a mail scanner's GET spends nothing).",
    parameters: [{ name: 'token', in: 'query', required: true, schema: TOKEN }],
    responses: { 200: html('the page with the button'), 403: DEAD_LINK },
  },
  post: {
    description:
      'Spends the link once: a sign-up link confirms the address and logs in; a new-address link applies the ' +
      'change and ends the other sessions. 403 `confirmation_used`, `confirmation_expired`, `confirmation_invalid`.',
    requestBody: body(object(['token'], { token: TOKEN })),
    responses: {
      200: {
        description: 'logged in, or the new address applied',
        content: {
          'application/json': {
            schema: {
              oneOf: [user, mfa, object(['status', 'email'], { status: { enum: ['email_changed'] }, email: EMAIL })],
            },
          },
          // The page's form: the new address applied, said on a page.
          ...html('').content,
        },
      },
      403: DEAD_LINK,
      303: redirectDoc("the link's page in a browser: to where the login goes"),
    },
  },
};

/** A reset link: its page with the form (GET), and the new password (POST, that form or a client). */
const RESET_CONFIRM_DOCS: RouteDocs[string] = {
  get: {
    description: "The link's page: the form for a new password.",
    parameters: [{ name: 'token', in: 'query', required: true, schema: TOKEN }],
    responses: { 200: html('the form'), 403: DEAD_LINK },
  },
  post: {
    description:
      'Sets the new password and ends every session of the account; does not log in. A refused password ' +
      '(400 `weak_password`) leaves the link unspent.',
    requestBody: body(object(['token', 'password'], { token: TOKEN, password: PASSWORD })),
    responses: {
      // The page's form gets a page: the password set, or the form again with why it was refused.
      200: { description: 'the password is set', content: { ...status('password_reset'), ...html('').content } },
      400: pageError('`weak_password`: the link is not spent'),
      403: DEAD_LINK,
    },
  },
};

/** The operations, by route; sign-up is described only when it is on. */
export function passwordRouteDocs(signup: boolean): RouteDocs {
  return {
    login: {
      post: {
        description:
          'The address in `user`, the password in `passwd`. A wrong password, an unknown address and an unconfirmed ' +
          'account with a wrong password all answer 403 `bad_credentials`; the right password for an unconfirmed ' +
          'account answers 403 `email_not_confirmed` and sends a new link; 429 with Retry-After while locked out.',
        requestBody: body(object(['user', 'passwd'], { user: EMAIL, passwd: PASSWORD, aud: text('the audience') })),
        responses: { 200: loggedIn },
      },
    },
    ...(signup && {
      signup: {
        post: {
          description:
            'Answers 202 `check_email` alike whether or not the address has an account: a free address gets a ' +
            'confirmation link, a taken one a notice. 400 `invalid_email` or `weak_password`; 429 over the limits.',
          requestBody: body(
            object(['email', 'password'], { email: EMAIL, password: PASSWORD, name: text('shown name') }),
          ),
          responses: { 202: { description: 'a message is on its way', content: status('check_email') } },
        },
      },
    }),
    confirm: CONFIRM_DOCS,
    reset: {
      post: {
        description:
          'Answers 202 `check_email` alike for any well-formed address; an account gets a single-use link ' +
          '(`resetTimeout`, 1 hour by default). 429 over the limits, whatever the address.',
        requestBody: body(object(['email'], { email: EMAIL })),
        responses: {
          202: { description: 'a link is on its way if the address has an account', content: status('check_email') },
        },
      },
    },
    'reset/confirm': RESET_CONFIRM_DOCS,
    password: {
      post: {
        description: `${fresh} A wrong \`current\` is 403 \`bad_credentials\`. The account's other sessions end.`,
        security: SESSION_SECURITY,
        requestBody: body(object(['current', 'password'], { current: PASSWORD, password: PASSWORD })),
        responses: { 200: { description: 'the password is changed', content: status('password_changed') } },
      },
    },
    email: {
      post: {
        description: `${fresh} A link goes to the new address and a notice to the old; the change applies when confirmed.`,
        security: SESSION_SECURITY,
        requestBody: body(object(['email'], { email: EMAIL })),
        responses: { 202: { description: 'the messages are on their way', content: status('check_email') } },
      },
    },
    account: {
      delete: {
        description: `${fresh} Every session ends; the account, its second factors and passkeys go.`,
        security: SESSION_SECURITY,
        responses: { 200: { description: 'the account is deleted', content: status('account_deleted') } },
      },
    },
  };
}
