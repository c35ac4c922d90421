/**
 * The demo's stand-in for a mail server: the verified provider's messages go to the console and to
 * an in-memory outbox the page links to, so email login works with no SMTP server and no network.
 */
export interface OutboxMessage {
  to: string;
  text: string;
  at: Date;
}

export class Outbox {
  private readonly messages: OutboxMessage[] = [];

  constructor(private readonly log: (line: string) => void = () => {}) {}

  /** The verified provider's sender interface. */
  readonly sender = {
    // A promise, as the interface wants; a throwing log still rejects it rather than throwing.
    send: (address: string, text: string) =>
      new Promise<void>((resolve) => {
        this.messages.unshift({ to: address, text, at: new Date() });
        this.messages.length = Math.min(this.messages.length, 50);
        this.log(`outbox: message to ${address}:\n${text}`);
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
        `<li><p><b>To:</b> ${esc(m.to)} <small>${m.at.toISOString()}</small></p><pre>${linkify(m.text)}</pre></li>`,
    );
    return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Outbox</title><link rel="stylesheet" href="/style.css"></head>
<body><main><h1>Outbox</h1><p>Messages the "email" provider would have sent. <a href="/">Back</a></p>
<ol class="outbox">${items.join('') || '<li>No messages yet.</li>'}</ol></main></body></html>`;
  }
}
