/** Who signs in at the local server: what its checker answers. */

/** A user the checker signed in; `true` from the checker means `{ id: <user name> }`. */
export interface ServerUser {
  id: string;
  /** Display name (default: the id). */
  name?: string;
  email?: string;
  /** Picture URL (default: the server's identicon for the id). */
  picture?: string;
}

/** Checks a user name and password: false refuses, true or a profile signs the user in. */
export type ServerChecker = (user: string, passwd: string) => boolean | ServerUser | Promise<boolean | ServerUser>;
