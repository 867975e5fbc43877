import { afterEach } from 'vitest'
import { expectEveryResponseConformed } from './openapi.ts'

// Every test file: a test fails when a REST response it received does not conform to the OpenAPI document.
afterEach(() => expectEveryResponseConformed())
