#!/usr/bin/env bash
# Botpress' own chat-client e2e tests (packages/chat-client/e2e: message.test.ts and participant.test.ts,
# each run over SSE and over WebSocket) against a Confab built from this checkout. A local check, not
# part of `npm test`: CI cannot fetch Botpress' source.
#
#   scripts/botpress-e2e.sh [path to a botpress checkout or mirror] (default: /work/.mirror/botpress+botpress/repo)
#   BOTPRESS_COMMIT=<sha>  the commit whose tests and client run (default: the pinned one below, @botpress/chat 1.1.0)
#   SKIP_BUILD=1           use dist/ as it is (otherwise `npm run build` first)
#   further arguments go to vitest (e.g. `-t metadata`); Confab's own settings pass through the environment
#
# Everything happens in a temporary folder, on loopback: a copy of packages/chat-client and
# packages/chat-api at the commit (their own client source, compiled by vitest; its generated `src/gen`
# made from chat-api by ./botpress-e2e/gen), an SQLite database, and Confab on a free port with
# NON_PARTICIPANT_STATUS=403 (Botpress' answer to a non-participant) and ./botpress-e2e/hello-bot.ts as
# its bot. It prints each test's result per protocol and exits non-zero when one failed.
set -euo pipefail

BOTPRESS=${1:-/work/.mirror/botpress+botpress/repo}
shift || true
COMMIT=${BOTPRESS_COMMIT:-4f4a05a0c427ce1fac9d7859a89bb995106051ac}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
HERE=$ROOT/scripts/botpress-e2e
WORK=$(mktemp -d -t confab-botpress-e2e.XXXXXX)
CONFAB_PID=
cleanup() {
  if [ -n "$CONFAB_PID" ]; then kill "$CONFAB_PID" 2>/dev/null && wait "$CONFAB_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

echo "# Botpress $COMMIT from $BOTPRESS, in $WORK"
# Each package's own tree (a mirror may lack blobs elsewhere in the commit).
for package in chat-client chat-api; do
  git -C "$BOTPRESS" archive --prefix="packages/$package/" "$COMMIT:packages/$package" | tar -x -C "$WORK"
done
CHAT_CLIENT=$WORK/packages/chat-client
# The monorepo's root tsconfig.json, which the package's extends, stands for the compiler options vitest reads.
echo '{ "compilerOptions": { "target": "ES2022", "module": "ESNext", "strict": true } }' >"$WORK/tsconfig.json"
grep -q '"version": "1.1.0"' "$CHAT_CLIENT/package.json" || echo "# note: this commit's chat-client is not 1.1.0"
mkdir -p "$CHAT_CLIENT/src/gen/client" "$CHAT_CLIENT/src/gen/signals"
cp "$HERE/gen/client.ts" "$CHAT_CLIENT/src/gen/client/index.ts"
cp "$HERE/gen/errors.ts" "$CHAT_CLIENT/src/gen/client/errors.ts"
cp "$HERE/gen/signals.ts" "$CHAT_CLIENT/src/gen/signals/index.ts"
# The copy's bare imports (axios, eventsource, jose, uuid, zod…) resolve to Confab's installed packages.
ln -s "$ROOT/node_modules" "$WORK/node_modules"

cd "$ROOT"
[ -n "${SKIP_BUILD:-}" ] || npm run build >/dev/null

PORT=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
WEBHOOK_ID=botpress-e2e-$(node -e "console.log(require('crypto').randomBytes(6).toString('hex'))")
ENCRYPTION_KEY=$(node -e "console.log(require('crypto').randomBytes(32).toString('hex'))")
HOST=127.0.0.1 PORT=$PORT DATABASE_URL=$WORK/confab.db LOG_LEVEL=warn \
  CONFAB_WEBHOOK_ID=$WEBHOOK_ID CONFAB_ENCRYPTION_KEY=$ENCRYPTION_KEY \
  NON_PARTICIPANT_STATUS=403 CONFAB_BOT_MODULE=$HERE/hello-bot.ts \
  node dist/main.js >"$WORK/confab.log" 2>&1 &
CONFAB_PID=$!
for _ in $(seq 1 300); do
  curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null && break
  kill -0 "$CONFAB_PID" 2>/dev/null || { cat "$WORK/confab.log"; exit 1; }
  sleep 0.1
done
echo "# Confab on http://127.0.0.1:$PORT (webhook id $WEBHOOK_ID)"

status=0
API_URL=http://127.0.0.1:$PORT/$WEBHOOK_ID ENCRYPTION_KEY=$ENCRYPTION_KEY BOTPRESS_CHAT_CLIENT=$CHAT_CLIENT \
  npx vitest run --config "$HERE/vitest.config.ts" --reporter=default --reporter=json --outputFile.json="$WORK/results.json" "$@" || status=$?
node "$HERE/summary.mjs" "$WORK/results.json" || true
# Its log after the start (the bootstrap's throwaway values left out).
if [ "$status" -ne 0 ]; then echo "# Confab's log:"; sed '1,/^export CONFAB_URL=/d' "$WORK/confab.log" | tail -n 40; fi
exit "$status"
