package codemojex

// The domain event streams, one per event type, all in the engine's queue
// (Config.Queue, "cm" by default). Their payloads are named for the domain
// and never carry a secret or the codes of a guess in an open game.
const (
	// StreamRoomOpened: an operator created a room. Fields: room, name, set,
	// mode, free, fee, currency, prize, duration_ms, cells.
	StreamRoomOpened = "room-opened"
	// StreamGameStarted: the first joiner of a waiting room started a game.
	// Fields: game, room, player, name, mode, set, keyboard (the codes a
	// guess may use, comma-separated), prize, fee, currency, started_ms,
	// ends_ms, and commitment in a blind game.
	StreamGameStarted = "game-started"
	// StreamPlayerJoined: a later joiner entered a running game. Fields:
	// game, room, player, name, joined_ms. Tags: game, player, room (see
	// [TagGame]); appended on the condition that the player has not joined
	// the game and the game is not closed.
	StreamPlayerJoined = "player-joined"
	// StreamGuessScored: the scoring worker scored a guess. Fields: game,
	// room, player, guess, job, attempt, and points, pct, best in a
	// classic game or sealed=1 in a blind one (whose points stay hidden
	// until the reveal).
	StreamGuessScored = "guess-scored"
	// StreamGameSettled: a game closed and paid its prize. Fields: game,
	// room, mode, reason (crack, timer or operator), prize, paid, winners
	// (JSON [{player, amount}]), players, guesses, best, started_ms,
	// settled_ms.
	StreamGameSettled = "game-settled"
	// StreamGameRevealed: a blind game closed and revealed its secret.
	// Fields: game, room, secret, salt, commitment, board (JSON [{player,
	// best, at}]).
	StreamGameRevealed = "game-revealed"
	// StreamGameClosed: a game stopped taking joins and guesses (before
	// its settlement). Fields: game, room, reason, closed_ms. Tags: game,
	// room; one per game.
	StreamGameClosed = "game-closed"
	// StreamPlayerRegistered: a sign-in identity made its player, at its
	// first sign-in. Fields: player, name, provider, created_ms. Tags:
	// identity (the provider and a hash of the subject), player; one per
	// identity.
	StreamPlayerRegistered = "player-registered"
	// StreamGuessAccepted: an open game took a guess, before its charge.
	// Fields: game, room, player, guess, job, currency, fee, accepted_ms
	// (never the codes). Tags: game, player, room; appended on the
	// condition that the game has no game-closed. Each ends in its charge
	// (the guess recorded, a ledger row of reason guess) or in one
	// guess-refused.
	StreamGuessAccepted = "guess-accepted"
	// StreamGuessRefused: an accepted guess that was never charged: its
	// charge refused it (the balance spent since the check), or it was
	// lost (no charge came within Config.PendingAfter: a process died, or
	// the charge failed) and the sweep refused it. Fields: game, room,
	// player, guess, job, reason (insufficient, invalid or lost),
	// refused_ms. Tags: game, player, room; appended with the guess's
	// record (status refused), so a late charge of the guess refuses.
	StreamGuessRefused = "guess-refused"
	// StreamLedger: the append-only ledger, one row per balance change.
	// Fields: txn (a TXN id), player, currency, delta, balance (after),
	// reason, ref.
	StreamLedger = "ledger"
)

// Streams lists the streams the engine appends to, in the lock order of
// its transactions. Every event is tagged with the game, player and room
// it is about; player-joined, guess-accepted, player-registered (and a
// repaired game-closed) are appended by conditional appends, outside any
// transaction, the others inside transactions.
var Streams = []string{
	StreamRoomOpened, StreamGameStarted, StreamPlayerJoined, StreamGuessScored, StreamGameSettled, StreamGameRevealed,
	StreamGameClosed, StreamPlayerRegistered, StreamGuessAccepted, StreamGuessRefused, StreamLedger,
}

// The tables (records beside the streams) the engine keeps in its queue.
const (
	tableRooms      = "rooms"      // ROM id → Room
	tableGames      = "games"      // GAM id → gameRecord (holds the secret)
	tableMembers    = "members"    // "<GAM>.<PLR>" → member
	tableGuesses    = "guesses"    // GES id → guessRecord (holds the codes)
	tableCursors    = "cursors"    // "requeue", "accepted" → sweepCursor (the sweep's places in the ledger and guess-accepted)
	tablePlayers    = "players"    // PLR id → Player
	tableIdentities = "identities" // "<provider>.<subject>" → PLR id
	tableSessions   = "sessions"   // hex SHA-256 of a token → session
	tableWallets    = "wallets"    // PLR id → Wallet
	tableHolds      = "holds"      // "<shard>.<GES>" → holdRecord (a fee debited for a guess in another shard)
	tableVoids      = "voids"      // GES id → ms (a hold's guess that its home shard gave up: never recorded)
	tablePrizes     = "prizes"     // "<shard>.<GAM>.<PLR>" → prizeRecord (a prize of another shard's game, credited)
	tableRevoked    = "op-revoked" // operator session nonce → expiry ms (signed out)
)

// Tables lists the engine's tables, for the keyspace registry.
var Tables = []string{tableRooms, tableGames, tableMembers, tableGuesses, tableCursors, tablePlayers, tableIdentities, tableSessions, tableWallets, tableRevoked}

// Brands of the ids the engine mints.
const (
	BrandPlayer = "PLR"
	BrandRoom   = "ROM"
	BrandGame   = "GAM"
	BrandGuess  = "GES"
	BrandTxn    = "TXN"
	BrandJob    = "JOB"
)

// Game statuses. A game is open from its first join; a crack, the sweep or
// an operator moves it to closing (exactly once); the settlement pays the
// prize and moves it to settled.
const (
	StatusOpen    = "open"
	StatusClosing = "closing"
	StatusSettled = "settled"
)

// Room statuses: a room waits for its next game, or has one running.
const (
	RoomWaiting = "waiting"
	RoomActive  = "active"
)

// Guess statuses: queued once charged, then scored, or void when its game
// closed before it was scored, or refunded when it could not be queued or
// its scoring job died. A void or refunded guess gave its fee back. A
// guess accepted and never charged is refused (its guess-refused in the
// log): it neither paid nor counts.
const (
	GuessQueued   = "queued"
	GuessScored   = "scored"
	GuessVoid     = "void"
	GuessRefunded = "refunded"
	GuessRefused  = "refused"
)

// Refusal reasons of an accepted guess (guess-refused's reason).
const (
	// RefusedInsufficient: the charge found the balance spent since the
	// check (a concurrent charge of the player).
	RefusedInsufficient = "insufficient"
	// RefusedInvalid: the charge refused it for another rule.
	RefusedInvalid = "invalid"
	// RefusedLost: no charge came within Config.PendingAfter (a process
	// died after the acceptance, or the charge failed); the sweep refused it.
	RefusedLost = "lost"
)

// Close reasons.
const (
	ReasonCrack    = "crack"
	ReasonTimer    = "timer"
	ReasonOperator = "operator"
)
