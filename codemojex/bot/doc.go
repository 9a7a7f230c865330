// Package bot is the Telegram face of codemojex: a Bot API client that
// turns commands and inline-keyboard presses into engine calls.
//
// /start signs the Telegram user in (provider "telegram", subject the user
// id), /rooms lists the rooms with join buttons, joining shows the game's
// emoji keyboard, and presses compose a six-emoji guess in place (the
// message is edited as it grows) until submit hands it to the engine. /me
// shows balances and recent guesses, /top the current game's leaderboard.
//
// Updates arrive by long polling ([Bot.Run]) or by webhook ([Bot.Webhook],
// which checks the secret token Telegram echoes in
// X-Telegram-Bot-Api-Secret-Token). Every outbound call passes a global and
// a per-chat rate limit and is retried with backoff on 429 (honouring
// retry_after) and on 5xx.
package bot
