import type { Context } from 'koa';
import { emitOnApp } from '../errors.js';

/**
 * Errors met outside any request (a store that could not be reached at start-up, when the app chose
 * `startWithStoresDown`), waiting for Koa's `app.emit('error', err, ctx)`. A middleware learns its app
 * only from a request's `ctx.app`, so they go out with the next request the instance sees. One list
 * belongs to one instance.
 */
export class PendingAppErrors {
  #errors: Error[] = [];

  /** True while an error waits: the request path's one check. */
  waiting = false;

  add(err: Error): void {
    this.#errors.push(err);
    this.waiting = true;
  }

  /** Emits every waiting error on the request's app, once. */
  flush(ctx: Context): void {
    const errors = this.#errors;
    this.#errors = [];
    this.waiting = false;
    for (const err of errors) emitOnApp(ctx, err);
  }
}
