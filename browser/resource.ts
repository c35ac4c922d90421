/**
 * The resource tree: the root client, child resources added with `add`, and the verb
 * functions hung on them. Internal state lives under a symbol so that any name can be a
 * resource or verb except the handful of public members.
 */
import { RestClientError } from './errors.js';
import { resolve, validate } from './options.js';
import { perform, type VerbContext } from './request.js';
import { idRange, template, type Level } from './url.js';
import type { ResponseCache } from './cache.js';
import type { JQueryLike, ResolvedOptions, ResourceBase, RestOptions, RestPromise, Verb } from './types.js';

const STATE = Symbol('jquery.rest.state');

interface State {
  readonly $: JQueryLike;
  readonly base: string;
  readonly levels: readonly Level[];
  readonly cache: ResponseCache;
  readonly verbNames: string[];
  readonly childNames: string[];
}

/** Everything the root needs to start a tree. */
export interface RootInit {
  readonly $: JQueryLike;
  readonly base: string;
  readonly opts: ResolvedOptions;
  readonly cache: ResponseCache;
}

/** A node of the tree. `$.RestClient` extends it for the root. */
export class ResourceNode implements ResourceBase {
  declare readonly name: string;
  declare readonly url: string;
  declare readonly opts: ResolvedOptions;
  declare readonly parent: ResourceNode | null;
  declare readonly root: ResourceNode;
  declare readonly cache: ResponseCache;
  declare readonly idCount: number;
  declare private readonly [STATE]: State;

  /** Internal: build the root (parent null) or a child. Use `new $.RestClient` and `add`. */
  constructor(init: RootInit | { parent: ResourceNode; name: string; opts: ResolvedOptions }) {
    const parent = 'parent' in init ? init.parent : null;
    const name = parent ? (init as { name: string }).name : 'ROOT';
    const ps = parent?.[STATE];
    const state: State = parent
      ? {
          $: ps!.$,
          base: ps!.base,
          levels: [...ps!.levels, { segment: init.opts.url || name, single: init.opts.isSingle }],
          cache: ps!.cache,
          verbNames: [],
          childNames: [],
        }
      : { ...(init as RootInit), levels: [], verbNames: [], childNames: [] };
    const fixed = (key: string, value: unknown) =>
      Object.defineProperty(this, key, { value, enumerable: false, writable: false, configurable: false });
    Object.defineProperty(this, STATE, { value: state });
    fixed('name', name);
    fixed('url', template(state.base, state.levels));
    fixed('opts', init.opts);
    fixed('parent', parent);
    fixed('root', parent ? parent.root : this);
    fixed('cache', state.cache);
    fixed('idCount', idRange(state.levels).max);
    if (parent) {
      for (const [verb, method] of Object.entries(init.opts.verbs)) this.makeVerb(verb, method, init.opts, undefined);
    }
  }

  /** Adds a child resource under `name` (also stored as that property) and returns it. */
  add(name: string, options?: RestOptions): ResourceNode {
    if (typeof name !== 'string' || name === '') throw new RestClientError('invalid_name', `'name' must be a string`);
    const own = validate(options);
    if (name in this) throw new RestClientError('name_taken', `Cannot add Resource: '${name}' already exists`);
    const child = new ResourceNode({ parent: this, name, opts: resolve(this.opts, own) });
    Object.defineProperty(this, name, { value: child, enumerable: true, writable: false, configurable: true });
    this[STATE].childNames.push(name);
    return child;
  }

  /** Adds a custom verb: its url segment (options.url or the name) follows the resource path. */
  addVerb(name: string, method: string, options?: RestOptions): Verb {
    if (typeof name !== 'string' || name === '') throw new RestClientError('invalid_name', `'name' must be a string`);
    if (typeof method !== 'string' || method === '')
      throw new RestClientError('invalid_method', `'method' must be a string`);
    if (name === 'delete')
      throw new RestClientError('invalid_name', `Cannot add Verb: 'delete' is disabled, use 'destroy' or 'del'`);
    const own = validate(options);
    if (name in this) throw new RestClientError('name_taken', `Cannot add Verb: '${name}' already exists`);
    const opts = resolve(this.opts, own);
    return this.makeVerb(name, method.toUpperCase(), opts, opts.url || name);
  }

  /** Prints the tree to the console, one line per resource and verb, and returns the text. */
  show(): string {
    const lines: string[] = [];
    const walk = (node: ResourceNode, depth: number) => {
      const pad = '  '.repeat(depth);
      lines.push(`${pad}${node.name}: ${node.url}`);
      const state = node[STATE];
      // Verbs and children are the node's own properties, named in its state.
      const props = node as unknown as Record<string, unknown>;
      for (const verb of state.verbNames) lines.push(`${pad}  ${verb}: ${(props[verb] as Verb).method}`);
      for (const child of state.childNames) walk(props[child] as ResourceNode, depth + 1);
    };
    walk(this, 0);
    for (const line of lines) console.log(line);
    return lines.join('\n');
  }

  /** The resource's name. */
  toString(): string {
    return this.name;
  }

  private makeVerb(name: string, method: string, opts: ResolvedOptions, segment: string | undefined): Verb {
    const state = this[STATE];
    if (name in this) throw new RestClientError('name_taken', `Cannot add Verb: '${name}' already exists`);
    const ctx: VerbContext = {
      $: state.$,
      base: state.base,
      levels: state.levels,
      cache: state.cache,
      resource: this,
      method,
      segment,
      opts,
    };
    const verb = function (...args: unknown[]): RestPromise {
      return perform(ctx, args);
    } as Verb;
    Object.defineProperties(verb, {
      verbName: { value: name },
      method: { value: method },
      custom: { value: segment !== undefined },
      opts: { value: opts },
    });
    const define = (key: string) =>
      Object.defineProperty(this, key, { value: verb, enumerable: true, writable: false, configurable: true });
    define(name);
    state.verbNames.push(name);
    if (name === 'destroy' && !('del' in this)) define('del');
    return verb;
  }
}
