package echomq

import (
	"context"
	"time"
)

// Hook is a value that implements one or more of the hook interfaces of
// this package ([EngineCallHook], [AppendHook], [AppendPrepareHook],
// [ReadHook], [DeliverHook], [AckHook], [DeadLetterHook], [TrimHook]), or
// of a feature package built on the client (lanes.JobHook,
// archive.CycleHook, projection.CheckpointHook). A client calls each
// hook it was given in [Config.Hooks] for every interface the hook
// implements, in list order, on the goroutine that did the work; a value
// implementing none is ignored.
//
// Hooks observe: they run after the fact (except [AppendPrepareHook]), must
// not block (a slow hook slows the path it observes) and must be safe for
// concurrent use. Info values and the slices they carry belong to the
// client: a hook copies what it keeps. The feature packages (lanes,
// archive, projection, retention) report through the hooks of the client
// they were built on, and find their own hook interfaces among them with
// [HooksOf]. With no hook set, no path pays more than a nil check.
type Hook any

// EngineCallHook observes every command and pipeline the client sends to
// the engine, background ones included (lease renewals, consumer fetches).
type EngineCallHook interface {
	// OnEngineCall is called when the reply arrived (or the call failed).
	OnEngineCall(EngineCall)
}

// EngineCall is one engine call: a command, or a pipeline reported once
// with its first command's name and its length.
type EngineCall struct {
	// Command is the engine command's name in capitals (XADD, EVALSHA, …).
	Command string
	// Commands is 1, or the number of commands of a pipeline.
	Commands int
	Duration time.Duration
	// Err is the first failure of the call (the engine's refusals
	// included), nil when every command succeeded.
	Err error
}

// AppendHook observes appends: [Stream.Append], AppendBatch, AppendID, the
// batches, and the appends of a transaction (package tables, Tx.Append),
// each reported as one append once its commit wrote it (Start is when Tx.Append was
// called), or failed with an error that leaves it unknown whether it was
// written; an attempt that conflicted wrote nothing and is not reported.
// The [AppendPrepareHook]s do not see a transaction's appends: a
// transaction's fields go out as the caller wrote them.
type AppendHook interface {
	// OnAppend is called once per call, with the caller's context, after
	// the records were written or the call failed.
	OnAppend(ctx context.Context, a AppendInfo)
}

// AppendInfo describes one append call.
type AppendInfo struct {
	Queue, Stream string
	// Records is the number of records of the call (1 but for a batch),
	// Failed how many of them were not written.
	Records, Failed int
	// ID is the receipt of a single append (zero when it failed); IDs the
	// receipts of a batch (nil for a single append), zero for each failed
	// record.
	ID  ID
	IDs []ID
	// Batch reports an AppendBatch call.
	Batch bool
	// Start is when the call began, Duration how long it took.
	Start    time.Time
	Duration time.Duration
	// Err is the call's error.
	Err error
}

// AppendPrepareHook may add fields to the records of an append before they
// are checked against the limits and sent: the seam through which a
// tracer writes its trace context into the entry. It is called only after
// the caller's own fields passed validation, so bad input is refused
// without calling it. The context it returns is the one the append (and
// its AppendHook calls) runs with.
type AppendPrepareHook interface {
	// PrepareAppend may replace p.Records[i] with a longer copy; it must
	// not modify the caller's Fields in place, and must not add the
	// reserved field "id".
	PrepareAppend(ctx context.Context, p *AppendPrepare) context.Context
}

// AppendPrepare is the records of one append call, before they are sent.
type AppendPrepare struct {
	Queue, Stream string
	// Records is a copy of the caller's list of records (one for a single
	// append): replacing an element does not touch the caller's list.
	Records []Fields
}

// ReadHook observes the range reads of a stream ([Stream.Read] and the
// reads built on it).
type ReadHook interface {
	OnRead(ctx context.Context, r ReadInfo)
}

// ReadInfo describes one range read.
type ReadInfo struct {
	Queue, Stream string
	// Events is the number of events returned.
	Events   int
	Duration time.Duration
	Err      error
}

// DeliverHook observes every delivery of a [Consumer] or [SetConsumer]:
// called when the handler returned, with the outcome.
type DeliverHook interface {
	OnDeliver(ctx context.Context, d DeliverInfo)
}

// DeliverInfo is one delivery and its outcome.
type DeliverInfo struct {
	Delivery
	// Start is when the handler was called, Duration how long it ran.
	Start    time.Time
	Duration time.Duration
	// Err is the handler's error (a [*PanicError] for a panic), nil on
	// success.
	Err error
}

// AckHook observes a consumer's acknowledgements.
type AckHook interface {
	OnAck(ctx context.Context, a AckInfo)
}

// AckInfo is one acknowledgement call (one XACK of a batch of entries).
type AckInfo struct {
	Queue, Stream, Group, Consumer string
	// Entries is the number of entries acknowledged (or that failed to be).
	Entries int
	// Trimmed reports entries whose data was trimmed before they could be
	// handled: acknowledged, never handled.
	Trimmed  bool
	Duration time.Duration
	Err      error
}

// DeadLetterHook observes entries moved to the dead-letter stream.
type DeadLetterHook interface {
	OnDeadLetter(ctx context.Context, d DeadLetterInfo)
}

// DeadLetterInfo is one move to the dead letters, or a failed attempt.
type DeadLetterInfo struct {
	Delivery
	// Dead is the dead letter's own id (zero when Err is set).
	Dead ID
	// Cause is the reason the entry was given up.
	Cause string
	// Err is the failure of the move; the entry then stays pending.
	Err error
}

// TrimHook observes trims of a stream: [Stream.Trim], the retention
// driver's and the archiver's.
type TrimHook interface {
	OnTrim(ctx context.Context, t TrimInfo)
}

// Trim origins of [TrimInfo.By].
const (
	trimByCaller  = "trim"    // Stream.Trim (the retention driver included)
	trimByArchive = "archive" // the archiver's trim at its watermark
)

// TrimInfo is one trim.
type TrimInfo struct {
	Queue, Stream string
	// By is "trim" (a [Stream.Trim]) or "archive" (the archive package).
	By string
	// Removed is the number of entries removed.
	Removed  int64
	Duration time.Duration
	Err      error
}

// Hooks returns a copy of the hooks the client was configured with
// ([Config.Hooks]).

// HooksOf returns the hooks of c that implement T, in configuration order;
// nil when there are none. A package built on a Client calls it once, when
// it is made, to find the hooks it reports to.
func HooksOf[T any](c *Client) []T { return pick[T](c.cfg.Hooks) }
