package lanes

import (
	"strconv"
	"time"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/groupcommit"
	"github.com/echomq/echomq/internal/clientconn"
	"github.com/echomq/echomq/internal/keyspace"
	"github.com/echomq/echomq/internal/wire"
)

// Limits of the inputs, checked before any I/O.
const (
	// MaxClaim is the most jobs one [Queue.Claim] leases.
	MaxClaim = 1000
	// MaxErrorLen is the longest error text kept on a job; longer texts are
	// cut.
	MaxErrorLen = 1024
	// MinLease is the shortest lease a claim may ask for.
	MinLease = 10 * time.Millisecond
)

// Config configures a [Queue]. The zero value is a working configuration.
// Every process using one queue should use the same Config: the settings
// are applied by the process that calls the verb.
type Config struct {
	// MaxPayload is the largest payload Enqueue accepts, in bytes. Defaults
	// to 1 MiB.
	MaxPayload int

	// MaxAttempts is how many claims a job gets before it dies, when its
	// enqueue does not say. A failed attempt and a lease that lapsed both
	// count; a release at shutdown does not. Defaults to 5.
	MaxAttempts int

	// Tombstone is how long a completed job's row stays (without its
	// payload) so that enqueueing its id again is refused as a duplicate.
	// Defaults to 1h; a negative value keeps no tombstone, so a completed
	// id may be enqueued again at once.
	Tombstone time.Duration

	// History is how many transitions each job keeps in its history list.
	// Defaults to 32; a negative value keeps none.
	History int
}

// Upper bounds of [Config], refused above with an [*echomq.ArgumentError]
// by [New]: a payload travels as one engine value (its proto-max-bulk-len
// is 512 MiB by default), and attempts and history are counters a script
// walks.
const (
	MaxPayloadLimit = 512 << 20
	MaxAttemptsMax  = 1000
	MaxHistory      = 1000
)

// validate checks the fields that have no default meaning past a bound.
func (c Config) validate() error {
	switch {
	case c.MaxPayload > MaxPayloadLimit:
		return argError("max payload", strconv.Itoa(c.MaxPayload)+" bytes is above "+strconv.Itoa(MaxPayloadLimit))
	case c.MaxAttempts > MaxAttemptsMax:
		return argError("max attempts", strconv.Itoa(c.MaxAttempts)+" is above "+strconv.Itoa(MaxAttemptsMax))
	case c.History > MaxHistory:
		return argError("history", strconv.Itoa(c.History)+" is above "+strconv.Itoa(MaxHistory))
	}
	return nil
}

func (c Config) withDefaults() Config {
	if c.MaxPayload <= 0 {
		c.MaxPayload = 1 << 20
	}
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = 5
	}
	if c.Tombstone == 0 {
		c.Tombstone = time.Hour
	}
	if c.Tombstone < 0 {
		c.Tombstone = 0
	}
	if c.History == 0 {
		c.History = 32
	}
	if c.History < 0 {
		c.History = 0
	}
	return c
}

// Queue is the lanes job queue of one queue name on a client: jobs on
// lanes, served one lane per step of a rotation, in order within a lane.
// It is safe for concurrent use; it holds no state of its own beyond its
// configuration, so any number of Queues (in any number of processes) may
// serve the same queue name.
type Queue struct {
	client *echomq.Client
	conn   *wire.Conn
	name   string
	keys   *wire.LaneKeys
	cfg    Config

	enqueues  *groupcommit.Committer[wire.LaneAdmit, wire.LaneAdmitted]
	completes *groupcommit.Committer[*Job, wire.LaneVerdict]
}

// New returns the lanes queue named queue on client. It returns an
// [*echomq.NameError] for a bad queue name (the grammar [A-Za-z0-9._-]{1,128},
// not "emq"), and does no I/O.
func New(client *echomq.Client, queue string, cfg *Config) (*Queue, error) {
	if err := keyspace.Queue(queue); err != nil {
		return nil, err
	}
	var c Config
	if cfg != nil {
		c = *cfg
	}
	if err := c.validate(); err != nil {
		return nil, err
	}
	if client == nil {
		return nil, argError("client", "must not be nil")
	}
	q := &Queue{
		client: client,
		conn:   clientconn.Of(client),
		name:   queue,
		keys:   laneKeys(queue),
		cfg:    c.withDefaults(),
	}
	q.enqueues = groupcommit.New(groupcommit.Config[wire.LaneAdmit, wire.LaneAdmitted]{
		Run: q.enqueueRun, Max: wire.LaneEnqueueMax, Flights: commitFlights, Timeout: settleTimeout,
	})
	q.completes = groupcommit.New(groupcommit.Config[*Job, wire.LaneVerdict]{
		Run: q.completeRun, Max: completeMax, Flights: commitFlights, Timeout: settleTimeout,
	})
	return q, nil
}

// commitFlights is how many group-commit script calls of one kind a Queue
// keeps in flight at once. One measured best: the engine runs scripts one
// at a time anyway, and a single flight makes the batches under load the
// largest.
const commitFlights = 1

func laneKeys(q string) *wire.LaneKeys {
	return wire.NewLaneKeys(wire.LaneKeys{
		JobPrefix:  keyspace.JobPrefix(q),
		LanePrefix: keyspace.LanePrefix(q),
		Ring:       keyspace.LaneRingKey(q),
		RingSet:    keyspace.LaneRingSetKey(q),
		Active:     keyspace.LaneActiveKey(q),
		Schedule:   keyspace.LaneScheduleKey(q),
		Backoff:    keyspace.LaneBackoffKey(q),
		Hold:       keyspace.LaneHoldKey(q),
		Dead:       keyspace.LaneDeadKey(q),
		Paused:     keyspace.LanePausedKey(q),
		InFlight:   keyspace.LaneInFlightKey(q),
		Limits:     keyspace.LaneLimitKey(q),
		Lanes:      keyspace.LanesKey(q),
		Stats:      keyspace.LaneStatsKey(q),
		Seq:        keyspace.LaneSeqKey(q),
		Wake:       keyspace.LaneWakeKey(q),
		Meta:       keyspace.LaneMetaKey(q),
	})
}

// Name returns the queue name.
func (q *Queue) Name() string { return q.name }

// Client returns the client the queue runs on.
func (q *Queue) Client() *echomq.Client { return q.client }

// ValidateLane returns the error Enqueue would refuse lane with: an
// [*echomq.NameError] (matching [echomq.ErrInvalidName]) for an empty lane,
// one over 256 bytes, invalid UTF-8 or a control character.
func ValidateLane(lane string) error { return keyspace.Lane(lane) }
