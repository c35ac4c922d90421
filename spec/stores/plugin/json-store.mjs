// A third-party avatar store as a plug-in author would write one, with no authkoa code in it: every
// avatar in one JSON file. `jsonfile://<path>` names the file. Used by the registry tests.
import { createHash } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';

const AVATAR_ID = /^[0-9a-f]{40}\.image$/;

export function openJsonStore(uri) {
  const file = uri.slice('jsonfile://'.length);
  if (!file) throw new TypeError('jsonfile:// needs a file path');
  const load = async () => JSON.parse(await readFile(file, 'utf8').catch(() => '{}'));
  const save = async (all) => {
    await writeFile(file + '.tmp', JSON.stringify(all));
    await rename(file + '.tmp', file);
  };
  return {
    async put(userId, image) {
      const id = AVATAR_ID.test(userId + '.image')
        ? userId + '.image'
        : createHash('sha1').update(userId).digest('hex') + '.image';
      const all = await load();
      all[id] = { data: image.toString('base64'), modified: Date.now() };
      await save(all);
      return id;
    },
    async get(id) {
      const e = (await load())[id];
      return e
        ? { data: Buffer.from(e.data, 'base64'), etag: createHash('sha1').update(e.data).digest('hex') }
        : undefined;
    },
    async remove(id) {
      const all = await load();
      delete all[id];
      await save(all);
    },
    async *list() {
      for (const [id, e] of Object.entries(await load()))
        yield { id, size: Buffer.from(e.data, 'base64').length, modified: new Date(e.modified) };
    },
    async close() {},
  };
}
