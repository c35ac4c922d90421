import { Command, InvalidArgumentError } from 'commander';
import { stdLogger } from '../../lib/logger.js';
import { runDevOAuthServer } from '../../lib/providers/dev.js';
import { devEndpoints } from '../../lib/providers/oauth2-server/dev.js';
import { port } from './args.js';

function domain(value: string): string {
  if (!/^[A-Za-z0-9.-]+$/.test(value)) throw new InvalidArgumentError('must be a domain name');
  return value;
}

function origin(value: string, previous: string[] = []): string[] {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new InvalidArgumentError('must be an origin such as http://localhost:8080');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new InvalidArgumentError('must be an http(s) origin');
  return [...previous, u.origin];
}

/**
 * `authctl dev-oauth [--port N] [--host H] [--email-domain D] [--allow-origin O]…`: runs the
 * development OAuth2 server alone until Ctrl-C, for applications that configure it as a custom
 * oauth2 provider or run in another process. Refuses to start with NODE_ENV=production.
 */
export function devOauthCommand(): Command {
  return new Command('dev-oauth')
    .description('run the development-only OAuth2 server (any user name logs in) until Ctrl-C')
    .option('-p, --port <n>', 'port to listen on (0 picks a free one)', port, 8084)
    .option('-H, --host <host>', 'interface to listen on', '127.0.0.1')
    .option('-e, --email-domain <domain>', 'give users an email address <name>@<domain>', domain)
    .option(
      '-o, --allow-origin <origin>',
      'origin redirect_uri may point at (repeatable; default: any loopback host)',
      origin,
    )
    .action(async (opts: { port: number; host: string; emailDomain?: string; allowOrigin?: string[] }) => {
      await runDevOAuthServer({
        port: opts.port,
        host: opts.host,
        emailDomain: opts.emailDomain,
        redirectOrigins: opts.allowOrigin,
        logger: stdLogger,
        onListening: (url) => {
          process.stdout.write(`dev OAuth2 server listening on ${url}\n`);
          const ep = devEndpoints(url);
          process.stdout.write(`  authorize ${ep.authURL}\n  token     ${ep.tokenURL}\n  user info ${ep.infoURL}\n`);
        },
      });
      process.stdout.write('dev OAuth2 server stopped\n');
    });
}
