/**
 * Optional peer dependencies (mongodb, node-telegram-bot-api, nodemailer, jimp, koa-session, …) are loaded
 * through here, so a feature whose package is not installed fails with one line that names the package and
 * the command that installs it, instead of a resolver stack trace from deep inside.
 */

/** Thrown (or rejected) when a configured feature needs a package that is not installed. */
export class MissingPackageError extends Error {
  readonly code = 'ERR_AUTHKOA_MISSING_PACKAGE';
  constructor(
    readonly packageName: string,
    feature: string,
  ) {
    super(`authKoa: ${feature} needs the package "${packageName}", which is not installed: npm install ${packageName}`);
    this.name = 'MissingPackageError';
    // One line when printed (an unhandled start-up rejection prints the stack): the frames would only
    // show the module resolver.
    this.stack = `${this.name}: ${this.message}`;
  }
}

/** True when `err` is the resolver failing to find `pkg` itself (not a file inside it, not another package). */
export function isMissingPackage(err: unknown, pkg: string): boolean {
  const e = err as { code?: string; message?: string } | null;
  if (!e || (e.code !== 'ERR_MODULE_NOT_FOUND' && e.code !== 'MODULE_NOT_FOUND')) return false;
  return typeof e.message === 'string' && (e.message.includes(`'${pkg}'`) || e.message.includes(`"${pkg}"`));
}

/**
 * Runs `load` (a dynamic import of an authkoa module that imports `pkg` statically) and turns a
 * missing `pkg` into a MissingPackageError naming `feature`; every other failure passes through.
 */
export async function loadWithPackage<T>(pkg: string, feature: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (err) {
    if (isMissingPackage(err, pkg)) throw new MissingPackageError(pkg, feature);
    throw err;
  }
}
