package codemojex

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/codemojex/rules"
	"github.com/echomq/echomq/dcb"
	"github.com/echomq/echomq/groupcommit"
	"github.com/echomq/echomq/lanes"
)

// Config configures [New]. The zero value is a working configuration.
type Config struct {
	// Queue is the queue that holds the game's streams, tables and guess
	// lanes. Defaults to "cm".
	Queue string

	// Clock is the time source of timers, expiry and sessions. Defaults to
	// the client's clock.
	Clock echomq.Clock

	// Rand draws secrets and reduced keyboards. Defaults to nil: crypto/rand,
	// so no one can predict a secret from earlier ones; a seeded source
	// makes tests reproducible. Salts always come from crypto/rand.
	Rand *rand.Rand

	// Sets are emoji sets offered besides the built-in ones (a set of the
	// same name replaces the built-in one). Defaults to none.
	Sets []*rules.Set

	// StarterKeys and StarterClips are granted to a player at their first
	// sign-in (booked as "starter" ledger rows). Default to 0.
	StarterKeys, StarterClips int64

	// SessionTTL is how long a session token stays valid. Defaults to 30
	// days.
	SessionTTL time.Duration

	// PendingAfter is how long a charged guess may wait for its score
	// before the sweep queues its job again (a no-op when the job is still
	// there). Defaults to 1 minute.
	PendingAfter time.Duration

	// Attempts bounds the runs of one optimistic transaction under
	// concurrent writes. Defaults to 1000.
	Attempts int

	// Lanes configures the guess queue. Defaults to nil: the lanes
	// defaults (one guess in flight per player).
	Lanes *lanes.Config

	// Logger receives what the workers and the sweep do. Defaults to
	// slog.Default().
	Logger *slog.Logger
}

// Engine is the codemojex game on one client: rooms, games, wallets and
// sessions as records, every transition one optimistic transaction over
// those records and the event streams (but the joins, the game's close
// event and the first sign-ins, decided by conditional appends of tagged
// events: see the package doc), and guesses queued as jobs on their
// player's lane. It is safe for concurrent use, in any number of processes
// sharing one engine.
type Engine struct {
	client *echomq.Client
	cfg    Config
	queue  string
	jobs   *lanes.Queue
	store  *dcb.Store // the rules decided over consistency boundaries
	sets   map[string]*rules.Set
	log    *slog.Logger

	// streamMu serializes, within this process, the ends of transactions
	// that append to one stream: each such transaction watches the stream,
	// so two in flight at once abort each other. Holding the stream's lock
	// from the append to the commit (a few round trips) turns those aborts
	// into a short queue; transactions of other processes still retry. An
	// attempt takes the locks of its streams in the order of [Streams] and
	// lets them go when it ends, so no two attempts wait on each other.
	streamMu [11]sync.Mutex // one per Streams
	randMu   sync.Mutex

	// classic remembers the games known to be classic (a mode never
	// changes), whose points are never sealed.
	classic sync.Map

	submits *groupcommit.Committer[submitReq, submitRes] // concurrent submits share transactions
	scores  *groupcommit.Committer[string, scoreRes]
	holds   *groupcommit.Committer[holdRecord, holdRes] // the debits of guesses in other shards
	takes   *groupcommit.Committer[takeReq, takeRes]    // the records of guesses paid in other shards

	hooks hooks

	// sh is the game of several shards this engine is shard idx of (nil
	// on its own): it settles the holds and prizes of players whose
	// wallets live in another shard.
	sh  *Shards
	idx int
}

// hooks are test seams: stages of the scoring worker a test can stop at.
type hooks struct {
	beforeScore func(guess string) // inside the transaction, before commit
	afterScore  func(guess string) // after the commit, before the job is acked
	beforeQueue func(guess string) error
	// beforeCharge runs after a batch's acceptances, before its charge; an
	// error fails the batch's accepted guesses uncharged.
	beforeCharge func(guesses []string) error
	// inCharge runs inside each attempt of the charge's transaction, after
	// its reads, before its commit.
	inCharge func(guesses []string)
	// inRefuse runs inside each attempt of the sweep's refusal of a lost
	// guess, after its read, before its commit.
	inRefuse func(guess string)
	// inVoid runs inside each attempt of the hold sweep's void mark, after
	// its read of the guess's record, before its commit.
	inVoid func(guess string)
	// beforePayHome, when it fails, stops a settlement before it credits
	// the prizes of winners of other shards.
	beforePayHome func() error
	// requeueChunk, when set, is how many guesses Requeue judges at once
	// (500 otherwise).
	requeueChunk int
}

