import { createServer } from 'node:http'
import { Webhook } from 'standardwebhooks'
const webhook = new Webhook(process.env.SIGNING_SECRET) // the bot's whsec_… signingSecret
const port = Number(process.env.BOT_PORT ?? 8071)
createServer(async (req, res) => {
  let body = ''
  for await (const chunk of req) body += chunk
  try { webhook.verify(body, req.headers) } catch { return res.writeHead(401).end() }
  const { type, data } = JSON.parse(body)
  const answer = type === 'message' ? { messages: [{ payload: { type: 'text', text: `you said: ${data.preview}` } }] } : {}
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer))
}).listen(port, '127.0.0.1', () => console.log(`Parrot listening on http://127.0.0.1:${port}/`))
