/**
 * The local server's `response_mode=form_post` page as a browser sees it: the form that submits itself, its
 * target and hidden fields (the authorization response).
 */
export function formPost(html: string): { action: string; fields: Record<string, string> } {
  const unescape = (s: string) => s.replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n)));
  const action = /<form method="post" action="([^"]+)">/.exec(html)?.[1];
  if (!action) throw new Error(`no form_post form in: ${html.slice(0, 300)}`);
  const fields: Record<string, string> = {};
  for (const m of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g))
    fields[unescape(m[1])] = unescape(m[2]);
  return { action: unescape(action), fields };
}
