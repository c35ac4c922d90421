import { open, type RootDatabase } from 'lmdb';

/**
 * Opens an LMDB environment the way authkoa's two LMDB backends (avatars, state) need it: shared by
 * several processes on one host (app workers, `authctl`). lmdb-js turns on `overlappingSync` by default,
 * which finishes each commit's meta-page update after the writer lock is released. Under load (two busy
 * loops and the whole suite) our two-process avatar test failed once in ten runs with `MDB_BAD_TXN:
 * mdb_page_touch no parent`: a writer met pages stamped with its own transaction id, i.e. it had started
 * from an older meta page than the last commit. Without `overlappingSync`, LMDB commits and syncs inside
 * the writer lock, its long-standing multi-process path; the price is one fsync per write transaction.
 * The first process to open an environment fixes its flags: the others follow it.
 */
export function openLmdbEnv(path: string, maxDbs: number): RootDatabase {
  return open({ path, maxDbs, overlappingSync: false });
}
