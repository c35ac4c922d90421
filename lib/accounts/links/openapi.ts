import type { FeatureOpenAPI } from '../../features/contract.js';
import { json, op, SESSION, STRING, type PathItem, type Text } from '../../openapi/operation.js';
import { ref } from '../../openapi/components.js';

const TEXT = {
  list: [
    "The session's account's identities",
    "Every way in that logs in as this account, in the order they were linked; `primary` is the account's own " +
      "identity, the one its id is. Linking starts at a provider's login: `GET /{provider}/login?link=1&from=…` " +
      'from a fresh session (5 minutes), whose callback links instead of logging in.',
  ],
  unlink: [
    'Unlinks an identity from the account',
    'The identity by its `id` as listed, or by its provider when the account has one identity of it (409 ' +
      '`link_ambiguous` when it has more). Needs a fresh login (5 minutes, else 401 `reauth_required`). 409 ' +
      '`last_login_method` when no password, ' +
      "identity or passkey would be left; 409 `identity_is_account` for the account's own identity; 404 " +
      "`link_not_found`. Ends the account's other sessions (`endOtherSessionsOnFactorChange`). Answers the links left.",
  ],
} satisfies Record<string, Text>;

/** The links' routes and schema, under authRoutePath (routes.ts answers them). */
export function linksOpenAPI(): FeatureOpenAPI {
  const tag = 'links';
  const link = {
    type: 'object',
    required: ['id', 'provider', 'linked', 'primary'],
    properties: {
      id: { type: 'string', description: 'the identity: what `DELETE /links/{identity}` unlinks it by' },
      provider: STRING,
      name: STRING,
      email: STRING,
      linked: { type: 'string', format: 'date-time' },
      primary: { type: 'boolean', description: "the account's own identity: it cannot be unlinked" },
    },
  };
  const list = json({ type: 'array', items: ref('AccountLink') }, 'in the order they were linked');
  const identity = {
    name: 'identity',
    in: 'path',
    required: true,
    description: "the identity's `id` as listed, or its provider's name when the account has one identity of it",
    schema: { ...STRING, maxLength: 256 },
  };
  const paths: Record<string, PathItem> = {
    '/links': { get: op(TEXT.list, tag, SESSION, { 200: list }) },
    '/links/{identity}': {
      delete: op(TEXT.unlink, tag, SESSION, { 200: list }, { parameters: [identity] }),
    },
  };
  // A login that links, or that finds its trusted address is an account's, ends there: a page for a browser.
  const notLoggedIn = {
    description:
      'account linking: `identity_in_use` (the identity is linked to another account) or `account_exists` (a ' +
      "trusted address is an account's: log in to it in this browser to link); a page for a browser navigation",
    content: {
      'application/json': { schema: ref('Error') },
      'text/html': { schema: STRING },
    },
  };
  return {
    paths,
    schemas: { AccountLink: link },
    loginAnswers: { 409: notLoggedIn },
    tags: { links: "The identities linked to the session's account" },
  };
}
