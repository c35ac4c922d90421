/**
 * A table of names → implementations for the plug-in points (provider kinds, store schemes, state
 * schemes): fixed built-in rows that load their module on first use, plus rows third-party code adds.
 * Each table lives beside what it loads; registry.ts is where applications add rows.
 */

/** Loads a built-in row's implementation (a dynamic import). */
export type Loader<T> = () => Promise<T>;

/** One table: fixed built-in loaders plus what register*() added. */
export class NameTable<T> {
  private readonly added = new Map<string, T>();

  constructor(
    private readonly what: string,
    protected readonly call: string,
    private readonly builtins: Readonly<Record<string, Loader<T>>>,
  ) {}

  /** Adds a row; adding the same value again is a no-op (a module imported twice), a different one is an error. */
  add(name: string, value: T): void {
    if (Object.hasOwn(this.builtins, name))
      throw new TypeError(`${this.call}: ${this.what} "${name}" is built in and cannot be replaced`);
    const had = this.added.get(name);
    if (had !== undefined && had !== value)
      throw new TypeError(`${this.call}: ${this.what} "${name}" is already registered with another implementation`);
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
