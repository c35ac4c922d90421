import { builtinNames, registerProvider } from '../registry.js';
import { directProvider } from './direct.js';
import { verifiedProvider } from './verified.js';
import { catalogNames, socialProvider } from './catalog.js';
import { oauth2Provider } from './custom.js';
import { devProvider } from './dev.js';
import { oidcProvider } from './oidc.js';
import { telegramProvider } from './telegram.js';
import { serverProvider } from './server-provider.js';
import { appleProvider } from './apple.js';

/**
 * The provider kinds that ship with authkoa, registered once at import. Built-in names map to the
 * kind that serves them, so `{ name: 'github', cid, csecret }` needs no kind.
 */
registerProvider(directProvider);
registerProvider(verifiedProvider);
registerProvider(socialProvider);
registerProvider(oauth2Provider);
registerProvider(devProvider);
registerProvider(oidcProvider);
registerProvider(telegramProvider);
registerProvider(serverProvider);
registerProvider(appleProvider);
for (const [name, preset] of Object.entries(catalogNames)) builtinNames.set(name, { kind: 'social', preset });
builtinNames.set('dev', { kind: 'dev' });
builtinNames.set('apple', { kind: 'apple' });

export { directProvider, type DirectProviderOptions } from './direct.js';
export { verifiedProvider, type VerifiedProviderOptions, type VerifiedRateLimit } from './verified.js';
export { emailSender, isEmailAddress, type EmailSender, type EmailSenderOptions } from './email.js';
export type { Sender, SenderFunc } from './sender.js';
export { socialProvider, catalog, type SocialProviderOptions } from './catalog.js';
export { oauth2Provider, type OAuth2ProviderOptions, type MappedUser } from './custom.js';
export { devProvider, runDevOAuthServer, startDevOAuthServer, type DevProviderOptions, type DevOAuthServer, type DevOAuthServerOptions } from './dev.js';
export { oidcProvider, type OIDCProviderOptions } from './oidc.js';
export { telegramProvider, type TelegramProviderOptions, type TelegramWebhookOptions } from './telegram.js';
export { serverProvider, type ServerProviderOptions } from './server-provider.js';
export { startOAuth2Server, type OAuth2Server, type OAuth2ServerOptions, type OAuth2ServerClient, type ServerUser, type ServerChecker, type LoginPage, type LoginPageHandler } from './server.js';
export { appleProvider, APPLE_ISSUER, type AppleProviderOptions } from './apple.js';
export { builtinNames };
