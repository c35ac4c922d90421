/**
 * A typed name for a service a feature offers the provider kinds built on it (Feature.provides): declared where it is
 * consumed (the `oidc` kind's session ender) or beside the kind that asks (the accounts' `password`), so the kind
 * gets the service's type from the key, with no cast, and the offering feature is type-checked against it.
 */
export interface ServiceKey<T> {
  /** What the service is, in messages. */
  readonly name: string;
  /** The service's type; never set (the key carries it for the compiler only). */
  readonly type?: T;
}

/** A new key: two keys of one name are still two keys (a service is found by its key object). */
export function serviceKey<T>(name: string): ServiceKey<T> {
  return Object.freeze({ name });
}

/** A service offered under a key (Feature.provides). */
export interface Provision<T = unknown> {
  readonly key: ServiceKey<T>;
  readonly service: T;
}

/** Offers `service` under `key`: its type is checked against the key's. */
export function provide<T>(key: ServiceKey<T>, service: NoInfer<T>): Provision<T> {
  return { key, service };
}
