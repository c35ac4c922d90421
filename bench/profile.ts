/**
 * authkoa's share of a server's CPU under HTTP load, read from a sampling profile of that server taken
 * while it serves the measured requests. A ratio inside one process over one window, it does not move when
 * the machine as a whole speeds up or slows down, which is what makes two back-to-back HTTP runs on a
 * shared VM disagree by ±30 %.
 */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface Share {
  /** Time in authkoa's own code (and what it called) ÷ the server's busy time. */
  share: number;
  /** The throughput ratio that share implies: 1 − share. */
  expectedRatio: number;
  samples: number;
}

const IDLE = new Set(['(idle)']);

/** Code authkoa itself calls while handling a request: native and node internals, Koa's accessors. */
function calledByAuthkoa(url: string): boolean {
  return (
    url === '' ||
    url.startsWith('node:') ||
    url.includes('/node_modules/koa/') ||
    url.includes('/node_modules/delegates/')
  );
}

/**
 * A sample is authkoa's when, walking its stack from the leaf towards the root, an authkoa frame comes
 * before any frame of someone else's JavaScript: what authkoa calls on a request is Koa's request and
 * response accessors, `delegates` and node itself, so frames of those may sit between; a frame of the
 * router, of koa-compose or of the application means authkoa called `next()` and the sample belongs to
 * whoever it handed the request to. (A list of what `next()` runs would not do: the optimiser inlines
 * koa-compose's `dispatch` and drops it from the stack.) GC and `(program)` samples have no stack and
 * count only in the denominator.
 */
export function authkoaShare(profile: CpuProfile, libUrlPrefix: string): Share {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const verdict = new Map<number, boolean>();
  const ours = (id: number): boolean => {
    const known = verdict.get(id);
    if (known !== undefined) return known;
    let result = false;
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)!.callFrame;
      if (frame.url.startsWith(libUrlPrefix)) {
        result = true;
        break;
      }
      if (!calledByAuthkoa(frame.url)) break;
    }
    verdict.set(id, result);
    return result;
  };
  let busy = 0;
  let mine = 0;
  profile.samples.forEach((id, i) => {
    if (IDLE.has(byId.get(id)!.callFrame.functionName)) return;
    const dt = profile.timeDeltas[i] ?? 0;
    busy += dt;
    if (ours(id)) mine += dt;
  });
  const share = busy > 0 ? mine / busy : 0;
  return { share, expectedRatio: 1 - share, samples: profile.samples.length };
}
