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

/**
 * A sample is authkoa's when the nearest authkoa frame on its stack is not followed, leafward, by Koa's
 * `dispatch`: that is where `next()` hands the request to the application's own middleware and handlers.
 * So the route handler behind `auth` counts as the application's, and Koa's `ctx.get` called by authkoa
 * counts as authkoa's. GC and `(program)` samples have no stack and count only in the denominator.
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
      if (frame.functionName === 'dispatch' && frame.url.includes('koa-compose')) break;
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
