// Package views holds the read models of codemojex, each a projection of
// the engine's event streams built with the projection package and
// rebuildable from the log: the live activity feed ([Feed]), the results
// per day ([Results]), the counts per room ([RoomStats]), the leaderboard
// and totals of each game ([Boards]), the lobby cards ([Lobby]) and each
// player's running tally and history ([Players]). [Views] keeps them all
// current; each fold is order-independent across its streams, so its live
// state equals a rebuild.
//
// No view holds a secret or a guess's codes: the streams never carry them.
// A player's history lists the ids of their guesses, and the engine joins
// in the codes for that player only.
//
// The [Hub] follows the streams that tell a waiting player something
// changed and wakes waiters (a guess scored, a game settled) and
// subscribers (a live feed).
package views
