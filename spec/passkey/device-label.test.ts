/**
 * A passkey is listed with the browser it was added from, read from the User-Agent of the request that
 * added it and kept with it: the list reads the same on every device (a laptop's passkey is not "this
 * device" on the phone), and a passkey saved before the label was kept is an unknown device.
 */
import test from 'ava';
import type { ProviderEntry } from '../../lib/index.js';
import { statePasskeyStore } from '../../lib/providers/passkey/store.js';
import { memoryStateStore } from '../../lib/state/memory.js';
import { Browser, DIRECT, LABEL, registerPasskey, startSessionsApp, UA } from '../sessions/fixtures.js';

const PASSKEY = { kind: 'passkey', rpName: 'authkoa tests', userVerification: 'required' } as ProviderEntry;

interface Listed {
  id: string;
  device: string;
}

async function listOn(c: Browser): Promise<Listed[]> {
  const res = await c.fetch('/auth/passkey/list', { headers: c.xsrf() });
  if (res.status !== 200) throw new Error(`list: ${res.status} ${await res.text()}`);
  return (await res.json()) as Listed[];
}

test('each passkey is named by the browser that added it, the same on every device of the user', async (t) => {
  // Adding a passkey ends the user's other sessions at once (endOtherSessionsOnFactorChange), every one issued up
  // to that millisecond: each device logs in after the adds, a second later on the app's clock.
  const app = await startSessionsApp(t, { providers: [DIRECT, PASSKEY] });
  const laptop = await app.login('alice', UA.chromeMac);
  const fromLaptop = await registerPasskey(laptop.c);
  app.clock.advance(1000);
  const phone = await app.login('alice', UA.safariIphone);
  const fromPhone = await registerPasskey(phone.c);
  app.clock.advance(1000);
  const other = await app.login('alice', UA.firefoxLinux);
  const expected = [
    { id: fromLaptop, device: LABEL.chromeMac },
    { id: fromPhone, device: LABEL.safariIphone },
  ];
  for (const c of [phone.c, other.c])
    t.deepEqual(
      (await listOn(c)).map((p) => ({ id: p.id, device: p.device })),
      expected,
      c.userAgent,
    );
});

test('a passkey saved without a label (before it was kept) is listed as an unknown device', async (t) => {
  // The passkeys live in the app's state store (the provider has no `credentials` of its own): written here directly.
  const state = memoryStateStore();
  const app = await startSessionsApp(t, { providers: [DIRECT, PASSKEY], stateStore: state });
  const device = await app.login('alice', UA.edgeWindows);
  const store = statePasskeyStore(state);
  const handle = await store.userHandle(device.userId);
  await store.save({
    id: 'b2xkLXBhc3NrZXk',
    publicKey: 'cHVi',
    counter: 0,
    userId: device.userId,
    userName: 'alice',
    userHandle: handle,
    deviceType: 'singleDevice',
    backedUp: false,
    createdAt: app.clock(),
  });
  t.deepEqual(
    (await listOn(device.c)).map((p) => p.device),
    ['Unknown device'],
  );
});
