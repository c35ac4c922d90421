import type { RouteDocs } from './core/provider.js';
import { emptyTextDoc, redirectDoc } from './core/route-docs.js';

/**
 * The direct kind's routes for the OpenAPI description: the credentials it reads (query of a GET, or a
 * JSON or form body of a POST) and what it answers. The callback exists for the original's clients and
 * answers an empty 200.
 */
const field = (description: string) => ({ type: 'string', maxLength: 1024, description });
const CREDENTIALS = {
  type: 'object',
  required: ['user', 'passwd'],
  properties: {
    user: field('the user name, as the checker takes it'),
    passwd: field('the password'),
    aud: { type: 'string', description: 'the audience the token is for' },
    session: { type: 'string', description: '`1`: a session cookie (no Max-Age)' },
  },
};
const ANSWER = {
  200: {
    description: 'logged in: the user (session cookies set), or a second step due',
    content: {
      'application/json': {
        schema: { oneOf: [{ $ref: '#/components/schemas/User' }, { $ref: '#/components/schemas/MfaRequired' }] },
      },
    },
  },
  303: redirectDoc('a browser navigation with a second step due: to the second-step page'),
};

export const DIRECT_ROUTE_DOCS: RouteDocs = {
  login: {
    get: {
      description:
        'Credentials in the query; refused from another site (403 `origin_mismatch`), a wrong password is 403 ' +
        '`bad_credentials`, a locked-out name 429 with Retry-After.',
      parameters: ['user', 'passwd', 'aud', 'session'].map((name) => ({
        name,
        in: 'query',
        required: name === 'user' || name === 'passwd',
        schema: { type: 'string' },
      })),
      responses: ANSWER,
    },
    post: {
      description: 'Credentials in a JSON or form body; refusals as for GET.',
      requestBody: {
        required: true,
        content: {
          'application/json': { schema: CREDENTIALS },
          'application/x-www-form-urlencoded': { schema: CREDENTIALS },
        },
      },
      responses: ANSWER,
    },
  },
  callback: {
    get: {
      description: "Kept for the original system's clients: answers an empty 200.",
      responses: { 200: emptyTextDoc('empty') },
    },
    post: { description: 'As GET.', responses: { 200: emptyTextDoc('empty') } },
  },
};
