import { builtIn } from '../features/built-in.js';
import { TOKEN_EVENTS } from './events.js';
import { TOKENS_NEEDS, personalTokensFeature } from './feature.js';
import { readTokensOptions, type PersonalTokensConfig } from './options.js';

/** Personal access tokens, with the `tokens` option: the feature table's row (core/features.ts). */
export const personalTokens = builtIn({
  name: 'tokens',
  option: 'tokens',
  read: (input, context): PersonalTokensConfig | undefined =>
    readTokensOptions(input, { ...context, accounts: context.isSet('accounts') }),
  events: TOKEN_EVENTS,
  joins: { member: 'tokens', methods: ['list', 'revoke'] },
  needs: TOKENS_NEEDS,
  module: (config: PersonalTokensConfig, has) => personalTokensFeature(config, has),
});
