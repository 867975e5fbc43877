import type { IncomingMessage } from 'node:http'

/** The other end of the connection a request came on: the client, or the proxy in front of it. */
export interface Peer {
  /** The socket's remote address (IPv4-mapped IPv6 addresses as Node reports them). */
  address: string
}

/** A request made in-process (tests, app.fetch called directly) has no socket. */
export const inProcessPeer: Peer = { address: '127.0.0.1' }

export const peerOf = (req: IncomingMessage | undefined): Peer => {
  const address = req?.socket.remoteAddress
  return address ? { address } : inProcessPeer
}
