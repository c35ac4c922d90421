import { builtIn } from '../features/built-in.js';
import { MFA_EVENTS, MFA_NEEDS, mfaFeature } from './feature.js';
import { readMfaOptions, type MfaConfig } from './options.js';

/** The second factor, with the `mfa` option: the feature table's row (core/features.ts). */
export const mfa = builtIn({
  name: 'mfa',
  option: 'mfa',
  read: (input, context): MfaConfig | undefined => readMfaOptions(input, context),
  events: MFA_EVENTS,
  shortcut: ['status', 'reset', 'clear'],
  needs: MFA_NEEDS,
  module: (config: MfaConfig, has) => mfaFeature(config, has),
});
