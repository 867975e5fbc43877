/**
 * A unit of work that lost a race with another instance's write, as the database's constraints
 * found it: a row it refers to was deleted meanwhile (`gone`: 404), or a row it makes was made
 * meanwhile (`taken`: 409). Its message names what, in the API's words, and is safe to show.
 * An engine raises it only once the unit, run again, still finds the race (the domain's own checks
 * usually answer then, seeing what the other instance committed).
 */
export class WriteConflict extends Error {
  constructor(
    readonly kind: 'gone' | 'taken',
    message: string,
  ) {
    super(message)
    this.name = 'WriteConflict'
  }
}
