import type { FeatureModule } from './contract.js';
import { checkFeatureSet } from './plan.js';
import { jwksFeature } from './jwks/feature.js';
import { sessionsFeature, type SessionsFeatureParts } from './sessions/feature.js';
import { mfaFeature } from '../mfa/feature.js';
import type { Mfa } from '../mfa/service.js';
import type { SigningConfig } from '../session/signing.js';

/** What the built-in features are made of: the instance's parts they serve. */
export interface BuiltInParts extends SessionsFeatureParts {
  jwtCookieName: string;
  signing: SigningConfig | undefined;
  /** The second factor's loader, when the `mfa` option is set. */
  mfa: Mfa | undefined;
}

/**
 * The features of one configuration, in the order their gates run: the application's (`features`), then
 * the built-in ones the options turn on: the session list and the key set always (the key set answers
 * 404 without `signing`), the second factor with `mfa`. Checked as one set: names, prefixes, events.
 */
export function configuredFeatures(own: readonly FeatureModule[], p: BuiltInParts): FeatureModule[] {
  const all = [...own, sessionsFeature(p), jwksFeature(p.authRoutePath, p.signing)];
  if (p.mfa) all.push(mfaFeature(p.mfa, p.jwtCookieName));
  checkFeatureSet(all);
  return all;
}
