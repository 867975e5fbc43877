// The one lodash function Botpress' e2e message tests call (lodash is not installed in Confab).
export const sortBy = <T>(items: readonly T[], key: (item: T) => number | string): T[] =>
  [...items].sort((a, b) => {
    const [x, y] = [key(a), key(b)]
    return x < y ? -1 : x > y ? 1 : 0
  })
export default { sortBy }
