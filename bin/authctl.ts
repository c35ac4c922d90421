#!/usr/bin/env node
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Command, CommanderError } from 'commander';
import { auditCommand } from './commands/audit.js';
import { avatarsCommand } from './commands/avatars.js';
import { botCommand } from './commands/bot.js';
import { demoCommand } from './commands/demo.js';
import { devOauthCommand } from './commands/dev-oauth.js';
import { keysCommand } from './commands/keys.js';
import { dbCommand } from './commands/db.js';
import { openapiCommand } from './commands/openapi.js';
import { mfaCommand } from './commands/mfa.js';
import { oauthCommand } from './commands/oauth.js';
import { secretCommand } from './commands/secret.js';
import { passkeysCommand } from './commands/passkeys.js';
import { sessionsCommand } from './commands/sessions.js';
import { accountsCommand } from './commands/accounts.js';
import { tokensCommand } from './commands/tokens.js';
import { webhooksCommand } from './commands/webhooks.js';

/** The package's version, found by walking up from this file (bin/ under tsx, dist/bin/ when built). */
function packageVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'authkoa') return pkg.version ?? '0.0.0';
    }
    dir = dirname(dir);
  }
  return '0.0.0';
}

const program = new Command('authctl')
  .description(
    'chores around authkoa: secrets, signing keys, database tables, the OpenAPI description, avatar stores, sessions, accounts, personal tokens, passkeys, second factors, OAuth clients and grants, the dev OAuth2 server, the Telegram poller, the demo app',
  )
  .version(packageVersion(), '-V, --version')
  .showHelpAfterError('(run authctl --help for usage)')
  .option(
    '-r, --require <module>',
    'import this module first, e.g. one that calls registerStore() for its own scheme (repeatable)',
    (m: string, all: string[]) => [...all, m],
    [] as string[],
  )
  .hook('preAction', async () => {
    for (const spec of program.opts<{ require?: string[] }>().require ?? []) await importPlugin(spec);
  })
  .exitOverride();

/** Imports a plug-in module: a path is taken from the working directory, a package name resolved from it. */
async function importPlugin(spec: string): Promise<void> {
  const cwd = process.cwd();
  let file: string;
  try {
    file =
      spec.startsWith('.') || isAbsolute(spec)
        ? resolve(cwd, spec)
        : createRequire(join(cwd, 'package.json')).resolve(spec);
  } catch {
    throw new Error(`--require: cannot find module ${spec}`);
  }
  try {
    await import(pathToFileURL(file).href);
  } catch (err) {
    throw new Error(`--require ${spec}: ${(err as Error).message ?? String(err)}`);
  }
}

program.addCommand(secretCommand());
program.addCommand(keysCommand());
program.addCommand(demoCommand());
program.addCommand(devOauthCommand());
program.addCommand(avatarsCommand());
program.addCommand(botCommand());
program.addCommand(sessionsCommand());
program.addCommand(accountsCommand());
program.addCommand(tokensCommand());
program.addCommand(passkeysCommand());
program.addCommand(mfaCommand());
program.addCommand(oauthCommand());
program.addCommand(dbCommand());
program.addCommand(openapiCommand());
program.addCommand(auditCommand());
program.addCommand(webhooksCommand());

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) process.exit(err.exitCode);
  // One line, no stack: CLI users need the reason, not our internals.
  process.stderr.write(`authctl: ${(err as Error).message ?? String(err)}\n`);
  process.exit(1);
}
