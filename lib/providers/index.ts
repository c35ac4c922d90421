import { builtinNames, registerProvider } from '../registry.js';
import { directProvider } from './direct.js';

/**
 * The provider kinds that ship with authkoa, registered once at import. Built-in names map to the
 * kind that serves them, so `{ name: 'github', cid, csecret }` needs no kind.
 */
registerProvider(directProvider);

export { directProvider, type DirectProviderOptions } from './direct.js';
export { builtinNames };
