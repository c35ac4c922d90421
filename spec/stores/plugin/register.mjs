// What `authctl --require` loads: registers the jsonfile:// scheme with the installed authkoa.
import { registerStore } from 'authkoa';
import { openJsonStore } from './json-store.mjs';

registerStore('jsonfile', openJsonStore);
