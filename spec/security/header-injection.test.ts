/**
 * Header injection through the verified provider's user and address (the address becomes an SMTP
 * recipient and a header): CR/LF, encoded forms and address lists are refused with 400 and nothing is
 * sent; a clean address goes out with exactly one recipient. A real SMTP server on 127.0.0.1 receives.
 */
import test from 'ava';
import { emailSender } from '../../lib/index.js';
import { Client, startApp } from '../helpers/http.js';
import { startSmtp } from '../helpers/smtp.js';

test('CR/LF, Bcc smuggling and address lists in the verified address or user are refused; nothing reaches SMTP', async (t) => {
  const smtp = await startSmtp({ tls: 'plain' });
  const sender = emailSender({
    host: '127.0.0.1',
    port: smtp.port,
    secure: false,
    from: 'auth@example.com',
    timeout: 30_000,
  }); // a safety net, not under test
  const app = await startApp({
    secret: 'security-suite-secret-0123456789',
    providers: [{ kind: 'verified', name: 'email', sender, rateLimit: false }],
  });
  t.teardown(async () => {
    await app.close();
    await sender.close();
    await smtp.close();
  });
  const bad: Array<[string, string]> = [
    ['victim', 'victim@example.com\r\nBcc: attacker@evil.example'],
    ['victim', 'victim@example.com\nBcc: attacker@evil.example'],
    ['victim', 'victim@example.com%0d%0aBcc:attacker@evil.example'],
    ['victim', 'victim@example.com, attacker@evil.example'],
    ['victim', '"x\r\n" <victim@example.com>'],
    ['victim', 'attacker@evil.example>\r\nRCPT TO:<victim@example.com'],
    ['victim\r\nSubject: pwned', 'victim@example.com'],
  ];
  for (const [user, address] of bad) {
    const res = await new Client(app.url).fetch(
      `/auth/email/login?user=${encodeURIComponent(user)}&address=${encodeURIComponent(address)}`,
    );
    t.is(res.status, 400, JSON.stringify([user, address]));
    t.regex(((await res.json()) as { code: string }).code, /^bad_(request|address|user)$/);
  }
  t.is(smtp.received.length, 0, 'nothing was sent');

  const ok = await new Client(app.url).fetch('/auth/email/login?user=victim&address=victim@example.com');
  t.is(ok.status, 200);
  const mail = await smtp.next();
  t.deepEqual(mail.envelopeTo, ['victim@example.com']);
  t.is(mail.mail.bcc, undefined);
});
