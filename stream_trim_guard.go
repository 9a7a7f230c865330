package echomq

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/echomq/echomq/internal/keyspace"
)

// ErrArchived means the stream is under archive control and the trim was not
// forced; nothing was removed.
var ErrArchived = errors.New("echomq: stream under archive control")

// ArchivedError is a trim refused because the stream is under archive
// control: it has an archive watermark W (entries above it are not
// archived yet) or an archiver holds its lease. It matches [ErrArchived].
type ArchivedError struct {
	Key       string
	Watermark ID   // W; zero when only a lease was found
	Leased    bool // an archiver holds the stream's lease
}

func (e *ArchivedError) Error() string {
	if e.Leased {
		return "echomq: " + e.Key + " is under archive control (an archiver holds its lease): only the archiver trims it; force the trim to destroy unarchived entries"
	}
	return "echomq: " + e.Key + " is under archive control (watermark " + e.Watermark.String() + "): only the archiver trims it; force the trim to destroy unarchived entries"
}

// Is makes errors.Is(err, ErrArchived) true.
func (e *ArchivedError) Is(target error) bool { return target == ErrArchived }

// TrimResult is what [Stream.Trim] removed.
type TrimResult struct {
	// Removed is how many entries the trim removed.
	Removed int64
	// Unarchived is how many of them were never archived: removed entries
	// above the archive watermark, or every removed entry when only an
	// archiver's lease marked the stream. Non-zero only for a forced trim.
	Unarchived int64
	// Watermark is the archive watermark W the trim ran under (zero when
	// the stream has none).
	Watermark ID
}

// Trim removes entries from the old end of the stream and reports what it
// removed, and how many removed entries were never archived. A stream
// under archive control (an archive watermark in "…:archived", or an
// archiver's lease) is trimmed by its archiver only: Trim refuses it with
// an [*ArchivedError] (nothing removed) unless the spec is
// [TrimSpec.Force]d; the check and the trim are one atomic step. Trimming
// a missing stream removes nothing. Errors: an
// [*ArgumentError] for a negative length (before any I/O); an
// [*ArchivedError] for a stream under archive control without
// [TrimSpec.Force]; an [*IDError] when the watermark cache holds no EVT id
// (a forced trim cannot count against it); the engine's errors.
func (s *Stream) Trim(ctx context.Context, t TrimSpec) (TrimResult, error) {
	if len(s.c.hooks.trim) > 0 {
		return s.trimObserved(ctx, t)
	}
	return s.trimReport(ctx, t)
}

func (s *Stream) trimReport(ctx context.Context, t TrimSpec) (TrimResult, error) {
	var res TrimResult
	if err := s.ready(ctx); err != nil {
		return res, opError("trim", s.key, err)
	}
	strategy, threshold := "MINID", t.minID.String()
	if t.byLen {
		if t.maxLen < 0 {
			return res, opError("trim", s.key, &ArgumentError{Name: "max length", Reason: "must not be negative"})
		}
		strategy, threshold = "MAXLEN", strconv.FormatInt(t.maxLen, 10)
	}
	archived, lease := keyspace.ArchivedKey(s.queue, s.name), keyspace.ArchiverKey(s.queue, s.name)
	var wm, wEntry string
	for attempt := 0; ; attempt++ {
		g, err := s.c.conn.GuardedTrim(ctx, s.key, archived, lease, trimIndex(s.queue, s.name), strategy, t.exact, threshold, t.force, wm, wEntry)
		if err != nil {
			return res, opError("trim", s.key, err)
		}
		switch g.Refused {
		case "":
			res.Removed, res.Unarchived = g.Removed, g.Unarchived
			return res, nil
		case "leased":
			return res, opError("trim", s.key, &ArchivedError{Key: s.key, Leased: true})
		case "archived", "moved":
			if g.Watermark == "" { // moved: the watermark was deleted meanwhile
				wm, wEntry, res.Watermark = "", "", ID{}
				break
			}
			w, err := ParseEventID(g.Watermark)
			if err != nil {
				return res, opError("trim", s.key, err)
			}
			if g.Refused == "archived" {
				return res, opError("trim", s.key, &ArchivedError{Key: s.key, Watermark: w})
			}
			wm, wEntry, res.Watermark = g.Watermark, w.EntryID().String(), w
		}
		if attempt == 5 {
			return res, opError("trim", s.key, fmt.Errorf("%w: the archive watermark kept moving", ErrContention))
		}
	}
}
