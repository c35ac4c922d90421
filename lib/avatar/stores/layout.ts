import { readdirSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * Which built-in store a folder on disk holds, told by the files each one writes: LMDB's `data.mdb`,
 * the file store's two-digit partition folders. Undefined for a missing, unreadable or empty folder.
 */
export function storeOnDisk(path: string): 'file' | 'lmdb' | undefined {
  let names: string[];
  try {
    names = readdirSync(path);
  } catch {
    return undefined;
  }
  if (names.includes('data.mdb')) return 'lmdb';
  if (names.some((n) => /^\d\d$/.test(n))) return 'file';
  return undefined;
}

/**
 * Says so when a URI names one backend and its folder holds the other: a bare path (a file store) on
 * the demo's LMDB folder would otherwise list zero avatars, and lmdb:// on a file store's folder would
 * write an empty LMDB beside the avatars. The message names the URI that opens what is there.
 */
export function storeMismatch(target: { kind: string; path?: string }): string | undefined {
  if (target.path === undefined || (target.kind !== 'file' && target.kind !== 'lmdb')) return undefined;
  const found = storeOnDisk(target.path);
  if (found === undefined || found === target.kind) return undefined;
  const uri = `${found}://${resolve(target.path)}`;
  return `${target.path} holds ${found === 'lmdb' ? 'an LMDB' : 'a file'} store: use ${uri}`;
}
