import { isIPv6 } from 'node:net'

/**
 * The name a client address is counted by: an IPv4 address as it is; an IPv6 address by its /64,
 * the block one subscriber, host or cloud instance is given (RFC 6177), which would otherwise hold
 * 2^64 budgets; an IPv4 address written as IPv6 (`::ffff:192.0.2.1`, as a dual-stack socket reports
 * it) as that IPv4 address. Anything else (an in-process peer's name) as it is.
 */
export function addressKey(address: string): string {
  // The common case first, and at no cost: an IPv4 address has no colon.
  if (!address.includes(':')) return address
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address)
  if (mapped) return mapped[1] as string
  const bare = address.replace(/%.*$/, '')
  if (!isIPv6(bare)) return address
  const groups = expand(bare)
  // IPv4-mapped in hexadecimal form (::ffff:c000:201): the IPv4 address it carries.
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    const [high, low] = [groups[6] as number, groups[7] as number]
    return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`
  }
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a trailing dotted IPv4 part as two groups). */
function expand(address: string): number[] {
  let text = address
  const dotted = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text)
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number]
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head, tail] = text.split('::') as [string, string | undefined]
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => Number.parseInt(group, 16)))
  const front = parse(head)
  const back = tail === undefined ? [] : parse(tail)
  return [...front, ...Array<number>(8 - front.length - back.length).fill(0), ...back]
}
