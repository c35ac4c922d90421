import { MissingPackageError } from './optional.js';
import { NameTable, type Loader } from './table.js';

/**
 * The scheme tables of the two store plug-in points, avatar stores and state stores: a NameTable whose
 * rows are URI schemes and which reads its own URIs. A URI is parsed once, without loading any backend,
 * into a BackendTarget; loading and opening take that target. The two tables differ only in their rows
 * and in the wording of their messages (SchemeRules), which name the option and the scheme and never
 * the URI, since it may carry a password.
 */

/** A store URI as parse() read it: the backend that opens it, the path for a path scheme, and the URI as given. */
export interface BackendTarget {
  /** The row that opens it: a built-in backend (`bolt://` opens `lmdb`) or a registered scheme. */
  readonly kind: string;
  /**
   * For a path scheme, the text after `://` (`lmdb://var/x` is relative, `lmdb:///var/x` absolute), or a plain path.
   */
  readonly path?: string;
  /** The URI as given. */
  readonly uri: string;
}

/** What sets one table's URIs apart. */
export interface SchemeRules<S> {
  /** Built-in schemes that open another row's backend, by that row: `bolt` → `lmdb`. */
  readonly aliases: Readonly<Record<string, string>>;
  /** Backends whose URI is a path. */
  readonly pathKinds: readonly string[];
  /** The backend of a text without `scheme://`; without one, such a text is refused. */
  readonly plainPath?: string;
  /** Whether a value is a store of this table's kind. */
  isStore(value: unknown): value is S;
  /** The schemes as a message lists them after "unsupported scheme". */
  list(names: readonly string[]): string;
  /** An empty (or refused scheme-less) URI. */
  expected(option: string, names: readonly string[]): string;
  /** A value that is neither a URI nor a store. */
  notStore(option: string): string;
  /** What an opener must return, as its message says it. */
  readonly openerReturns: string;
}

/** A table of URI schemes → openers (`O`) of stores (`S`). */
export class SchemeTable<O, S> extends NameTable<O> {
  readonly #rules: SchemeRules<S>;
  /** The targets parse() made: an object passed in as a store is never taken for one. */
  readonly #targets = new WeakSet<object>();

  constructor(what: string, call: string, builtins: Readonly<Record<string, Loader<O>>>, rules: SchemeRules<S>) {
    super(what, call, builtins);
    this.#rules = rules;
  }

  /** Reads `uri` into a target, or throws a TypeError naming `option` (and the scheme, when it is the problem). */
  parse(uri: string, option: string): BackendTarget {
    const rules = this.#rules;
    if (typeof uri !== 'string' || uri.trim() === '') throw new TypeError(rules.expected(option, this.names()));
    const { scheme, rest } = splitUri(uri);
    if (scheme === undefined) {
      if (rules.plainPath === undefined) throw new TypeError(rules.expected(option, this.names()));
      return this.#made({ kind: rules.plainPath, path: uri, uri });
    }
    if (!this.has(scheme)) {
      throw new TypeError(
        `authKoa: ${option} has unsupported scheme "${scheme}://" (${rules.list(this.names())}, or ${this.call} one)`,
      );
    }
    const kind = Object.hasOwn(rules.aliases, scheme) ? rules.aliases[scheme] : scheme;
    if (!rules.pathKinds.includes(kind)) return this.#made({ kind, uri });
    if (rest === '') throw new TypeError(`authKoa: ${option} with scheme "${scheme}://" needs a path after the scheme`);
    return this.#made({ kind, path: rest, uri });
  }

  /** True for a target this table's parse() made. */
  isTarget(value: unknown): value is BackendTarget {
    return this.#targets.has(value as object);
  }

  /** A store option checked: a URI is parsed, a target or a store passes; anything else throws naming `option`. */
  source(value: string | BackendTarget | S, option: string): BackendTarget | S {
    if (typeof value === 'string') return this.parse(value, option);
    if (this.isTarget(value) || this.#rules.isStore(value)) return value;
    throw new TypeError(this.#rules.notStore(option));
  }

  /**
   * Loads the target's opener (its backend module, on first use). A backend whose package is not installed
   * is said naming `option`, the one the user set (`accounts.links`, `--store`), not the row's own wording.
   */
  loadFor(target: BackendTarget, option: string): Promise<O> {
    return this.load(target.kind).catch((err: unknown) => {
      if (err instanceof MissingPackageError)
        throw new MissingPackageError(err.packageName, `${option} ${target.kind}://`);
      throw err;
    });
  }

  /**
   * Loads the target's opener (loadFor), lets `open` call it, and checks that what came back is a store:
   * a registered opener is third-party code.
   */
  async open(target: BackendTarget, option: string, open: (opener: O) => unknown): Promise<S> {
    const store = await open(await this.loadFor(target, option));
    if (!this.#rules.isStore(store))
      throw new TypeError(
        `authKoa: ${option}: the "${target.kind}://" opener did not return ${this.#rules.openerReturns}`,
      );
    return store;
  }

  #made(target: BackendTarget): BackendTarget {
    this.#targets.add(Object.freeze(target));
    return target;
  }
}

/**
 * `scheme://rest` split, the scheme lower-cased as the tables key it; a text without `scheme://` (a plain path) has
 * none.
 */
export function splitUri(uri: string): { scheme: string | undefined; rest: string } {
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(uri);
  return m ? { scheme: m[1].toLowerCase(), rest: uri.slice(m[0].length) } : { scheme: undefined, rest: uri };
}

/** A URI scheme as the tables key it: letters, digits, `+`, `.` and `-`, starting with a letter, lower case. */
const SCHEME_NAME = /^[a-z][a-z0-9+.-]*$/;

/** The scheme given to `call` (registerStore(), registerStateStore()), checked and lower-cased. */
export function schemeName(call: string, scheme: unknown): string {
  if (typeof scheme !== 'string' || !SCHEME_NAME.test(scheme.toLowerCase())) {
    throw new TypeError(`${call} requires a URI scheme such as "s3" (letters, digits, '+', '.', '-'), without "://"`);
  }
  return scheme.toLowerCase();
}
