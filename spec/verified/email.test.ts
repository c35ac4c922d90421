import test from 'ava';
import { emailSender, isEmailAddress } from '../../lib/index.js';
import { Client } from '../helpers/http.js';
import { closedPort, silentServer, startSmtp } from '../helpers/smtp.js';
import { requestToken, rig } from './fixtures.js';

const SMTP_PASSWORD = 'smtp-pa55-do-not-leak';
const FAILED = { error: 'failed to send confirmation', code: 'sender_failed' };

test('STARTTLS with AUTH and a self-signed certificate trusted through tls.ca: mail arrives encrypted and logs in', async (t) => {
  const r = await rig(t, {
    smtp: { tls: 'starttls', auth: { user: 'mailer', pass: SMTP_PASSWORD } },
    sender: { startTLS: true, smtpUserName: 'mailer', smtpPassword: SMTP_PASSWORD },
  });
  const token = await requestToken(r);
  const m = r.smtp.received[0]!;
  t.true(m.secure);
  t.is(m.user, 'mailer');
  t.is(m.mail.subject, 'Confirm your login');
  t.is((await new Client(r.app.url).fetch(`/auth/email/login?token=${token}`, { method: 'POST' })).status, 200);
});

test('STARTTLS against an untrusted certificate fails with 502 and sends nothing', async (t) => {
  const r = await rig(t, {
    smtp: { tls: 'starttls', auth: { user: 'mailer', pass: SMTP_PASSWORD } },
    sender: { startTLS: true, smtpUserName: 'mailer', smtpPassword: SMTP_PASSWORD, tls: {} },
  });
  const res = await r.client.fetch('/auth/email/login?user=alice&address=alice@example.com');
  t.is(res.status, 502);
  t.deepEqual(await res.json(), FAILED);
  t.is(r.smtp.received.length, 0);
});

test('startTLS: a server that offers no STARTTLS is refused instead of falling back to plain text', async (t) => {
  const r = await rig(t, { smtp: { tls: 'plain' }, sender: { startTLS: true } });
  const res = await r.client.fetch('/auth/email/login?user=alice&address=alice@example.com');
  t.is(res.status, 502);
  t.is(r.smtp.received.length, 0);
});

test('implicit TLS (secure) delivers over TLS from the first byte', async (t) => {
  const r = await rig(t, { smtp: { tls: 'implicit' }, sender: { secure: true } });
  await requestToken(r);
  t.true(r.smtp.received[0]!.secure);
});

test('wrong SMTP credentials: 502 with the fixed body; the log names the failure without password or server text', async (t) => {
  const r = await rig(t, {
    smtp: { tls: 'starttls', auth: { user: 'mailer', pass: 'right' } },
    sender: { startTLS: true, smtpUserName: 'mailer', smtpPassword: SMTP_PASSWORD },
  });
  const res = await r.client.fetch('/auth/email/login?user=alice&address=alice@example.com');
  t.is(res.status, 502);
  const body = await res.text();
  t.is(body, JSON.stringify(FAILED) + '\n');
  t.is(r.smtp.received.length, 0);
  const log = r.logs.join('\n');
  t.regex(log, /verified email: sending the confirmation failed: EAUTH, smtp 535/);
  t.false(log.includes(SMTP_PASSWORD));
  t.false(log.includes('alice@example.com'));
  t.false(log.includes('Invalid username'));
});

test('SMTP down (a closed port) → 502 at once', async (t) => {
  const port = await closedPort();
  // A ten-minute timeout: a 502 within ava's test timeout can only come from the refused connection,
  // never from waiting the timeout out.
  const r = await rig(t, { sender: { port, timeout: '10m', smtpUserName: 'mailer', smtpPassword: SMTP_PASSWORD } });
  const res = await r.client.fetch('/auth/email/login?user=alice&address=alice@example.com');
  t.is(res.status, 502);
  t.deepEqual(await res.json(), FAILED);
  const log = r.logs.join('\n');
  t.regex(log, /ESOCKET, during CONN/);
  t.false(log.includes('ETIMEDOUT'));
  t.false(log.includes(SMTP_PASSWORD));
});

