// Package bot is the Telegram face of codemojex: commands and inline
// keyboards over the engine, on the go-telegram/bot Bot API library.
//
// /start signs the Telegram user in (provider "telegram", subject the user
// id), /rooms lists the rooms with join buttons, joining shows the game's
// emoji keyboard, and presses compose a six-emoji guess in place (the
// message is edited as it grows: pick, undo, clear) until submit hands it
// to the engine. /me shows balances and recent guesses, /top the current
// game's leaderboard. After scoring a player is told their points; when a
// game settles every player is told the result and winners their prize.
//
// # Updates
//
// Updates arrive by long polling ([Bot.Run]) or by webhook ([Bot.Webhook],
// which compares the secret token Telegram echoes in
// X-Telegram-Bot-Api-Secret-Token in constant time and answers 401
// otherwise). Both hand each update to [Bot.Handle]. The bot's state (each
// player's chat and recent guesses, each chat's guess being composed) lives
// in records of its queue, changed by transactions, so webhooks served
// concurrently or by several processes see one state.
//
// # The outbox
//
// Every message goes out through the outbox: a lanes queue with one lane
// per chat ("chat.<id>"), so a chat's messages are sent one at a time and
// in order, durably, by the senders [Bot.Serve] runs. Each send waits for a
// global rate limit (Config.GlobalRate, 30/s) and the chat's (ChatRate 1/s,
// burst ChatBurst 3). A 429 holds the chat's lane for the retry_after
// Telegram asked for; a 5xx or a network failure backs off exponentially;
// any other refusal (the user blocked the bot) kills the job, which stays
// in the outbox's dead list. Callback answers and keyboard edits, which the
// user is waiting on, are sent at once under the same limits and retried
// in place.
//
// # Notifications, once
//
// Consumer groups on the engine's guess-scored and game-settled streams
// turn events into notifications. Delivery is at least once, so each
// notification gets a record keyed by the event and the player: the first
// delivery writes it with a fresh job id and queues the job; a
// redelivery queues the same id again, which the outbox refuses as a
// duplicate; once Telegram took the message the record says so and nothing
// is queued or sent again. The one window left: the process dies after
// Telegram accepted a message and before the record was marked, and the
// message goes out a second time.
package bot
