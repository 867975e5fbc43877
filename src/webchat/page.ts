/** The web chat's HTML shell: markup and styles only; everything it shows is built by webchat.js. */
export const webChatPage = (): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Confab chat</title>
<style>
  :root { font-family: system-ui, sans-serif; color: #1d232a; background: #f3f5f7; }
  body { margin: 0; display: flex; flex-direction: column; height: 100vh; }
  header { padding: .75rem 1rem; background: #1d232a; color: #fff; display: flex; justify-content: space-between; }
  #status { opacity: .7; font-size: .85rem; }
  #messages { flex: 1; overflow-y: auto; list-style: none; margin: 0; padding: 1rem; display: flex; flex-direction: column; gap: .5rem; }
  .message { max-width: 75%; display: flex; flex-direction: column; }
  .message.mine { align-self: flex-end; align-items: flex-end; }
  .author { font-size: .75rem; opacity: .6; margin-bottom: .15rem; }
  .bubble { background: #fff; border-radius: .75rem; padding: .5rem .75rem; box-shadow: 0 1px 2px #0002; overflow-wrap: anywhere; }
  .mine .bubble { background: #2563eb; color: #fff; }
  .mine .bubble a { color: #fff; }
  .bubble img, .bubble video { max-width: 100%; border-radius: .5rem; display: block; }
  .card { display: flex; flex-direction: column; gap: .35rem; min-width: 12rem; }
  .carousel { display: flex; gap: .5rem; overflow-x: auto; }
  .carousel .card { border: 1px solid #0001; border-radius: .5rem; padding: .5rem; }
  .actions, .choice { display: flex; flex-wrap: wrap; gap: .35rem; }
  button, select { font: inherit; border: 1px solid #2563eb; color: #2563eb; background: #fff; border-radius: 1rem; padding: .25rem .75rem; cursor: pointer; }
  .markdown p { margin: 0 0 .4rem; }
  .markdown p:last-child { margin-bottom: 0; }
  form { display: flex; gap: .5rem; padding: .75rem; background: #fff; border-top: 1px solid #0001; }
  #text { flex: 1; font: inherit; padding: .5rem .75rem; border: 1px solid #0003; border-radius: 1rem; }
  form button { background: #2563eb; color: #fff; }
</style>
</head>
<body>
<header><strong>Confab chat</strong><span id="status">Connecting…</span></header>
<ol id="messages" aria-live="polite"></ol>
<form id="composer" autocomplete="off">
  <input id="text" name="text" placeholder="Write a message" aria-label="Message" disabled>
  <button type="submit">Send</button>
</form>
<script type="module" src="webchat.js"></script>
</body>
</html>
`
