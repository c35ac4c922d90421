import { builtIn } from '../features/built-in.js';
import { SSF_EVENTS } from './events.js';
import { SSF_NEEDS, ssfFeature } from './feature.js';
import { readSsfOptions, type SsfConfig } from './options.js';

/** The Shared Signals transmitter, with the `ssf` option: the feature table's row (core/features.ts). */
export const ssf = builtIn({
  name: 'ssf',
  option: 'ssf',
  read: (input, context): SsfConfig | undefined =>
    readSsfOptions(input, { ...context, signing: context.isSet('signing') }),
  events: SSF_EVENTS,
  needs: SSF_NEEDS,
  module: (config: SsfConfig, has) => ssfFeature(config, has),
});
