import { ERROR_STATUS } from '../errors.js';
import { AUTH_EVENT_TYPES } from '../events/types.js';
import { checkOptionNames } from '../util/options.js';
import type { FeatureModule } from './contract.js';

/**
 * The `features` option checked in authKoa()'s one validation pass, and the rules every feature keeps,
 * built-in or not: a unique name, a route prefix no one else has, its own error codes and event types.
 */

/** The routes of the auth router itself: no feature prefix or provider name may take them. */
const CORE_ROUTES = ['/list', '/user', '/status', '/logout'];

const NAME = /^[a-z][a-z0-9_-]{0,63}$/;
const PREFIX = /^\/[A-Za-z0-9._~-]+$/;
const CODE = /^[a-z][a-z0-9_]{0,63}$/;
/** A document under `.well-known/`; `jwks.json` is the key set's own. */
const WELL_KNOWN = /^(?!jwks\.json$)[a-z0-9][a-z0-9._-]{0,63}$/;

/** The application's `features`: each entry a FeatureModule, its options checked against its own names. */
export function readFeatures(input: unknown): FeatureModule[] {
  if (input === undefined) return [];
  if (!Array.isArray(input))
    throw new TypeError('authKoa: features must be an array of features, e.g. [acceptTerms({ … })]');
  return input.map((entry: unknown, i) => checkModule(entry, `features[${i}]`));
}

/** One feature's own declarations, by the rules above. */
export function checkModule(entry: unknown, at: string): FeatureModule {
  const m = entry as FeatureModule | null;
  if (typeof m !== 'object' || m === null || typeof m.create !== 'function') {
    throw new TypeError(`authKoa: ${at} must be a feature: { name, create(options, context), … } (docs/features.md)`);
  }
  if (typeof m.name !== 'string' || !NAME.test(m.name)) {
    throw new TypeError(
      `authKoa: ${at}.name must be lowercase letters, digits, - or _ (got ${JSON.stringify(m.name)})`,
    );
  }
  const where = `authKoa: ${at} (${m.name})`;
  if (m.prefix !== undefined && (typeof m.prefix !== 'string' || !PREFIX.test(m.prefix))) {
    throw new TypeError(`${where}: prefix must be one path segment such as "/terms" (got ${JSON.stringify(m.prefix)})`);
  }
  const docs = m.wellKnown;
  if (docs !== undefined && (!Array.isArray(docs) || !docs.every((d) => typeof d === 'string' && WELL_KNOWN.test(d))))
    throw new TypeError(`${where}: wellKnown must list document names such as "ssf-configuration"`);
  const site = m.siteWellKnown;
  if (site !== undefined && (!Array.isArray(site) || !site.every((d) => typeof d === 'string' && WELL_KNOWN.test(d))))
    throw new TypeError(`${where}: siteWellKnown must list document names such as "oauth-authorization-server"`);
  if (m.options !== undefined) {
    if (typeof m.options !== 'object' || m.options === null) throw new TypeError(`${where}: options must be an object`);
    // A misspelled option would leave its default in place without a word, as for authKoa's own.
    checkOptionNames(m.options, m.optionNames ?? [], `${where}: `);
  }
  for (const [code, status] of Object.entries(m.errors ?? {})) {
    if (!CODE.test(code) || Object.hasOwn(ERROR_STATUS, code)) {
      throw new TypeError(
        `${where}: error code ${JSON.stringify(code)} must be lowercase_with_underscores ` +
          "and not one of authkoa's ERROR_CODES",
      );
    }
    if (!Number.isInteger(status) || status < 400 || status > 599)
      throw new TypeError(`${where}: error code ${code} needs a 4xx or 5xx status (got ${String(status)})`);
  }
  for (const type of m.events ?? []) {
    if (typeof type !== 'string' || !CODE.test(type) || (AUTH_EVENT_TYPES as readonly string[]).includes(type)) {
      throw new TypeError(
        `${where}: event type ${JSON.stringify(type)} must be lowercase_with_underscores and not one of authkoa's own`,
      );
    }
  }
  return m;
}

/** Two features of one name, or of one prefix, or a prefix on a core route: the start-up error names both. */
export function checkFeatureSet(features: readonly FeatureModule[]): void {
  const names = new Map<string, FeatureModule>();
  const prefixes = new Map<string, FeatureModule>();
  const events = new Map<string, FeatureModule>();
  const documents = new Map<string, FeatureModule>();
  for (const f of features) {
    for (const doc of f.wellKnown ?? []) {
      const other = documents.get(doc);
      if (other)
        throw new TypeError(
          `authKoa: features: features "${other.name}" and "${f.name}" both serve <authRoutePath>/.well-known/${doc}`,
        );
      documents.set(doc, f);
    }
    for (const doc of f.siteWellKnown ?? []) {
      const other = documents.get(`/${doc}`);
      if (other)
        throw new TypeError(
          `authKoa: features: features "${other.name}" and "${f.name}" both serve /.well-known/${doc}`,
        );
      documents.set(`/${doc}`, f);
    }
    const twin = names.get(f.name);
    if (twin) throw new TypeError(`authKoa: features: two features are named "${f.name}"`);
    names.set(f.name, f);
    if (f.prefix !== undefined) {
      if (CORE_ROUTES.includes(f.prefix))
        throw new TypeError(
          `authKoa: features: feature "${f.name}" cannot take ${f.prefix}: it is a route of the auth router itself`,
        );
      const other = prefixes.get(f.prefix);
      if (other)
        throw new TypeError(
          `authKoa: features: features "${other.name}" and "${f.name}" both reserve <authRoutePath>${f.prefix}`,
        );
      prefixes.set(f.prefix, f);
    }
    for (const type of f.events ?? []) {
      const other = events.get(type);
      if (other)
        throw new TypeError(
          `authKoa: features: features "${other.name}" and "${f.name}" both declare the event "${type}"`,
        );
      events.set(type, f);
    }
  }
}

/** A provider whose name is a feature's prefix could never be reached: a start-up error naming both. */
export function checkProviderNames(features: readonly FeatureModule[], providers: readonly string[]): void {
  for (const f of features) {
    if (f.prefix === undefined) continue;
    const taken = providers.find((name) => `/${name}` === f.prefix);
    if (taken !== undefined) {
      throw new TypeError(
        `authKoa: providers: provider "${taken}" and feature "${f.name}" both want ` +
          `<authRoutePath>${f.prefix}/…: rename the provider`,
      );
    }
  }
}
