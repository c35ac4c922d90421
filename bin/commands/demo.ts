import { Command } from 'commander';
import { port } from './args.js';

/** `authctl demo`: runs the reference application (the one `npm start` runs) until Ctrl-C. */
export function demoCommand(): Command {
  return new Command('demo')
    .description('run the reference application with embedded defaults')
    .option('-p, --port <n>', 'port of the application', port, Number(process.env.PORT ?? 8080))
    .option('--host <host>', 'address to listen on', process.env.HOST ?? '127.0.0.1')
    .option('--dev-port <n>', 'port of the dev OAuth2 server', port, Number(process.env.DEV_PORT ?? 8084))
    .option(
      '--var <dir>',
      "the demo's own folder for its secret and stores (not ./var, which your app may use)",
      process.env.AUTHKOA_VAR ?? './var/authkoa-demo',
    )
    .action(async (opts: { port: number; devPort: number; host: string; var: string }) => {
      // Loaded here, not at the top: every other authctl command would otherwise pay for the whole app.
      const { startExample } = await import('../../example/app.js');
      const running = await startExample({
        port: opts.port,
        devPort: opts.devPort,
        host: opts.host,
        varDir: opts.var,
        log: (m) => process.stdout.write(m + '\n'),
      });
      const stop = () => {
        running.close().then(
          () => process.exit(0),
          () => process.exit(1),
        );
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
}
