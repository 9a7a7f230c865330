package echomq

import (
	"errors"
	"fmt"
	"time"
)

// ErrClockSkew means an id, or a stream's top, lies further ahead of the engine's
// clock than Config.MaxSkew. See [SkewError].
var ErrClockSkew = errors.New("echomq: clock skew")

// SkewError is an append refused because it would write into the future:
// [Stream.AppendID] with an id more than MaxSkew ahead of the engine's
// clock (Top false), or [Stream.Append] on a stream whose top is that far
// ahead (Top true), which Append refuses to follow. Nothing was written. It
// matches [ErrClockSkew].
type SkewError struct {
	// Instant is the mint instant refused: the given id's, or the top's.
	Instant time.Time
	// Engine is the engine's clock when it refused.
	Engine time.Time
	// MaxSkew is the limit that was passed.
	MaxSkew time.Duration
	// Top is true when the stream's top (not the given id) is ahead.
	Top bool
}

func (e *SkewError) Error() string {
	what := "id"
	if e.Top {
		what = "stream top"
	}
	return fmt.Sprintf("echomq: clock skew: %s at %s is %v ahead of the engine clock %s (max skew %v)",
		what, e.Instant.UTC().Format(time.RFC3339Nano), e.Instant.Sub(e.Engine), e.Engine.UTC().Format(time.RFC3339Nano), e.MaxSkew)
}

// Is makes errors.Is(err, ErrClockSkew) true.
func (e *SkewError) Is(target error) bool { return target == ErrClockSkew }

// ConflictError is an append whose expected top ([AppendOpts.ExpectTop],
// [AppendOpts.ExpectEmpty]) did not hold: the stream's last entry is Top
// (zero when the stream is empty). Nothing was written. It matches
// [ErrConflict].
type ConflictError struct {
	// Expected is the top the caller required, zero for an empty stream.
	Expected ID
	// Top is the stream's actual last entry, zero when the stream is empty
	// (or its last entry id maps to no EVT id; TopEntry holds it).
	Top ID
	// TopEntry is the last entry's entry id, zero when the stream is empty.
	TopEntry EntryID
}

func (e *ConflictError) Error() string {
	want, got := "an empty stream", "the stream is empty"
	if !e.Expected.IsZero() {
		want = e.Expected.String()
	}
	switch {
	case !e.Top.IsZero():
		got = "the top is " + e.Top.String()
	case e.TopEntry != EntryID{}:
		got = "the top is entry " + e.TopEntry.String()
	}
	return fmt.Sprintf("echomq: conflict: expected top %s, %s", want, got)
}

// Is makes errors.Is(err, ErrConflict) true.
func (e *ConflictError) Is(target error) bool { return target == ErrConflict }
