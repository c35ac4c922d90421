import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AuthKoaOptions } from '../../lib/index.js';

/**
 * The options a config module exports: `export default { secret, url, providers, … }` (the object
 * authKoa() takes), or a function returning it (possibly async).
 */
export async function loadConfig(file: string): Promise<AuthKoaOptions> {
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
