/*
 * The agent console's HTML shell: markup and styles only; what it shows is built by console.js. The
 * styles are one <style> element whose hash the Content-Security-Policy names (serve.ts): no other
 * style, and no inline script, runs.
 */

export const agentConsoleStyles = `
  :root { font-family: system-ui, sans-serif; color: #1d232a; background: #f3f5f7; font-size: 15px; }
  * { box-sizing: border-box; }
  body { margin: 0; height: 100vh; display: flex; flex-direction: column; overflow: hidden; }
  header { padding: .5rem 1rem; background: #1d232a; color: #fff; display: flex; align-items: center; gap: 1rem; }
  h1 { font-size: 1rem; margin: 0; flex: 1; }
  h2 { font-size: .95rem; margin: 0 0 .4rem; }
  #status { font-size: .85rem; opacity: .85; }
  #who { font-size: .9rem; }
  button, select, input, textarea { font: inherit; }
  button { border: 1px solid #1d4ed8; color: #1d4ed8; background: #fff; border-radius: .4rem; padding: .3rem .7rem; cursor: pointer; }
  button:disabled { opacity: .45; cursor: default; }
  button.primary { background: #1d4ed8; color: #fff; }
  button.danger { border-color: #b91c1c; color: #b91c1c; }
  header button { background: transparent; color: #fff; border-color: #fff8; }
  :focus-visible { outline: 3px solid #f59e0b; outline-offset: 2px; }
  #error { display: flex; gap: 1rem; align-items: center; justify-content: space-between; background: #fee2e2; color: #7f1d1d; padding: .45rem 1rem; border-bottom: 1px solid #fca5a5; }
  #notice { background: #dcfce7; color: #14532d; padding: .45rem 1rem; border-bottom: 1px solid #86efac; }
  #sign-in { margin: 4rem auto; max-width: 26rem; background: #fff; padding: 1.5rem; border-radius: .6rem; box-shadow: 0 1px 3px #0002; display: flex; flex-direction: column; gap: .6rem; }
  #sign-in p { margin: 0; color: #5b6470; font-size: .9rem; }
  #sign-in input { padding: .45rem .6rem; border: 1px solid #0004; border-radius: .4rem; }
  #desk { flex: 1; min-height: 0; display: grid; grid-template-columns: 20rem 1fr; }
  nav { border-right: 1px solid #0002; overflow-y: auto; padding: .75rem; background: #fff; display: flex; flex-direction: column; gap: 1rem; }
  nav ul { list-style: none; margin: 0; padding: 0; display: flex; flex-direction: column; gap: .35rem; }
  nav li button { width: 100%; text-align: left; border: 1px solid #0002; color: inherit; display: grid; grid-template-columns: 1fr auto; gap: .1rem .5rem; padding: .4rem .55rem; }
  nav li button[aria-current="true"] { border-color: #1d4ed8; background: #eff6ff; }
  .item-title { font-weight: 600; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
  .item-meta { grid-column: 1; font-size: .8rem; color: #5b6470; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
  .unread { grid-row: 1 / span 2; grid-column: 2; align-self: center; background: #1d4ed8; color: #fff; border-radius: 1rem; padding: 0 .5rem; font-size: .8rem; font-weight: 600; }
  .empty { color: #5b6470; font-size: .85rem; margin: 0; }
  main { min-width: 0; min-height: 0; display: flex; flex-direction: column; }
  #placeholder { margin: auto; color: #5b6470; }
  #conversation { flex: 1; min-height: 0; display: flex; flex-direction: column; }
  .bar { display: flex; justify-content: space-between; gap: 1rem; align-items: flex-start; padding: .6rem 1rem; background: #fff; border-bottom: 1px solid #0002; }
  .bar h2 { margin: 0; }
  #conversation-meta { margin: .15rem 0 0; font-size: .85rem; color: #5b6470; }
  .actions { display: flex; flex-wrap: wrap; gap: .4rem; align-items: center; justify-content: flex-end; }
  .actions select { padding: .25rem; max-width: 11rem; }
  #timeline { flex: 1; min-height: 0; overflow-y: auto; list-style: none; margin: 0; padding: .75rem 1rem; display: flex; flex-direction: column; gap: .55rem; }
  .entry { max-width: 75%; background: #fff; border-radius: .6rem; padding: .4rem .65rem; box-shadow: 0 1px 2px #0002; overflow-wrap: anywhere; }
  .entry.user { align-self: flex-start; }
  .entry.bot { align-self: flex-start; background: #ecfdf5; }
  .entry.agent { align-self: flex-end; background: #dbeafe; }
  .entry.note { align-self: center; background: #fef9c3; border: 1px dashed #a16207; max-width: 85%; }
  .entry .meta { font-size: .75rem; color: #5b6470; display: flex; gap: .5rem; margin-bottom: .1rem; }
  .entry .author { font-weight: 600; }
  .entry .tag { color: #a16207; font-weight: 600; text-transform: uppercase; letter-spacing: .03em; }
  .entry .text { white-space: pre-wrap; }
  #typing { min-height: 1.3rem; padding: 0 1rem; font-size: .85rem; font-style: italic; color: #5b6470; }
  .composer { display: flex; gap: .5rem; padding: .5rem 1rem; background: #fff; border-top: 1px solid #0002; }
  .composer textarea, .composer input { flex: 1; padding: .4rem .6rem; border: 1px solid #0004; border-radius: .4rem; resize: none; }
  #note { background: #fffbeb; }
  .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
  [hidden] { display: none !important; }
`

