import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import { type OpenApiDocument, openApiDocument } from '../../src/openapi/document.ts'

/*
 * Every REST response the suite receives is checked against the OpenAPI document (GET /openapi.json):
 * the status must be one its operation documents, and a JSON body must match that status's schema.
 * The test app's fetch (helpers/app.ts) hands each response here; a test that received one that does
 * not conform fails after it (helpers/conformance-setup.ts), so the document cannot drift from the server.
 */

export const document: OpenApiDocument = openApiDocument('test')

const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false })
ajv.addSchema(document as object, 'openapi')

/** A JSON pointer segment. */
const pointer = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1')

interface Operation {
  responses: Record<string, { $ref?: string; content?: Record<string, unknown> }>
}

interface Template {
  path: string
  pattern: RegExp
  /** How many segments are literal: `/conversations/get-or-create` wins over `/conversations/{id}`. */
  literal: number
  methods: Record<string, Operation>
}

const templates: Template[] = Object.entries(document.paths)
  .map(([path, methods]) => ({
    path,
    pattern: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]+')}/?$`),
    literal: path.split('/').filter((segment) => segment !== '' && !segment.startsWith('{')).length,
    methods: methods as Record<string, Operation>,
  }))
  .sort((a, b) => b.literal - a.literal)

const compiled = new Map<string, ValidateFunction>()
const validator = (ref: string) => {
  let validate = compiled.get(ref)
  if (!validate) {
    validate = ajv.compile({ $ref: ref })
    compiled.set(ref, validate)
  }
  return validate
}

/** Where the schema of a response is: the operation's own, or the error response component it refers to. */
function schemaRef(path: string, method: string, status: string, response: { $ref?: string }, mediaType: string): string {
  const base = response.$ref ? `openapi${response.$ref}` : `openapi#/paths/${pointer(path)}/${method}/responses/${status}`
  return `${base}/content/${pointer(mediaType)}/schema`
}

const mismatches: string[] = []

/** What does not conform to the document in this response to this request, or undefined. */
export async function nonConformity(request: Request, response: Response): Promise<string | undefined> {
  // The path as sent, whatever the Host (the suite sends invalid ones too): what follows the authority, up to the query.
  const pathname = request.url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '').replace(/[?#].*$/s, '') || '/'
  const template = templates.find((t) => t.pattern.test(pathname))
  if (!template) return undefined
  const method = request.method.toLowerCase()
  const status = String(response.status)
  const contentType = response.headers.get('content-type') ?? ''
  const what = `${request.method} ${pathname} -> ${status}`
  const operation = template.methods[method]
  if (!operation) {
    // A path of the document asked with a method it does not take: still the error body, if any.
    if (response.status < 400 || request.method === 'OPTIONS' || request.method === 'HEAD') return undefined
    return conformsTo('openapi#/components/schemas/Error', await response.clone().json(), what)
  }
  const documented = operation.responses[status]
  if (!documented) return `${what}: status ${status} is not documented for ${template.path}`
  const mediaType = contentType.split(';')[0]?.trim() ?? ''
  if (request.method === 'HEAD') return undefined
  const content = documented.$ref ? { 'application/json': {} } : (documented.content ?? {})
  if (!(mediaType in content)) return `${what}: content type ${contentType} is not documented (${Object.keys(content).join(', ')})`
  if (mediaType !== 'application/json') return undefined
  const text = await response.clone().text()
  return conformsTo(schemaRef(template.path, method, status, documented, mediaType), JSON.parse(text), what)
}

function conformsTo(ref: string, body: unknown, what: string): string | undefined {
  const validate = validator(ref)
  if (validate(body)) return undefined
  const errors = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`)
  return `${what}: the body does not match the document: ${errors.join('; ')}\n  body: ${JSON.stringify(body).slice(0, 500)}`
}

/** Checks a response the suite received (see helpers/app.ts), keeping what does not conform. */
export async function checkConformance(request: Request, response: Response): Promise<void> {
  const mismatch = await nonConformity(request, response).catch((error: Error) => `${request.method} ${request.url}: ${error.message}`)
  if (mismatch) mismatches.push(mismatch)
}

/** Fails the current test when a response it received did not conform (conformance-setup.ts calls it after each test). */
export function expectEveryResponseConformed(): void {
  const found = mismatches.splice(0)
  if (found.length > 0) {
    throw new Error(`${found.length} REST response(s) do not conform to the OpenAPI document:\n${[...new Set(found)].slice(0, 10).join('\n')}`)
  }
}
