import { builtIn } from '../features/built-in.js';
import { SESSIONS_NEEDS, sessionsFeature } from './feature.js';

/** The session list, always on: the feature table's row (core/features.ts). */
export const sessions = builtIn({
  name: 'sessions',
  shortcut: ['list', 'revoke'],
  needs: SESSIONS_NEEDS,
  module: (_config: undefined, has) => sessionsFeature(has),
});