export const agentConsolePage = (): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Confab agent console</title>
<style>${agentConsoleStyles}</style>
</head>
<body>
<header>
  <h1>Confab agent console</h1>
  <span id="who"></span>
  <span id="status" role="status">Signed out</span>
  <button id="sign-out" type="button" hidden>Sign out</button>
</header>
<div id="error" role="alert" hidden><span id="error-text"></span><button id="dismiss" type="button">Dismiss</button></div>
<div id="notice" role="status" hidden></div>
<form id="sign-in" autocomplete="off" hidden>
  <h2>Sign in</h2>
  <p>Paste your agent key (agk_…), which an administrator gave you. It is kept in this tab only, until you sign out or close it.</p>
  <label for="key">Agent key</label>
  <input id="key" name="key" type="password" autocomplete="off" spellcheck="false" required>
  <button type="submit" class="primary">Sign in</button>
</form>
<div id="desk" hidden>
  <nav aria-label="Conversations">
    <section aria-labelledby="queue-heading">
      <h2 id="queue-heading">Queue</h2>
      <ul id="queue"></ul>
      <p id="queue-empty" class="empty">Nobody is waiting.</p>
    </section>
    <section aria-labelledby="mine-heading">
      <h2 id="mine-heading">My conversations</h2>
      <ul id="mine"></ul>
      <p id="mine-empty" class="empty">None: claim one from the queue.</p>
    </section>
  </nav>
  <main>
    <p id="placeholder">Pick a conversation from the queue or from yours.</p>
    <section id="conversation" aria-labelledby="conversation-title" hidden>
      <div class="bar">
        <div>
          <h2 id="conversation-title"></h2>
          <p id="conversation-meta"></p>
        </div>
        <div class="actions" role="group" aria-label="Conversation actions">
          <button id="claim" type="button" class="primary">Claim</button>
          <button id="release" type="button">Release to the bot</button>
          <label for="transfer-to" class="visually-hidden">Transfer to agent</label>
          <select id="transfer-to"></select>
          <button id="transfer" type="button">Transfer</button>
          <button id="close" type="button" class="danger">Close</button>
        </div>
      </div>
      <ol id="timeline" role="log" aria-live="polite" aria-label="Conversation history"></ol>
      <div id="typing" aria-live="polite"></div>
      <form id="reply" class="composer" autocomplete="off">
        <label for="reply-text" class="visually-hidden">Reply to the user</label>
        <textarea id="reply-text" rows="2" placeholder="Reply to the user (Enter sends, Shift+Enter: new line)"></textarea>
        <button id="send" type="submit" class="primary">Send</button>
      </form>
      <form id="note" class="composer" autocomplete="off">
        <label for="note-text" class="visually-hidden">Internal note (agents only)</label>
        <input id="note-text" maxlength="4096" placeholder="Internal note: agents only, the user never sees it">
        <button type="submit">Add note</button>
      </form>
    </section>
  </main>
</div>
<script type="module" src="console.js"></script>
</body>
</html>
`
