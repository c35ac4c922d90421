import { Command } from 'commander';
import { authKoa } from '../../lib/index.js';
import { loadConfig } from './config.js';

/**
 * `authctl openapi --config app.config.js`: the OpenAPI 3.1 document of that configuration, as
 * `auth.openapi()` answers it, on stdout. The instance is started (providers built, stores opened) so
 * the document is the one the app would serve, then closed.
 */
export function openapiCommand(): Command {
  return new Command('openapi')
    .description('print the OpenAPI 3.1 description of the routes a configuration serves')
    .requiredOption('-c, --config <file>', 'a module whose default export is the authKoa() options')
    .option('--compact', 'one line of JSON instead of indented')
    .action(async (opts: { config: string; compact?: boolean }) => {
      const options = await loadConfig(opts.config);
      // The command says a start-up error itself, in one line: the library's own report of it would be a second.
      const auth = authKoa({ ...options, logger: options.logger ?? (() => {}) });
      try {
        const doc = await auth.openapi();
        process.stdout.write(`${JSON.stringify(doc, null, opts.compact ? undefined : 2)}\n`);
      } finally {
        await auth.close();
      }
    });
}