test('a server that never greets → 502 within the configured timeout', async (t) => {
  const silent = await silentServer();
  t.teardown(() => silent.close());
  // A sender with a ten-minute timeout waits on the same silent server first, as a yardstick.
  const patient = emailSender({
    host: '127.0.0.1',
    port: silent.port,
    secure: false,
    from: 'login@example.com',
    timeout: '10m',
  });
  let patientSettled = false;
  const waiting = Promise.resolve(patient.send('bob@example.com', 'x')).finally(() => (patientSettled = true));
  waiting.catch(() => {}); // rejected when silent.close() cuts it at teardown
  t.teardown(() => patient.close());
  const patientConn = await silent.connection(1);

  const r = await rig(t, { sender: { port: silent.port, timeout: 300 } });
  const res = await r.client.fetch('/auth/email/login?user=alice&address=alice@example.com');
  t.is(res.status, 502);
  t.deepEqual(await res.json(), FAILED);
  t.regex(r.logs.join('\n'), /ETIMEDOUT/);
  // The app's sender reached the server and gave up on its own: the server never said a word nor hung up.
  t.is(silent.connections.length, 2);
  await silent.connections[1]!.clientClosed; // only the client can close it: ava's test timeout bounds the wait
  // It was the configured 300 ms that ran out, not some fixed limit: the ten-minute sender, connected
  // earlier to the same server, is still waiting.
  t.false(patientConn.closedByClient, 'the ten-minute sender is still connected');
  t.false(patientSettled, 'the ten-minute sender has not given up');
});

test('charset iso-8859-1 is declared and used; text it cannot carry goes out as UTF-8', async (t) => {
  const r = await rig(t, {
    sender: { charset: 'iso-8859-1' },
    provider: { template: 'Grüße {{.User}}\ntoken: {{.Token}}\n' },
  });
  await r.client.fetch('/auth/email/login?user=Jos%C3%A9&address=jose@example.com');
  const m = await r.smtp.next();
  t.regex(m.raw.toString(), /^Content-Type: text\/plain; charset=iso-8859-1\r?$/m);
  t.true(m.mail.text!.startsWith('Grüße José'));
  await r.client.fetch('/auth/email/login?user=%E5%B1%B1%E7%94%B0&address=yamada@example.com');
  const m2 = await r.smtp.next();
  t.regex(m2.raw.toString(), /^Content-Type: text\/plain; charset=utf-8\r?$/m);
  t.true(m2.mail.text!.startsWith('Grüße 山田'));
});

test('one sender serves several messages and close() is idempotent', async (t) => {
  const smtp = await startSmtp();
  t.teardown(() => smtp.close());
  const sender = emailSender({ host: '127.0.0.1', port: smtp.port, secure: false, from: 'a@example.com' });
  await sender.send('x@example.com', 'one');
  await sender.send('y@example.com', 'two');
  t.deepEqual(
    smtp.received.map((m) => [m.envelopeTo[0], m.mail.text?.trim(), m.mail.subject]),
    [
      ['x@example.com', 'one', 'Login confirmation'],
      ['y@example.com', 'two', 'Login confirmation'],
    ],
  );
  await sender.close();
  await sender.close();
  await t.throwsAsync(async () => sender.send('not an address', 'x'), { instanceOf: TypeError });
});

test('emailSender options are checked at construction with TypeErrors naming the option', (t) => {
  const base = { host: 'smtp.example.com', from: 'login@example.com' };
  const bad: Array<[Record<string, unknown>, RegExp]> = [
    [{ from: 'a@b.c' }, /emailSender: host is required/],
    [{ host: 'h' }, /from must be/],
    [{ ...base, from: 'a@b.c\r\nBcc: x@y.z' }, /from must be/],
    [{ ...base, subject: 'hi\nBcc: x' }, /subject must be/],
    [{ ...base, port: 70000 }, /port must be/],
    [{ ...base, startTLS: true, port: 465 }, /startTLS and implicit TLS/],
    [{ ...base, contentType: 'text/markdown' }, /contentType must be/],
    [{ ...base, charset: 'koi8-r' }, /charset must be/],
    [{ ...base, timeout: '5 parsecs' }, /emailSender: timeout must be/],
  ];
  for (const [o, msg] of bad)
    t.throws(() => emailSender(o as never), { instanceOf: TypeError, message: msg }, JSON.stringify(o));
  const s = emailSender({ ...base, contentType: 'text/html' });
  t.is(s.contentType, 'text/html');
  t.is(typeof s.validateAddress, 'function');
});

test('isEmailAddress accepts plain addresses and refuses what an address parser would split or rewrite', (t) => {
  for (const ok of [
    'a@example.com',
    'first.last+tag@sub.example.co.uk',
    "o'brien@example.ie",
    'user@bücher.example',
    'x_y-z@a-b.example',
  ])
    t.true(isEmailAddress(ok), ok);
  for (const bad of [
    'a',
    'a@b',
    '@example.com',
    'a@',
    'a@.example.com',
    'a@-x.example',
    '.a@example.com',
    'a..b@example.com',
    'a b@example.com',
    'a@example.com,b@example.com',
    '"a"@example.com',
    'A <a@example.com>',
    'a@[127.0.0.1]',
    `${'a'.repeat(65)}@example.com`,
  ]) {
    t.false(isEmailAddress(bad), bad);
  }
});
