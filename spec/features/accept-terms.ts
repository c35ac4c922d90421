/**
 * A feature written the way an application or a plug-in package would write one: against authkoa's main
 * entry alone (here `../../lib/index.js`, for a package `authkoa`), with no import from lib/'s internals.
 * It asks every user to accept the current terms before their session is issued: its own option
 * (`version`, `text`), route (`GET <authRoutePath>/terms`), login gate, OpenAPI path and schema, error
 * code (`terms_required`, 403) and event (`terms_accepted`). accept-terms.test.ts checks what it does and
 * that its imports stay on the public entry.
 */
import type { Context } from 'koa';
import type { AuthEventBase, FeatureContext, FeatureModule, LoginAttempt } from '../../lib/index.js';

/** Told once a user accepts a version of the terms. */
export interface TermsAcceptedEvent extends AuthEventBase {
  type: 'terms_accepted';
  userId: string;
  version: string;
}

// What a feature's package declares so that its code and event are typed as authkoa's own are.
declare module '../../lib/index.js' {
  interface FeatureErrorCodes {
    terms_required: true;
  }
  interface AuthEventMap {
    terms_accepted: TermsAcceptedEvent;
  }
}

export interface AcceptTermsOptions {
  /** The version users must have accepted: a new one asks everyone again. */
  version: string;
  /** What `GET /auth/terms` shows. */
  text?: string;
}

/** What `auth.features.get('terms')` offers. */
export interface TermsAdmin {
  /** The version the user accepted last, if any. */
  acceptedBy(userId: string): Promise<string | undefined>;
}

const NS = 'terms';
/** Acceptances are kept for good: the state store wants an expiry, this one is 100 000 days away. */
const FOREVER = 8_640_000_000_000;

/** `features: [acceptTerms({ version: '2' })]`. */
export function acceptTerms(options: AcceptTermsOptions): FeatureModule<AcceptTermsOptions> {
  return {
    name: 'terms',
    prefix: '/terms',
    options,
    optionNames: ['version', 'text'],
    errors: { terms_required: 403 },
    events: ['terms_accepted'],
    create(opts, context) {
      if (typeof opts.version !== 'string' || opts.version === '')
        throw new TypeError('version must be a non-empty string');
      const terms = { version: opts.version, text: opts.text ?? '' };
      const acceptedBy = async (userId: string) => (await context.stateStore.get<string>(NS, userId))?.value;
      return {
        routes: async (ctx, next) => {
          if (ctx.path !== `${context.authRoutePath}/terms` || ctx.method !== 'GET') return next();
          context.json(ctx, 200, terms);
        },
        gate: (ctx, login) => gate(ctx, login, { context, version: terms.version, acceptedBy }),
        openapi: () => ({
          paths: {
            '/terms': {
              get: {
                summary: 'The terms users accept before logging in',
                description:
                  'Their version and text. A login answers 403 `terms_required` until `accept_terms=<version>` is sent with it.',
                tags: ['terms'],
                responses: {
                  200: {
                    description: 'the terms',
                    content: { 'application/json': { schema: { $ref: '#/components/schemas/Terms' } } },
                  },
                },
              },
            },
          },
          schemas: {
            Terms: {
              type: 'object',
              required: ['version', 'text'],
              properties: { version: { type: 'string' }, text: { type: 'string' } },
            },
          },
          tags: { terms: 'Accepting the terms of service' },
        }),
        admin: { acceptedBy } satisfies TermsAdmin,
      };
    },
  };
}

/** A user who accepted the current version goes on; one who sends `accept_terms=<version>` accepts it now; others are refused. */
async function gate(
  ctx: Context,
  login: LoginAttempt,
  p: { context: FeatureContext; version: string; acceptedBy: (id: string) => Promise<string | undefined> },
): Promise<boolean> {
  const userId = login.user.id;
  if ((await p.acceptedBy(userId)) === p.version) return false;
  if (ctx.query.accept_terms !== p.version) {
    throw p.context.error(
      'terms_required',
      `accept the terms (version ${p.version}) to log in: GET ${p.context.authRoutePath}/terms`,
    );
  }
  const store = p.context.stateStore;
  const cur = await store.get(NS, userId);
  const written = cur
    ? await store.replace(NS, userId, cur.rev, p.version, FOREVER)
    : await store.create(NS, userId, p.version, FOREVER);
  if (!written) throw new Error('the acceptance changed under way: log in again');
  p.context.emit('terms_accepted', { userId, version: p.version }, ctx);
  return false;
}
