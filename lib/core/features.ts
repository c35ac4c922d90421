import { accounts } from '../accounts/index.js';
import { authorizationServer } from '../authorization-server/index.js';
import type { AccountsAdminAPI } from '../accounts/service.js';
import type { AuthorizationServerAdmin } from '../authorization-server/admin.js';
import { checkFeatureSet } from '../features/plan.js';
import type { AnyBuiltIn, BuiltInOptionsContext } from '../features/built-in.js';
import type { CapabilityName, FeatureCapabilities } from '../features/capabilities.js';
import type { FeatureModule } from '../features/contract.js';
import { jwks } from '../jwks/index.js';
import type { MfaAdmin } from '../mfa/admin.js';
import { mfa } from '../mfa/index.js';
import type { BuiltInFeatureOptions } from '../options/types.js';
import { personalTokens } from '../personal-tokens/index.js';
import type { AnyProviderModule } from '../providers/core/contract.js';
import type { SessionsAdmin } from '../sessions/admin.js';
import { sessions } from '../sessions/index.js';
import { ssf } from '../ssf/index.js';
import { webhooks } from '../webhooks/index.js';

/**
 * The built-in features, in the order their gates run after the application's: each a row its folder
 * describes (features/built-in.ts). The one place outside a feature's folder that names it, besides the public
 * types; every list of built-ins below is a loop over these rows.
 */
const BUILT_INS = [sessions, jwks, accounts, personalTokens, mfa, webhooks, ssf, authorizationServer] as const;

/** The authKoa() options that turn a built-in on, each once; the compiler keeps them equal to the public type's. */
type TableOptions = NonNullable<(typeof BUILT_INS)[number]['option']>;
const OPTIONS_MATCH: [TableOptions] extends [keyof BuiltInFeatureOptions]
  ? [keyof BuiltInFeatureOptions] extends [TableOptions]
    ? true
    : false
  : false = true;
void OPTIONS_MATCH;

/** The rows, typed as the loops below read them. */
export const BUILT_IN_FEATURES: readonly AnyBuiltIn[] = BUILT_INS as unknown as readonly AnyBuiltIn[];

/** The options of authKoa() that turn a built-in feature on. */
export const BUILT_IN_OPTIONS: readonly string[] = BUILT_IN_FEATURES.flatMap((f) => (f.option ? [f.option] : []));

/** The built-in features' options, checked: each by its option name, undefined when the option is not set. */
export type FeatureOptions = Readonly<Record<string, unknown>>;

/** Checks the options of the built-in features, in authKoa()'s one validation pass (a TypeError naming one). */
export function readBuiltInOptions(
  o: Record<string, unknown>,
  so: Omit<BuiltInOptionsContext, 'isSet'>,
): FeatureOptions {
  const context: BuiltInOptionsContext = { ...so, isSet: (option) => o[option] !== undefined };
  const read: Record<string, unknown> = {};
  for (const f of BUILT_IN_FEATURES) if (f.option && f.read) read[f.option] = f.read(o[f.option], context);
  return read;
}

/** The built-in features' event types: `auth.on()` takes them whether or not the option is set. */
export const BUILT_IN_EVENTS: readonly string[] = BUILT_IN_FEATURES.flatMap((f) => [...(f.events ?? [])]);

/** The provider kinds the built-in features bring (`password`), by kind name. */
export const FEATURE_KINDS: Readonly<Record<string, () => Promise<AnyProviderModule>>> = Object.fromEntries(
  BUILT_IN_FEATURES.flatMap((f) => Object.entries(f.kinds ?? {})),
);

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
  /**
   * The OAuth 2.1 authorization server (the `authorizationServer` option), for the application's own admin pages:
   * its clients listed and a registered one removed with its grants; a user's connected apps listed and one revoked
   * (as `authctl oauth`). Undefined when `authorizationServer` is not set.
   */
  readonly authorizationServer: AuthorizationServerAdmin | undefined;
}

/**
 * Each shortcut: the instance's member, the feature whose admin API it calls and the methods it offers (a dotted one
 * is a member's method). The instance calls them once start-up is done.
 */
export const INSTANCE_SHORTCUTS: ReadonlyArray<{
  member: keyof BuiltInAdmins;
  feature: string;
  methods: readonly string[];
}> = BUILT_IN_FEATURES.flatMap((f) =>
  f.shortcut
    ? [{ member: (f.shortcutMember ?? f.name) as keyof BuiltInAdmins, feature: f.name, methods: f.shortcut }]
    : [],
);

/** The admin methods built-ins add to the instance's own members (`auth.tokens.list`), with the option they need. */
export const INSTANCE_JOINS: ReadonlyArray<{
  feature: string;
  option: string;
  member: string;
  methods: readonly string[];
}> = BUILT_IN_FEATURES.flatMap((f) => (f.joins ? [{ feature: f.name, option: f.option ?? f.name, ...f.joins }] : []));

/**
 * The features of one configuration, in the order their gates run: the application's (`features`), then the
 * built-in ones, each always on or turned on by its option, made with the capabilities it asked for. Checked as one
 * set: names, prefixes, documents, events.
 */
export function configuredFeatures(
  own: readonly FeatureModule[],
  options: FeatureOptions,
  capability: <N extends CapabilityName>(name: N) => FeatureCapabilities[N],
): FeatureModule[] {
  const all = [...own];
  for (const f of BUILT_IN_FEATURES) {
    const config = f.option === undefined ? undefined : options[f.option];
    if (f.option !== undefined && config === undefined) continue;
    const has = Object.fromEntries(f.needs.map((n) => [n, capability(n)])) as unknown as FeatureCapabilities;
    all.push(f.module(config as never, has));
  }
  checkFeatureSet(all);
  return all;
}
