# The five-minute tour of the REST API and GraphQL, with curl. It reads CONFAB_URL, WEBHOOK_ID, TOKEN
# and WORKSPACE (the values the first start printed) and prints each answer.
CHAT=$CONFAB_URL/$WEBHOOK_ID
ADMIN=$CONFAB_URL/v1/admin
json() { node -pe "JSON.parse(require('fs').readFileSync(0, 'utf8')).$1"; }

echo '# a user, and the key that acts for it (no key needed to create one in the default shared key mode)'
ANSWER=$(curl -s -X POST $CHAT/users -H 'content-type: application/json' -d '{"name":"Ada"}')
echo "$ANSWER"   # {"user":{"id":"01K…","name":"Ada","createdAt":"…","updatedAt":"…"},"key":"eyJhbGciOi…"}
KEY=$(echo "$ANSWER" | json key)

echo '# a conversation (you own it and are its first participant; its id is yours to choose)'
CONVERSATION=support-$(date +%s)
curl -s -X POST $CHAT/conversations -H "x-user-key: $KEY" -H 'content-type: application/json' -d "{\"id\":\"$CONVERSATION\"}"; echo

echo '# its live signals as Server-Sent Events, heard for 3 seconds while a message is posted in it'
curl -sN --max-time 3 $CHAT/conversations/$CONVERSATION/listen -H "x-user-key: $KEY" &
sleep 1
curl -s -X POST $CHAT/messages -H "x-user-key: $KEY" -H 'content-type: application/json' \
  -d "{\"conversationId\":\"$CONVERSATION\",\"payload\":{\"type\":\"text\",\"text\":\"Hello!\"}}"; echo
wait

echo '# the messages, newest first: the echo bot has answered'
curl -s $CHAT/conversations/$CONVERSATION/messages -H "x-user-key: $KEY"; echo

echo '# the participants (the bot joined when it answered), page by page with ?nextToken='
curl -s $CHAT/conversations/$CONVERSATION/participants -H "x-user-key: $KEY"; echo

echo '# a custom event'
curl -s -X POST $CHAT/events -H "x-user-key: $KEY" -H 'content-type: application/json' \
  -d "{\"conversationId\":\"$CONVERSATION\",\"payload\":{\"type\":\"page_view\",\"path\":\"/pricing\"}}"; echo

echo '# the same data in one GraphQL round trip (open $CHAT/graphql in a browser for GraphiQL)'
curl -s $CHAT/graphql -H "x-user-key: $KEY" -H 'content-type: application/json' -d "{\"query\": \"{ me { userId name } \
  conversation(id: \\\"$CONVERSATION\\\") { participants(first: 10) { edges { node { userId isBot } } } \
  messages(first: 5) { edges { node { author { userId } payload { __typename ... on TextPayload { text } } } } } } }\"}"; echo

echo '# administration: the bots of the workspace'
curl -s $ADMIN/bots -H "authorization: Bearer $TOKEN" -H "x-workspace-id: $WORKSPACE"; echo
