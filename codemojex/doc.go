// Package codemojex is the game engine of codemojex, a Mastermind game
// played with emoji for prizes, built on EchoMQ's public API only: records
// and optimistic transactions ([tables.Update]) for its state, one
// stream per domain event type, and a lanes job queue for the guesses. The
// rules themselves (sets, secrets, scoring, the split of the prize) are the
// pure package rules.
//
// # The lifecycle
//
// An operator creates a room ([Engine.CreateRoom]): a template of name,
// emoji set, mode (classic or blind), duration, prize and fee. A room waits
// until its first player joins ([Engine.Join]): that join starts a game
// (the room's props and keyboard snapshotted, a secret drawn, the timer
// started); later joiners enter it. A member submits guesses
// ([Engine.Submit]); each is charged and queued as a JOB on the player's
// lane, and the scoring worker ([Engine.Worker]) scores it. A 600 closes a
// classic game at once; otherwise the sweep ([Engine.Sweep]) closes it when
// its time is up; an operator may close it any time ([Engine.Close]). The
// close pays the prize winner-take-all (an even split on a tie, the
// remainder one diamond each to who reached the top first) and the room
// waits for its next game.
//
//	room:  waiting ──first join──▶ active ──settled──▶ waiting ──▶ …
//	game:  open ──crack │ timer (sweep) │ operator──▶ closing ──paid──▶ settled
//	guess: queued ──scored while open──▶ scored
//	              ──its game closed first──▶ void (refunded)
//	              ──could not be queued, or its job died──▶ refunded
//
// # Every transition is one transaction
//
// Each transition reads the records it depends on (watching them) and
// commits its record writes and its event appends together, or not at all
// (it runs again when a concurrent writer changed what it read), except the
// rules below that are decided over events:
//
//   - submit: the game is open and not expired, the player a member, the
//     guess valid, the balance enough (read); the game takes the guess by
//     a conditional append (below); then the wallet debit, its ledger row
//     and the guess record (status queued, which is its pending mark)
//     commit together. The enqueue follows with the job id minted before;
//     if it fails the charge is refunded by a second transaction, and if
//     the process dies in between, the sweep's [Engine.Requeue] finds the
//     queued guess by its ledger row and queues it again under the same
//     job id (refused as a duplicate when it is there).
//   - score: the guess record moves from queued to scored, the player's
//     attempts and best move, and guess-scored is appended, together; a
//     redelivered job finds the guess scored and changes nothing. A 600 in
//     a classic game also moves the game to closing (and appends its
//     game-closed) in that transaction.
//   - close: a transaction moves an open game to closing and appends its
//     game-closed, so a game closes exactly once whoever races (the crack,
//     sweeps, operators), in the records and the log at once. The
//     settlement then reads the final board (nobody scores into or joins a
//     closing game), and one transaction pays the winners (wallets and
//     ledger rows), settles the game, puts the room back to waiting and
//     appends game-settled (and game-revealed in a blind game); it commits
//     only while the game is still closing, and a sweep finishes a
//     settlement whose closer died.
//
// # Rules decided over consistency boundaries
//
// Four rules are decided by a query of the events about one thing and an
// append on the condition that nothing matching the query came since the
// read (package dcb), not by records: the rule's fact is a tagged event,
// and the record that used to decide it is written after the event, from
// it, and repaired from it by the next call if a process died in between.
// Each needs no record of its own to be exact, and a decision about one
// game or one identity never conflicts with another's (ExpectTop on a
// whole per-type stream would serialise them all).
//
//   - A player joins a game once ([Engine.Join], a game already running):
//     player-joined (tags game, player, room) is appended on the condition
//     that neither a player-joined of the pair nor the game's game-closed
//     is in the log. Of two racing joins one appends, the other reads it
//     and answers Already. The member record (attempts, best) follows.
//   - Nobody joins a closed game: the close appends game-closed (tags
//     game, room) with its record, and the settlement reads the roster only
//     after it, so a join either precedes it and is on the board, or meets
//     it and starts the room's next game.
//   - A guess counts only while its game is open ([Engine.Submit]):
//     guess-accepted (tags game, player, room) is appended on the condition
//     that the game has no game-closed; then the charge (wallet, ledger
//     row, guess record) follows in a transaction keyed by the guess. A
//     guess racing the close is accepted before it (then scored, or void
//     and refunded) or refused with [ErrClosed], nothing charged. Every
//     guess-accepted ends in its charge or in one guess-refused written
//     with the guess's record (status refused): by the charge when it
//     refuses the guess (the balance spent since the check), or by the
//     sweep's [Engine.Requeue] when no charge came within PendingAfter;
//     both read the guess's record, so only one of them commits.
//   - A sign-in identity makes one player ([Engine.SignIn], first sign-in):
//     player-registered (tags identity, a hash of the provider's subject,
//     and player) is appended on the condition that the identity has none;
//     concurrent first sign-ins all get the winner's player, and its
//     records (and starter grant) are written once.
//
// The close itself (open → closing, exactly once), the charge of an
// accepted guess and the score stay transactions: they write wallets,
// guesses and members, which a conditional append cannot write with it.
// The close voids and refunds an accepted guess it beat to the score.
// Every event, those of transactions too, is tagged with the game, player
// and room it is about, so a query sees it.
//
// Concurrent submits, and concurrent scores, within one process share
// transactions (a group commit): each request is still checked and applied
// on its own, in arrival order, against the records as the earlier ones
// left them, and a refused one writes nothing (but an accepted guess its
// charge refuses, which writes its refusal); the batch commits together.
// The streams they append to are watched, so sharing one commit is what
// lets many guesses through a hot stream at once.
//
// # Events and privacy
//
// The engine appends to one stream per event type in its queue (see
// [Streams]); payload fields are named for the domain and never "id". The
// secret stays in the game record until the game is settled, and a
// guess's codes stay in its record, readable only by its player
// ([Engine.Guesses]); no stream carries either. A blind game's guess-scored
// events carry no points (sealed=1); its game-revealed event reveals the
// secret, the salt and the board at the close, and anyone can check the
// commitment published in game-started.
//
// # Wallets
//
// A wallet holds keys (paid rooms), clips (free rooms) and diamonds
// (prizes); no balance ever goes below zero. Every change appends a row to
// the ledger stream (a TXN id, the player, the currency, the signed delta,
// the balance after, the reason and a reference), in the same transaction
// as the change, so the ledger always sums to the wallets.
//
// # Keys
//
// Tables (each record "emq:{q}:rec:<table>:<key>" with its index set
// "emq:{q}:rec:<table>"): rooms, games, members ("<GAM>.<PLR>"), guesses,
// cursors (the sweep's places in the ledger and in guess-accepted),
// players, identities ("<provider>.<subject>"), sessions (the SHA-256 of a
// token), wallets, op-revoked (signed-out operator sessions) and, in a
// sharded game, holds, voids and prizes (a player's wallet writes for
// another shard's rooms). Streams: the event streams above and ledger; the
// tagged events are also in the queue's dcb index. The guess queue is a
// lanes queue named by the queue, one lane per player. docs/codemojex.md
// has the whole list.
package codemojex
