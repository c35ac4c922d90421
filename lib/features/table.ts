import type { FeatureModule } from './contract.js';
import { checkFeatureSet } from './plan.js';
import { jwksFeature } from '../jwks/feature.js';
import type { SessionsAdmin } from '../sessions/admin.js';
import { sessionsFeature, type SessionsFeatureParts } from '../sessions/feature.js';
import type { MfaAdmin } from '../mfa/admin.js';
import { MFA_EVENTS, mfaFeature, type MfaParts } from '../mfa/feature.js';
import { readMfaOptions, type MfaConfig, type MfaOptionsContext } from '../mfa/options.js';
import type { SigningConfig } from '../session/signing.js';
import { accountsFeature, type AccountsParts } from '../accounts/feature.js';
import { ACCOUNT_EVENTS } from '../accounts/events.js';
import { readAccountsOptions, type AccountsConfig } from '../accounts/options.js';
import type { AccountsAdminAPI } from '../accounts/service.js';
import { TOKEN_EVENTS } from '../personal-tokens/events.js';
import { personalTokensFeature, type PersonalTokensFeatureParts } from '../personal-tokens/feature.js';
import { readTokensOptions, type PersonalTokensConfig } from '../personal-tokens/options.js';
import { WEBHOOK_EVENTS } from '../webhooks/events.js';
import { webhooksFeature, type WebhooksFeatureParts } from '../webhooks/feature.js';
import { readWebhooksOptions, type WebhooksConfig } from '../webhooks/options.js';
import { SSF_EVENTS } from '../ssf/events.js';
import { ssfFeature, type SsfFeatureParts } from '../ssf/feature.js';
import { readSsfOptions, type SsfConfig } from '../ssf/options.js';

/**
 * The built-in features: which option turns each on and how it is read, what they are made of, their
 * events, and the instance's shortcut to their admin APIs. The one place outside a feature's folder that
 * names it (besides the public types); service.ts, the options and the instance loop over what is here.
 */

/** The options of authKoa() that turn a built-in feature on (their public types: options/types.ts). */
export const BUILT_IN_OPTIONS = ['mfa', 'accounts', 'tokens', 'webhooks', 'ssf'] as const;
export type BuiltInOption = (typeof BUILT_IN_OPTIONS)[number];

/** What the built-in features' option readers get: the options read before theirs. */
export type BuiltInOptionsContext = MfaOptionsContext;

/** The built-in features' options, checked: each by its option name, undefined when the option is not set. */
export type FeatureOptions = Readonly<Partial<Record<BuiltInOption, unknown>>>;

/** Checks the options of the built-in features, in authKoa()'s one validation pass (a TypeError naming one). */
export function readBuiltInOptions(o: Record<string, unknown>, so: BuiltInOptionsContext): FeatureOptions {
  const accounts = readAccountsOptions(o.accounts, { ...so, stateStore: o.stateStore });
  const tokens = readTokensOptions(o.tokens, {
    accounts: accounts !== undefined,
    stateStore: o.stateStore,
    allowVolatileStores: so.allowVolatileStores,
  });
  const webhooks = readWebhooksOptions(o.webhooks, {
    stateStore: o.stateStore,
    allowVolatileStores: so.allowVolatileStores,
  });
  const ssf = readSsfOptions(o.ssf, {
    stateStore: o.stateStore,
    allowVolatileStores: so.allowVolatileStores,
    signing: o.signing !== undefined,
  });
  return { mfa: readMfaOptions(o.mfa, so), accounts, tokens, webhooks, ssf };
}

/**
 * The event types of the built-in features: `auth.on()` takes them whether or not the option is set, as it
 * did when they were core events.
 */
export const BUILT_IN_EVENTS: readonly string[] = [
  ...MFA_EVENTS,
  ...ACCOUNT_EVENTS,
  ...TOKEN_EVENTS,
  ...WEBHOOK_EVENTS,
  ...SSF_EVENTS,
];

/** The instance's shortcuts to built-in features' admin APIs: `auth.mfa` is `auth.features.get('mfa')`. */
export interface BuiltInAdmins {
  /** The user's sessions, one per login (per device), newest first; and ending one of them. See docs/sessions.md. */
  readonly sessions: Pick<SessionsAdmin, 'list' | 'revoke'>;
  /**
   * The second factor (the `mfa` option), for the application's own admin pages: a user's factors, and
   * their removal after a lost phone (as `authctl mfa reset`). Undefined when `mfa` is not set.
   */
  readonly mfa: MfaAdmin | undefined;
  /**
   * The accounts (the `accounts` option): create, find, set a password, delete, list, and a reset link to hand
   * over (as `authctl accounts`). Undefined when `accounts` is not set. See docs/accounts.md.
   */
  readonly accounts: AccountsAdminAPI | undefined;
}

/** Each shortcut's methods (the feature of its name): the instance calls them once start-up is done. */
export const INSTANCE_ALIASES: {
  readonly [A in keyof BuiltInAdmins]-?: ReadonlyArray<keyof NonNullable<BuiltInAdmins[A]>>;
} = {
  sessions: ['list', 'revoke'],
  mfa: ['status', 'reset', 'clear'],
  accounts: ['create', 'find', 'setPassword', 'delete', 'list', 'resetLink', 'links', 'link', 'unlink'],
};

/** What the built-in features are made of: the instance's parts they serve. */
export interface BuiltInParts extends SessionsFeatureParts, MfaParts, WebhooksFeatureParts, SsfFeatureParts {
  signing: SigningConfig | undefined;
  featureOptions: FeatureOptions;
  core: MfaParts['core'] & AccountsParts['core'] & PersonalTokensFeatureParts['core'] & WebhooksFeatureParts['core'];
  login: MfaParts['login'] & AccountsParts['login'];
  logger: AccountsParts['logger'];
  strictRevocation: boolean;
  events: SessionsFeatureParts['events'] & WebhooksFeatureParts['events'];
}

/**
 * The features of one configuration, in the order their gates run: the application's (`features`), then
 * the built-in ones the options turn on: the session list and the key set always (the key set answers
 * 404 without `signing`), the accounts with `accounts`, the personal tokens with `tokens`, the second factor with
 * `mfa`, the webhooks with `webhooks`, the Shared Signals transmitter with `ssf`. Checked as one set: names,
 * prefixes, documents, events.
 */
export function configuredFeatures(own: readonly FeatureModule[], p: BuiltInParts): FeatureModule[] {
  // Ending a user's other sessions from the list's route or admin goes through the instance, as every end does.
  const all = [
    ...own,
    sessionsFeature({ ...p, endSessions: (userId, keep) => p.login.endSessions(userId, keep) }),
    jwksFeature(p.authRoutePath, p.signing),
  ];
  const mfa = p.featureOptions.mfa as MfaConfig | undefined;
  const accounts = p.featureOptions.accounts as AccountsConfig | undefined;
  const tokens = p.featureOptions.tokens as PersonalTokensConfig | undefined;
  if (accounts) all.push(accountsFeature(accounts, p));
  if (tokens) all.push(personalTokensFeature(tokens, p));
  if (mfa) all.push(mfaFeature(mfa, p));
  const webhooks = p.featureOptions.webhooks as WebhooksConfig | undefined;
  if (webhooks) all.push(webhooksFeature(webhooks, p));
  const ssf = p.featureOptions.ssf as SsfConfig | undefined;
  if (ssf) all.push(ssfFeature(ssf, p));
  checkFeatureSet(all);
  return all;
}
