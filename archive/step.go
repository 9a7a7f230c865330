package archive

import "github.com/echomq/echomq"

// Step names a point of a cycle, reported to [Config.OnStep] as it is
// passed. The order is the crash-safety order: a crash after any step
// loses nothing and duplicates nothing (see the package doc).
type Step int

// The steps of a cycle, in order.
const (
	// StepLocked: the stream's lock is held, its manifest loaded and the
	// watermark cache reconciled with it.
	StepLocked Step = iota + 1
	// StepSegmentWritten: one segment is durable in the store (not yet
	// referenced by any manifest: an orphan if the cycle dies now).
	StepSegmentWritten
	// StepManifestCommitted: the new manifest generation is committed: the
	// commit point.
	StepManifestCommitted
	// StepWatermarkCached: W is cached in "…:archived".
	StepWatermarkCached
	// StepTrimming: the exact trim at the successor of W is about to be
	// sent.
	StepTrimming
	// StepTrimmed: the trim returned.
	StepTrimmed
)

var stepNames = [...]string{"", "locked", "segment-written", "manifest-committed", "watermark-cached", "trimming", "trimmed"}

// String returns the step's name, e.g. "manifest-committed".
func (s Step) String() string {
	if s < 1 || int(s) >= len(stepNames) {
		return "unknown"
	}
	return stepNames[s]
}

// StepEvent is one step passed by a cycle.
type StepEvent struct {
	Step   Step
	Queue  string
	Stream string
	// Segment is the object name at StepSegmentWritten.
	Segment string
	// Watermark is W as of this step.
	Watermark echomq.ID
}

// Progress reports a long operation as it goes, to [Config.Progress].
type Progress struct {
	Op     string // "archive" or "restore"
	Queue  string
	Stream string
	// Done counts the entries handled so far.
	Done int64
	// Total estimates the entries the operation will handle (an upper
	// bound); 0 when unknown.
	Total int64
	// Segments and Bytes count the segments written (archive) or read
	// (restore) so far.
	Segments int
	Bytes    int64
}
