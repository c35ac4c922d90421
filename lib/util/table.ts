/**
 * A table of names → implementations for the plug-in points (provider kinds, store schemes, state
 * schemes): fixed built-in rows that load their module on first use, plus rows third-party code adds.
 * Each table lives beside what it loads; registry.ts is where applications add rows.
 */

type Loader<T> = () => Promise<T>;

/** One table: fixed built-in loaders plus what register*() added. */
export class NameTable<T> {
  private readonly added = new Map<string, T>();

  constructor(
    private readonly what: string,
    private readonly call: string,
    private readonly builtins: Readonly<Record<string, Loader<T>>>,
  ) {}

  /** Adds a row; adding the same value again is a no-op (a module imported twice), a different one is an error. */
  add(name: string, value: T): void {
    if (Object.hasOwn(this.builtins, name)) throw new TypeError(`${this.call}: ${this.what} "${name}" is built in and cannot be replaced`);
    const had = this.added.get(name);
    if (had !== undefined && had !== value) throw new TypeError(`${this.call}: ${this.what} "${name}" is already registered with another implementation`);
    this.added.set(name, value);
  }

  has(name: string): boolean {
    return Object.hasOwn(this.builtins, name) || this.added.has(name);
  }

  /** The implementation for `name`, loading a built-in on first use (the module cache keeps it). */
  async load(name: string): Promise<T> {
    const added = this.added.get(name);
    if (added !== undefined) return added;
    const builtin = Object.hasOwn(this.builtins, name) ? this.builtins[name] : undefined;
    if (!builtin) throw new TypeError(`${this.what} "${name}" is not registered`);
    return builtin();
  }

  names(): string[] {
    return [...Object.keys(this.builtins), ...this.added.keys()];
  }
}

/** `scheme://rest` split, the scheme lower-cased as the registries key it; a text without `scheme://` (a plain path) has none. */
export function splitUri(uri: string): { scheme: string | undefined; rest: string } {
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(uri);
  return m ? { scheme: m[1]!.toLowerCase(), rest: uri.slice(m[0].length) } : { scheme: undefined, rest: uri };
}

/** A URI scheme as the registries key it: letters, digits, `+`, `.` and `-`, starting with a letter, lower case. */
const SCHEME_NAME = /^[a-z][a-z0-9+.-]*$/;

export function schemeName(call: string, scheme: unknown): string {
  if (typeof scheme !== 'string' || !SCHEME_NAME.test(scheme.toLowerCase())) {
    throw new TypeError(`${call} requires a URI scheme such as "s3" (letters, digits, '+', '.', '-'), without "://"`);
  }
  return scheme.toLowerCase();
}
