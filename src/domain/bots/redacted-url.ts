/**
 * A bot url as it may be shown or logged: its credentials (`http://user:password@host/…`, a token as
 * the user name…) replaced by `***`. The url itself is kept whole for delivery; an administrator who
 * reads it back through getBot, or a bot log line, sees where events go, never how they get in.
 * Done on the text, not through URL, so that nothing else of the url is rewritten.
 */
export const redactedUrl = (url: string): string => url.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^/?#]*@/, '$1***@')
