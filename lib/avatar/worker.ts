/**
 * Worker thread body: decodes an image with jimp, scales it so the longer side equals the limit
 * (bilinear, aspect kept, as the original) and re-encodes it as PNG. Runs off the main thread so a
 * large picture never stalls other requests. Protocol: ResizeTask in, ResizeResult out.
 */
import { parentPort } from 'node:worker_threads';
import { Jimp, ResizeStrategy } from 'jimp';

export interface ResizeTask {
  id: number;
  data: Uint8Array;
  limit: number;
}

export type ResizeResult =
  { id: number; ok: true; data: Uint8Array; width: number; height: number } | { id: number; ok: false; error: string };

/** New size with the longer side at `limit`, the shorter side scaled and at least 1 px. */
export function targetSize(width: number, height: number, limit: number): { w: number; h: number } {
  if (width >= height) return { w: limit, h: Math.max(1, Math.round((height * limit) / width)) };
  return { w: Math.max(1, Math.round((width * limit) / height)), h: limit };
}

async function resize(task: ResizeTask): Promise<ResizeResult> {
  const image = await Jimp.read(Buffer.from(task.data.buffer, task.data.byteOffset, task.data.byteLength));
  const { w, h } = targetSize(image.width, image.height, task.limit);
  image.resize({ w, h, mode: ResizeStrategy.BILINEAR });
  // A fresh copy: the encoder's Buffer may sit in Node's shared pool, which must not be transferred.
  const out = new Uint8Array(await image.getBuffer('image/png'));
  return { id: task.id, ok: true, data: out, width: w, height: h };
}

parentPort?.on('message', (task: ResizeTask) => {
  resize(task).then(
    (result) => parentPort!.postMessage(result, result.ok ? [result.data.buffer as ArrayBuffer] : []),
    (err: unknown) =>
      parentPort!.postMessage({
        id: task.id,
        ok: false,
        error: String((err as Error)?.message ?? err),
      } satisfies ResizeResult),
  );
});
