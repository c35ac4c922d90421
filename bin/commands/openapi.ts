import { Command } from 'commander';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { authKoa, type AuthKoaOptions } from '../../lib/index.js';

/**
 * The options a config module exports: `export default { secret, url, providers, … }` (the object
 * authKoa() takes), or a function returning it (possibly async).
 */
async function loadConfig(file: string): Promise<AuthKoaOptions> {
  let mod: { default?: unknown };
  try {
    mod = (await import(pathToFileURL(resolve(process.cwd(), file)).href)) as { default?: unknown };
  } catch (err) {
    throw new Error(`--config ${file}: cannot load it (${(err as Error).message})`);
  }
  const exported = typeof mod.default === 'function' ? await (mod.default as () => unknown)() : mod.default;
  if (exported === null || typeof exported !== 'object')
    throw new Error(
      `--config ${file}: its default export must be the authKoa() options (an object, or a function returning one)`,
    );
  return exported as AuthKoaOptions;
}

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