// batchTimeout bounds one shared transaction: once a guess is taken it is
// carried out whatever happens to its caller's context, so its outcome is
// known.
const batchTimeout = 30 * time.Second

// New returns the engine on client. A nil config is an empty [Config]: the
// documented defaults, queue "cm"; New copies config and keeps no pointer
// to it. It returns an [*echomq.NameError] for a bad queue name and does no
// I/O.
func New(client *echomq.Client, config *Config) (*Engine, error) {
	var cfg Config
	if config != nil {
		cfg = *config
	}
	cfg.Queue = cmp.Or(cfg.Queue, "cm")
	if cfg.Clock == nil {
		cfg.Clock = client.Now
	}
	cfg.SessionTTL = cmp.Or(cfg.SessionTTL, 30*24*time.Hour)
	cfg.PendingAfter = cmp.Or(cfg.PendingAfter, time.Minute)
	cfg.Attempts = cmp.Or(cfg.Attempts, 1000)
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.StarterKeys < 0 || cfg.StarterClips < 0 {
		return nil, badArg("starter balance", "must not be negative")
	}
	jobs, err := lanes.New(client, cfg.Queue, cfg.Lanes)
	if err != nil {
		return nil, err
	}
	store, err := dcb.New(client, cfg.Queue)
	if err != nil {
		return nil, err
	}
	e := &Engine{client: client, cfg: cfg, queue: cfg.Queue, jobs: jobs, store: store, log: cfg.Logger, sets: map[string]*rules.Set{}}
	e.submits = groupcommit.New(groupcommit.Config[submitReq, submitRes]{
		Max: 64, Flights: 4, Timeout: batchTimeout,
		Run: func(ctx context.Context, reqs []submitReq) ([]submitRes, error) { return e.submitBatch(ctx, reqs), nil },
	})
	e.scores = groupcommit.New(groupcommit.Config[string, scoreRes]{
		Max: 64, Flights: 4, Timeout: batchTimeout,
		Run: func(ctx context.Context, guesses []string) ([]scoreRes, error) {
			return e.scoreBatch(ctx, guesses), nil
		},
	})
	e.holds = groupcommit.New(groupcommit.Config[holdRecord, holdRes]{
		Max: 64, Flights: 4, Timeout: batchTimeout,
		Run: func(ctx context.Context, hs []holdRecord) ([]holdRes, error) { return e.debitHolds(ctx, hs), nil },
	})
	e.takes = groupcommit.New(groupcommit.Config[takeReq, takeRes]{
		Max: 64, Flights: 4, Timeout: batchTimeout,
		Run: func(ctx context.Context, reqs []takeReq) ([]takeRes, error) { return e.takeBatch(ctx, reqs), nil },
	})
	for _, name := range rules.Builtins() {
		s, err := rules.Builtin(name)
		if err != nil {
			return nil, err
		}
		e.sets[name] = s
	}
	for _, s := range cfg.Sets {
		if s != nil {
			e.sets[s.Name()] = s
		}
	}
	return e, nil
}

// Client returns the client the engine runs on.
func (e *Engine) Client() *echomq.Client { return e.client }

// Queue returns the engine's queue name.
func (e *Engine) Queue() string { return e.queue }

// Jobs returns the lanes queue that carries the guesses.
func (e *Engine) Jobs() *lanes.Queue { return e.jobs }

// Stream returns the handle of one of the engine's event streams.
func (e *Engine) Stream(name string) *echomq.Stream { return e.client.Stream(e.queue, name) }

// Set returns the emoji set named name, or a [*NotFoundError].
func (e *Engine) Set(name string) (*rules.Set, error) {
	s, ok := e.sets[name]
	if !ok {
		return nil, notFound("emoji set", name)
	}
	return s, nil
}

// SetNames returns the names of the emoji sets rooms may use, sorted.
func (e *Engine) SetNames() []string {
	names := make([]string, 0, len(e.sets))
	for n := range e.sets {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func (e *Engine) now() time.Time { return e.cfg.Clock() }

func (e *Engine) nowMS() int64 { return e.now().UnixMilli() }

// mint mints an id under brand in the engine's queue (ids are unique
// within their queue): an error when the queue's node id lease cannot be
// taken or may have lapsed.
func (e *Engine) mint(ctx context.Context, brand string) (string, error) {
	id, err := e.client.MintID(ctx, e.queue, brand)
	if err != nil {
		return "", fmt.Errorf("codemojex: mint a %s id: %w", brand, err)
	}
	return id.String(), nil
}

// Now returns the engine's clock reading.
func (e *Engine) Now() time.Time { return e.cfg.Clock() }
