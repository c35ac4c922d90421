import type { RouteDocs } from '../core/provider.js';
import { emptyTextDoc, redirectDoc } from '../core/route-docs.js';

/**
 * The verified kind's routes for the OpenAPI description. Its login route has two steps: without a
 * `token` it sends the confirmation (answering `{user, address}`); with one, a POST trades it for the
 * session while a GET (a mail client or a browser following the link) shows the confirmation page —
 * or, with `confirmPage: false`, logs in as the POST does. A browser's refusals are pages too (an
 * expired or spent link), an API client's the usual Error JSON.
 */
const user = { $ref: '#/components/schemas/User' };
const sent = {
  description: 'step 1: the confirmation was handed to the sender',
  content: {
    'application/json': {
      schema: {
        type: 'object',
        required: ['user', 'address'],
        additionalProperties: false,
        properties: { user: { type: 'string' }, address: { type: 'string' } },
      },
    },
  },
};
const html = (description: string) => ({ description, content: { 'text/html': { schema: { type: 'string' } } } });
const error = (description: string) => ({
  description,
  content: {
    'application/json': { schema: { $ref: '#/components/schemas/Error' } },
    'text/html': { schema: { type: 'string' } },
  },
});
const PARAMS = ['user', 'address', 'token', 'aud', 'from', 'session'].map((name) => ({
  name,
  in: 'query',
  schema: { type: 'string' },
}));
const BODY = {
  type: 'object',
  properties: {
    user: { type: 'string' },
    address: { type: 'string' },
    token: { type: 'string' },
    aud: { type: 'string' },
    from: { type: 'string' },
    session: { type: 'string' },
  },
};
const refusals = {
  '4XX': error('refused: Error JSON, or a page for a browser (a spent or expired link)'),
  '5XX': error('the sender or a store is away'),
};

const loggedIn = {
  200: {
    description: 'step 1 sent, or logged in (the user, or a second step due)',
    content: {
      'application/json': {
        schema: {
          oneOf: [sent.content['application/json'].schema, user, { $ref: '#/components/schemas/MfaRequired' }],
        },
      },
    },
  },
  303: redirectDoc('logged in: to `from`, or to the second-step page'),
  ...refusals,
};

/** The routes of a verified provider; `confirmPage` says whether a GET with the token shows the page or logs in. */
export const verifiedRouteDocs = (confirmPage: boolean): RouteDocs => ({
  login: {
    get: confirmPage
      ? {
          description:
            'Step 1 with `user` and `address`; with `token`, the confirmation page a POST from it completes.',
          parameters: PARAMS,
          responses: {
            200: {
              description: 'step 1 sent, or the confirmation page',
              content: { ...sent.content, ...html('').content },
            },
            ...refusals,
          },
        }
      : {
          description: 'Step 1 with `user` and `address`, or step 2 with `token` (confirmPage: false): the session.',
          parameters: PARAMS,
          responses: loggedIn,
        },
    post: {
      description: 'Step 1 with `user` and `address`, or step 2 with `token`: the session.',
      parameters: PARAMS,
      requestBody: {
        content: { 'application/json': { schema: BODY }, 'application/x-www-form-urlencoded': { schema: BODY } },
      },
      responses: loggedIn,
    },
  },
  callback: {
    get: {
      description: "Kept for the original system's clients: answers an empty 200.",
      responses: { 200: emptyTextDoc('empty') },
    },
    post: { description: 'As GET.', responses: { 200: emptyTextDoc('empty') } },
  },
});
