/**
 * Loaded with `--import` before bin/authctl.ts: instead of running a command, authctl prints its program
 * definition as JSON (every command and subcommand, their arguments and options) and exits. Read by
 * spec/cli/docs.test.ts, so the docs are checked against the commands authctl really has.
 */
import { Command } from 'commander';

/** @param {Command} command */
function tree(command) {
  return {
    name: command.name(),
    args: command.registeredArguments.map((a) => a.name()),
    options: command.options.map((o) => ({ flags: o.flags, long: o.long ?? null })),
    commands: command.commands.map(tree),
  };
}

Command.prototype.parseAsync = async function () {
  process.stdout.write(JSON.stringify(tree(this)), () => process.exit(0));
  return new Promise(() => {});
};
