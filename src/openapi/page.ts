import type { OpenApiDocument } from './document.ts'

/*
 * A readable page of the OpenAPI document, made from it on the server: plain HTML and CSS, no script
 * and nothing fetched from elsewhere, so it reads the same offline.
 */

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string)

/** `code` spans of the document's Markdown-ish text, everything else escaped. */
const prose = (text: string) => escape(text).replace(/`([^`]+)`/g, '<code>$1</code>')

const pretty = (value: unknown) => `<pre>${escape(JSON.stringify(value, null, 2))}</pre>`

interface Operation {
  operationId: string
  summary: string
  tags: string[]
  security: Record<string, string[]>[]
  parameters?: { name: string; in: string; required: boolean; schema: unknown }[]
  requestBody?: { description: string; content: Record<string, { schema: unknown }> }
  responses: Record<string, { description?: string; content?: Record<string, { schema: unknown; 'x-signal'?: unknown }>; $ref?: string }>
}

function credentials(security: Record<string, string[]>[]): string {
  if (security.length === 0) return 'none'
  return security.map((one) => (Object.keys(one).length === 0 ? 'none' : Object.keys(one).join(' + '))).join(' or ')
}

function operationHtml(method: string, path: string, op: Operation): string {
  const ok = op.responses['200']
  const [[mediaType, content] = ['', undefined]] = Object.entries(ok?.content ?? {})
  const params = (op.parameters ?? [])
    .map((p) => `<li><code>${escape(p.name)}</code> (${p.in}${p.required ? ', required' : ''}): <code>${escape(JSON.stringify(p.schema))}</code></li>`)
    .join('')
  const errors = Object.keys(op.responses)
    .filter((status) => status !== '200')
    .join(', ')
  return `<section id="${escape(op.operationId)}">
<h3><span class="method">${method.toUpperCase()}</span> <code>${escape(path)}</code></h3>
<p>${prose(op.summary)} <small>operationId <code>${escape(op.operationId)}</code>; credentials: ${escape(credentials(op.security))}</small></p>
${params ? `<p>Parameters:</p><ul>${params}</ul>` : ''}
${op.requestBody ? `<details><summary>Request body (${prose(op.requestBody.description)})</summary>${pretty(op.requestBody.content['application/json']?.schema)}</details>` : ''}
<details><summary>200 ${escape(mediaType)}</summary>${pretty(content?.['x-signal'] ?? content?.schema)}</details>
<p><small>Refusals: ${escape(errors)} (the error body)</small></p>
</section>`
}

export function openApiPage(document: OpenApiDocument): string {
  const byTag = new Map<string, string[]>()
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, op] of Object.entries(methods as Record<string, Operation>)) {
      const tag = op.tags[0] ?? 'other'
      byTag.set(tag, [...(byTag.get(tag) ?? []), operationHtml(method, path, op)])
    }
  }
  const sections = document.tags
    .map((tag) => `<h2 id="tag-${escape(tag.name)}">${escape(tag.name)}</h2><p>${prose(tag.description)}</p>${(byTag.get(tag.name) ?? []).join('\n')}`)
    .join('\n')
  const schemas = Object.entries(document.components.schemas)
    .map(([name, schema]) => `<details id="schema-${escape(name)}"><summary><code>${escape(name)}</code></summary>${pretty(schema)}</details>`)
    .join('\n')
  const errors = Object.entries(document.components.responses)
    .map(([type, response]) => `<li><code>${escape(type)}</code>: ${prose(response.description)}</li>`)
    .join('')
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escape(document.info.title)}</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
code,pre{font-family:ui-monospace,monospace;font-size:13px}code{background:#f3f3f3;padding:0 .2em}
pre{background:#f7f7f7;padding:.5rem;overflow:auto;max-height:30rem}
section{border-top:1px solid #ddd;padding:.3rem 0}h3{margin:.4rem 0;font-size:1rem}
.method{display:inline-block;min-width:4.2rem;font-family:ui-monospace,monospace;color:#fff;background:#555;border-radius:3px;text-align:center}
nav a{margin-right:1rem}small{color:#666}
</style></head>
<body>
<h1>${escape(document.info.title)} <small>${escape(document.info.version)}, OpenAPI ${escape(document.openapi)}</small></h1>
<p>${prose(document.info.description)}</p>
<p>The document itself: <a href="../openapi.json">/openapi.json</a>.</p>
<nav>${document.tags.map((tag) => `<a href="#tag-${escape(tag.name)}">${escape(tag.name)}</a>`).join('')}<a href="#schemas">schemas</a></nav>
${sections}
<h2 id="errors">Errors</h2><ul>${errors}</ul>
<h2 id="schemas">Schemas</h2>
${schemas}
</body>
</html>
`
}
