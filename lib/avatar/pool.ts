import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { ResizeResult, ResizeTask } from './worker.js';

interface Job {
  task: ResizeTask;
  resolve: (data: Buffer) => void;
  reject: (err: Error) => void;
}

interface Slot {
  worker: Worker;
  job?: Job;
  timer?: NodeJS.Timeout;
}

/**
 * A small pool of worker threads that decode and resize images with jimp, one job per worker at a
 * time, the rest queued. Workers start on first use and are unref'd while idle, so an unused pool
 * keeps neither CPU nor the process alive. A job over its time limit kills its worker (jimp cannot be
 * interrupted otherwise); the next job starts a fresh one.
 */
export class ResizePool {
  readonly #size: number;
  readonly #timeoutMs: number;
  readonly #slots: Slot[] = [];
  readonly #queue: Job[] = [];
  #nextId = 1;
  #closed = false;

  constructor(size = Math.max(1, Math.min(2, availableParallelism() - 1)), timeoutMs = 30_000) {
    this.#size = size;
    this.#timeoutMs = timeoutMs;
  }

  /** Jobs queued or running: lets callers (and tests) see work in flight. */
  get pending(): number {
    return this.#queue.length + this.#slots.filter((s) => s.job).length;
  }

  /** Resizes `image` so its longer side is `limit`; resolves to PNG bytes. */
  resize(image: Buffer, limit: number): Promise<Buffer> {
    if (this.#closed) return Promise.reject(new Error('resize pool is closed'));
    return new Promise((resolve, reject) => {
      const data = new Uint8Array(image); // a copy the worker may own
      this.#queue.push({ task: { id: this.#nextId++, data, limit }, resolve, reject });
      this.#dispatch();
    });
  }

  /** Stops every worker; queued and running jobs reject. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const job of this.#queue.splice(0)) job.reject(new Error('resize pool is closed'));
    await Promise.all(this.#slots.splice(0).map((s) => this.#kill(s, new Error('resize pool is closed'))));
  }

  #dispatch(): void {
    while (this.#queue.length > 0) {
      let slot = this.#slots.find((s) => !s.job);
      if (!slot) {
        if (this.#slots.length >= this.#size) return;
        slot = this.#spawn();
      }
      const job = this.#queue.shift()!;
      slot.job = job;
      slot.worker.ref();
      slot.timer = setTimeout(() => void this.#fail(slot, new Error('resize timed out')), this.#timeoutMs);
      slot.worker.postMessage(job.task, [job.task.data.buffer as ArrayBuffer]);
    }
  }

  #spawn(): Slot {
    const slot: Slot = { worker: startWorker() };
    slot.worker.on('message', (result: ResizeResult) => {
      const job = slot.job;
      if (!job || job.task.id !== result.id) return;
      clearTimeout(slot.timer);
      slot.job = undefined;
      slot.worker.unref();
      if (result.ok) job.resolve(Buffer.from(result.data.buffer, result.data.byteOffset, result.data.byteLength));
      else job.reject(new Error(result.error));
      this.#dispatch();
    });
    slot.worker.on('error', (err) => void this.#fail(slot, err));
    slot.worker.on('exit', () => void this.#fail(slot, new Error('resize worker exited')));
    slot.worker.unref();
    this.#slots.push(slot);
    return slot;
  }

  /** Drops a broken or stuck worker, rejects its job, and lets the queue go on with a new one. */
  async #fail(slot: Slot, err: Error): Promise<void> {
    const i = this.#slots.indexOf(slot);
    if (i < 0) return;
    this.#slots.splice(i, 1);
    await this.#kill(slot, err);
    if (!this.#closed) this.#dispatch();
  }

  async #kill(slot: Slot, err: Error): Promise<void> {
    clearTimeout(slot.timer);
    const job = slot.job;
    slot.job = undefined;
    job?.reject(err);
    slot.worker.removeAllListeners('exit');
    await slot.worker.terminate();
  }
}

/**
 * Starts a worker from the sibling module. Compiled (dist/), that is worker.js. Under tsx (tests,
 * `node --import=tsx`), worker.ts: on Node 20 a worker does not inherit the `--import` hook, so a
 * tiny bootstrap registers tsx inside the worker before importing it.
 */
function startWorker(): Worker {
  const opts = { execArgv: process.execArgv, resourceLimits: { maxOldGenerationSizeMb: 512 } };
  if (import.meta.url.endsWith('.ts')) {
    const file = new URL('./worker.ts', import.meta.url).href;
    const tsx = import.meta.resolve('tsx/esm/api');
    const boot =
      `import(${JSON.stringify(tsx)}).then((m) => { m.register(); ` + `return import(${JSON.stringify(file)}); });`;
    return new Worker(boot, { ...opts, eval: true });
  }
  return new Worker(new URL('./worker.js', import.meta.url), opts);
}
