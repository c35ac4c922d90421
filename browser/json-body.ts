/** The JSON value of a response body's text, or undefined when it is empty or not JSON (the caller decides what that means). */
export function jsonOrUndefined(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
