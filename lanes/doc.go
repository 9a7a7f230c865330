// Package lanes is a job queue with one FIFO lane per key, fair across
// lanes, on the engine of an [echomq.Client].
//
// A job is a JOB id, a payload of bytes and a lane: any key of the caller's
// domain, such as the PLR id of a player. Within a lane jobs run in the
// order they were enqueued, at most Limit of them at once (1 unless
// configured, which keeps the lane strictly in order); across lanes, claims
// rotate so that every lane with work is served once before any is served
// twice. A player who submits a thousand guesses delays another player's
// single guess by at most one turn of the rotation.
//
//	q, _ := lanes.New(client, "cm", nil)
//	id, err := q.Enqueue(ctx, "PLR0KHTOWnGLuC", payload, nil)
//
//	w, _ := lanes.NewWorker(q, lanes.HandlerFunc(score), &lanes.WorkerConfig{Concurrency: 16})
//	w.Start(ctx)
//	defer w.Stop(ctx)
//
// # States
//
// A job is in exactly one state:
//
//	         enqueue                     enqueue with delay
//	            │                                │
//	            ▼            due                 ▼
//	┌──────► waiting ◄─────────────────────── delayed
//	│           │ claim (rotation, lane limit)
//	│           ▼
//	│        active ──── complete ───► completed (tombstone, then gone)
//	│        │ │  │
//	│ release│ │  └── fail, attempts left ──► backoff (lane held) ──┐
//	│ lapsed │ │                                                    │
//	│  lease │ └───── fail at max attempts, cancel, lapsed ──► dead │
//	└────────┴──────────────────────────────────────────────────────┘
//	                     backoff ends; retry of a dead job
//
// A job that fails, is released at shutdown or whose lease lapses goes back
// to the head of its lane, at its arrival number. While a failed job waits
// out its backoff its lane is held: no later job of the lane runs before
// it. A job whose attempts are spent, or that its handler cancels, is dead;
// its lane moves on. Pausing a lane or the whole queue stops claims and
// leaves every job where it is.
//
// Every change of state is one Lua script on the queue's cluster slot, so
// the engine serialises them and a job is never in two places.
//
// # Leases
//
// A claim leases a job until a deadline on the engine's clock and hands out
// a fencing token. The holder renews the lease ([Queue.Extend], the worker's
// heartbeat) and settles the job with the token. When a lease lapses the
// janitor ([Queue.Sweep], which every worker runs) returns the job to the
// head of its lane and the old token stops working: the old holder's
// heartbeat fails, its handler's context is cancelled with [ErrLeaseLost],
// and its late completion is refused, so the job is neither lost nor
// resurrected. A job that kills its worker on every run dies after its
// MaxAttempts like one that fails. Delivery is at least once: make handlers
// idempotent on the job id.
//
// # Duplicates
//
// A producer may supply the job id ([EnqueueOpts].ID). An enqueue whose id
// is held by a live job, a dead job or a job completed within
// [Config].Tombstone is refused with a [*DuplicateError] and writes nothing,
// so a producer that retries after an error cannot run a job twice.
//
// # Workers
//
// [Worker] runs Concurrency handler goroutines per process. Its dispatcher
// claims while it holds fewer than Concurrency+Prefetch jobs and otherwise
// parks on the queue's wake list (BLPOP on a connection of its own), which
// the scripts feed when a lane becomes servable. Handler results are typed:
// nil completes, [RetryAfter] retries after a given delay, [Cancel] gives the
// job up, any other error or a panic retries after the configured
// [Backoff]. [Worker.Stop] stops claiming, lets running handlers finish
// within its context and releases the rest to the head of their lanes
// without spending an attempt.
//
// # Inspection
//
// [Queue.Stats] counts jobs per state in O(1) from the state sets;
// [Queue.Lanes], [Queue.Lane], [Queue.Jobs] and [Queue.Job] list and
// inspect lanes and jobs with their history; [Queue.RetryDead] and
// [Queue.DeleteDead] handle dead jobs. The keys and scripts are documented
// in docs/lanes.md.
package lanes
