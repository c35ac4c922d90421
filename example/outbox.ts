/**
 * The demo's stand-in for a mail server: the verified provider's and the password provider's messages go
 * to the console and to an in-memory outbox the page links to, so email login, sign-up and password reset
 * work with no SMTP server and no network.
 */
export interface OutboxMessage {
  to: string;
  /** The subject line, for the senders that give one (the password provider's messages). */
  subject?: string;
  text: string;
  at: Date;
}

export class Outbox {
  private readonly messages: OutboxMessage[] = [];

  constructor(private readonly log: (line: string) => void = () => {}) {}

  /** The sender interface of the verified and password providers (the latter says what each message is about). */
  readonly sender = {
    // A promise, as the interface wants; a throwing log still rejects it rather than throwing.
    send: (address: string, text: string, about?: { subject?: string }) =>
      new Promise<void>((resolve) => {
        const subject = about?.subject;
        this.messages.unshift({ to: address, ...(subject !== undefined && { subject }), text, at: new Date() });
        this.messages.length = Math.min(this.messages.length, 50);
        this.log(`outbox: message to ${address}${subject ? ` (${subject})` : ''}:\n${text}`);
        resolve();
      }),
  };

  list(): readonly OutboxMessage[] {
    return this.messages;
  }

  /**
   * The outbox as a page; message text is escaped and only links to this app become clickable. The
   * viewport line keeps phones from drawing it 980 px wide; style.css wraps the long login links.
   */
  html(appUrl: string): string {
    const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
    const linkify = (s: string) =>
      esc(s).replace(/https?:\/\/[^\s<]+/g, (u) => (u.startsWith(esc(appUrl) + '/') ? `<a href="${u}">${u}</a>` : u));
    const items = this.messages.map(
      (m) =>
        `<li><p><b>To:</b> ${esc(m.to)} <small>${m.at.toISOString()}</small></p>` +
        (m.subject ? `<p><b>Subject:</b> ${esc(m.subject)}</p>` : '') +
        `<pre>${linkify(m.text)}</pre></li>`,
    );
    return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Outbox</title><link rel="stylesheet" href="/style.css"></head>
<body><main><h1>Outbox</h1><p>Messages the "email" and "password" providers would have sent. <a href="/">Back</a></p>
<ol class="outbox">${items.join('') || '<li>No messages yet.</li>'}</ol></main></body></html>`;
  }
}
