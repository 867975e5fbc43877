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
  header { padding: .6rem 1rem; background: #1d232a; color: #fff; display: flex; justify-content: space-between; align-items: center; gap: 1rem; }
  h1 { font-size: 1rem; margin: 0; display: flex; align-items: center; gap: .5rem; }
  #status { opacity: .75; font-size: .85rem; }
  main { flex: 1; overflow-y: auto; padding: 1rem; display: flex; flex-direction: column; }
  #empty { margin: auto; text-align: center; color: #5b6470; max-width: 20rem; }
  #empty strong { display: block; font-size: 1.1rem; color: #1d232a; margin-bottom: .25rem; }
  #messages { list-style: none; margin: 0; padding: 0; display: flex; flex-direction: column; gap: .75rem; }
  .message { max-width: 80%; display: flex; gap: .5rem; align-items: flex-end; }
  .message.mine { align-self: flex-end; flex-direction: row-reverse; }
  .body { display: flex; flex-direction: column; min-width: 0; }
  .mine .body { align-items: flex-end; }
  .meta { display: flex; gap: .5rem; align-items: baseline; font-size: .75rem; color: #5b6470; margin-bottom: .15rem; }
  .author { font-weight: 600; }
  .avatar { width: 2rem; height: 2rem; flex: none; border-radius: 50%; background: #475569; color: #fff; display: inline-flex; align-items: center; justify-content: center; font-weight: 600; font-size: .9rem; object-fit: cover; }
  .message.bot .avatar { background: #0f766e; }
  header .avatar { width: 1.75rem; height: 1.75rem; background: #0f766e; }
  .bubble { background: #fff; border-radius: .75rem; padding: .5rem .75rem; box-shadow: 0 1px 2px #0002; overflow-wrap: anywhere; }
  .mine .bubble { background: #1d4ed8; color: #fff; }
  .mine .bubble a { color: #fff; }
  .bubble img, .bubble video { max-width: 100%; border-radius: .5rem; display: block; }
  .card { display: flex; flex-direction: column; gap: .35rem; min-width: 12rem; }
  .carousel { display: flex; gap: .5rem; overflow-x: auto; }
  .carousel .card { border: 1px solid #0001; border-radius: .5rem; padding: .5rem; }
  .actions, .choice { display: flex; flex-wrap: wrap; gap: .35rem; }
  button, select { font: inherit; border: 1px solid #1d4ed8; color: #1d4ed8; background: #fff; border-radius: 1rem; padding: .25rem .75rem; cursor: pointer; }
  button:focus-visible, select:focus-visible, a:focus-visible, #text:focus-visible { outline: 3px solid #f59e0b; outline-offset: 2px; }
  .markdown p { margin: 0 0 .4rem; }
  .markdown p:last-child { margin-bottom: 0; }
  .markdown pre { overflow-x: auto; background: #0000000d; padding: .4rem; border-radius: .35rem; }
  .notice { align-self: center; display: flex; gap: .5rem; align-items: baseline; font-size: .8rem; color: #5b6470; }
  .streaming .text { white-space: pre-wrap; }
  .streaming .text::after { content: "▍"; opacity: .5; }
  #typing { font-size: .85rem; color: #5b6470; padding: 0 1rem .35rem; min-height: 1.2rem; font-style: italic; }
  form { display: flex; gap: .5rem; padding: .75rem; background: #fff; border-top: 1px solid #0001; }
  #text { flex: 1; font: inherit; padding: .5rem .75rem; border: 1px solid #0003; border-radius: 1rem; }
  form button { background: #1d4ed8; color: #fff; }
  .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
</style>
</head>
<body>
<header><h1 id="title">Confab chat</h1><span id="status" role="status">Connecting…</span></header>
<main>
  <h2 class="visually-hidden">Messages</h2>
  <p id="empty" hidden><strong>No messages yet</strong>Say hello: the bot answers here.</p>
  <ol id="messages" role="log" aria-live="polite" aria-label="Messages"></ol>
</main>
<div id="typing" aria-live="polite" hidden></div>
<form id="composer" autocomplete="off">
  <label for="text" class="visually-hidden">Message</label>
  <input id="text" name="text" placeholder="Write a message" disabled>
  <button type="submit">Send</button>
</form>
<script type="module" src="webchat.js"></script>
</body>
</html>
`
