import type { RouteDocs } from '../core/provider.js';
import { redirectDoc } from '../core/route-docs.js';

/**
 * The Telegram kind's routes for the OpenAPI description: its login polls. Without `token` it opens a
 * request and names the bot to send it to; with it, 404 until the user pressed Start, then the session,
 * once. The webhook (when configured) is Telegram's to call.
 */
const opened = {
  type: 'object',
  required: ['bot', 'token'],
  additionalProperties: false,
  properties: {
    bot: { type: 'string', description: "the bot's username: the user opens t.me/<bot>?start=<token>" },
    token: { type: 'string' },
  },
};
const answer = {
  200: {
    description: 'a request opened (`bot`, `token`), or, with `token`, the session (the user, or a second step due)',
    content: {
      'application/json': {
        schema: {
          oneOf: [opened, { $ref: '#/components/schemas/User' }, { $ref: '#/components/schemas/MfaRequired' }],
        },
      },
    },
  },
  303: redirectDoc('logged in, to the second-step page'),
};
const PARAMS = ['token', 'aud', 'from', 'session'].map((name) => ({ name, in: 'query', schema: { type: 'string' } }));

export const TELEGRAM_ROUTE_DOCS: RouteDocs = {
  login: {
    get: {
      description: 'Opens a request, or polls one (`request_not_verified` 404 until Start was pressed).',
      parameters: PARAMS,
      responses: answer,
    },
    post: { description: 'As GET.', parameters: PARAMS, responses: answer },
  },
  webhook: {
    post: {
      description: "Telegram's updates, when the webhook is configured (checked by its secret header).",
      responses: {
        200: {
          description: 'taken',
          content: { 'application/json': { schema: { type: 'object', properties: { ok: { const: true } } } } },
        },
      },
    },
  },
};
