import { builtinNames, registerProvider } from '../registry.js';
import { directProvider } from './direct.js';
import { verifiedProvider } from './verified.js';

/**
 * The provider kinds that ship with authkoa, registered once at import. Built-in names map to the
 * kind that serves them, so `{ name: 'github', cid, csecret }` needs no kind.
 */
registerProvider(directProvider);
registerProvider(verifiedProvider);

export { directProvider, type DirectProviderOptions } from './direct.js';
export { verifiedProvider, type VerifiedProviderOptions, type VerifiedRateLimit } from './verified.js';
export { emailSender, isEmailAddress, type EmailSender, type EmailSenderOptions } from './email.js';
export type { Sender, SenderFunc } from './sender.js';
export { builtinNames };
