import { FOREVER, type NumberedLog } from './numbered-log.js';

/**
 * When the outbox's waiting messages may next need a look: a lower bound on the due times of the messages tried and
 * failed (their next try) and of those leased (their lease running out, should the process holding it die), kept as
 * one small entry beside the outbox's counters. A look reads it, and passes over the outbox only once the bound has
 * come; a pass sets it to the soonest due time it found. So with messages waiting for a receiver that is down, a
 * look reads a few entries until one of them falls due, not the outbox.
 *
 * Writers only ever lower it (`lower`), before the time they set: a failed try before its next one is due, a lease
 * before it is taken. A pass's new bound must not undo a lowering it did not see: `low` keeps the lowest since the
 * last pass was recorded, and `epoch` counts the passes recorded, so a pass that another one overtook records nothing.
 */
export interface DueBound {
  /** No waiting message is due before this. */
  at: number;
  /** The lowest bound set since the last pass was recorded (FOREVER: none). */
  low: number;
  /** The passes recorded so far. */
  epoch: number;
}

/** The log's counters namespace, where the bound is kept. */
type Counters = Pick<NumberedLog<unknown>, 'counter' | 'update'>;

/** No entry yet (a new outbox, or one an earlier version kept): due now, so the first look passes over it. */
const UNKNOWN: DueBound = { at: 0, low: FOREVER, epoch: 0 };

export class DueSchedule {
  readonly #seq: Counters;

  constructor(seq: Counters) {
    this.#seq = seq;
  }

  async read(): Promise<DueBound> {
    return (await this.#seq.counter<DueBound>('due')) ?? UNKNOWN;
  }

  /** Something waiting may be due at `at`: the bound goes down to it (a read, and a write only when it moves). */
  async lower(at: number): Promise<void> {
    await this.#seq.update<DueBound>('due', (cur = UNKNOWN) =>
      cur.at <= at && cur.low <= at ? undefined : { ...cur, at: Math.min(cur.at, at), low: Math.min(cur.low, at) },
    );
  }

  /**
   * A pass begun at `epoch` found nothing waiting due before `soonest`: the bound goes up to it, or to a lowering
   * made meanwhile; nothing when another pass was recorded since this one began.
   */
  async passed(epoch: number, soonest: number): Promise<void> {
    await this.#seq.update<DueBound>('due', (cur = UNKNOWN) =>
      cur.epoch === epoch ? { at: Math.min(soonest, cur.low), low: FOREVER, epoch: epoch + 1 } : undefined,
    );
  }
}
