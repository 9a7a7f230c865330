package echomq

import (
	"context"
	"errors"
	"fmt"
)

// Append mints an EVT id, appends the event with it and returns the id: the
// receipt. The entry is XADD <key> <entry id of the receipt> id <receipt>
// <fields…>, the id field first, then the payload in the caller's order.
//
// Several writers may append to one stream: when another writer got above
// this one's id, Append moves its minter past the stream top and mints again
// (up to Config.AppendRetries times, then [ErrContention]), so stream order
// stays mint order.
//
// Errors: [*NameError] for a bad name and [*FieldError] for a bad payload
// (both before any I/O, nothing written); [ErrWrongType] when the key holds
// something else; [ErrClosed]; context errors; [*TransportError].
func (s *Stream) Append(ctx context.Context, f Fields) (ID, error) {
	if err := s.ready(ctx); err != nil {
		return ID{}, opError("append", s.key, err)
	}
	if err := s.c.checkFields(f); err != nil {
		return ID{}, opError("append", s.key, err)
	}
	for attempt := 0; ; attempt++ {
		id := s.c.minter.NextID(BrandEvent)
		err := s.add(ctx, id, f)
		if err == nil {
			return id, nil
		}
		if !errors.Is(err, ErrNonMonotonic) {
			return ID{}, opError("append", s.key, err)
		}
		if attempt >= s.c.cfg.AppendRetries {
			return ID{}, opError("append", s.key, fmt.Errorf("%w after %d attempts: %w", ErrContention, attempt+1, err))
		}
		if attempt == 0 {
			// Usually one of this client's own later ids won the race to
			// the engine; the minter is already past it.
			continue
		}
		if err := s.advancePastTop(ctx); err != nil {
			return ID{}, opError("append", s.key, err)
		}
	}
}

// AppendID appends the event under a caller-supplied EVT id. An id of another
// brand returns a [*KindError] and the zero ID an [*IDError], before any I/O;
// an id not above the stream's last id returns [ErrNonMonotonic] (never
// retried: the caller chose the id). Other errors as [Stream.Append].
func (s *Stream) AppendID(ctx context.Context, id ID, f Fields) error {
	if err := s.ready(ctx); err != nil {
		return opError("append", s.key, err)
	}
	if id.IsZero() {
		return opError("append", s.key, &IDError{Reason: "zero id"})
	}
	if !id.Is(BrandEvent) {
		return opError("append", s.key, &KindError{Want: BrandEvent, Got: id.Brand()})
	}
	if err := s.c.checkFields(f); err != nil {
		return opError("append", s.key, err)
	}
	return opError("append", s.key, s.add(ctx, id, f))
}

func (s *Stream) add(ctx context.Context, id ID, f Fields) error {
	return s.c.conn.XAdd(ctx, s.key, id.EntryID().String(), id.String(), f)
}

// entryPairs returns "id", <receipt>, then the payload pairs.
func entryPairs(id ID, f Fields) []string {
	pairs := make([]string, 0, 2+len(f))
	pairs = append(pairs, ReservedField, id.String())
	return append(pairs, f...)
}

// advancePastTop moves the minter above the stream's last generated id (which
// XADD compares against, even after the top entry was deleted).
func (s *Stream) advancePastTop(ctx context.Context) error {
	info, ok, err := s.c.conn.XInfoStream(ctx, s.key)
	if err != nil || !ok {
		return err
	}
	return s.c.advancePast(info.LastGeneratedID)
}

// advancePast moves the minter above the entry id top.
func (c *Client) advancePast(lastGenerated string) error {
	top, err := ParseEntryID(lastGenerated)
	if err != nil {
		return err
	}
	snow, ok := top.Snowflake()
	if !ok {
		switch {
		case top.Ms < uint64(Epoch):
			return nil // every id we mint is above it
		case top.Seq > MaxTail && top.Ms-uint64(Epoch) <= maxTS:
			snow = Snowflake(int64(top.Ms-uint64(Epoch))<<tailBits | MaxTail)
		default:
			return &IDError{Input: lastGenerated, Reason: "stream top is beyond the snowflake range; no EVT id can be appended above it"}
		}
	}
	c.minter.AdvancePast(snow)
	return nil
}

// AppendResult is the outcome of one record of [Stream.AppendBatch].
type AppendResult struct {
	ID  ID    // the receipt, zero when Err is set
	Err error // nil when the record was appended
}

// BatchError reports the records of a batch that were not appended; every
// other record was. errors.Is sees each record's cause.
type BatchError struct {
	Results []AppendResult
	Failed  int
}

func (e *BatchError) Error() string {
	for _, r := range e.Results {
		if r.Err != nil {
			return fmt.Sprintf("echomq: append batch: %d of %d records failed; first: %v", e.Failed, len(e.Results), trimPrefix(r.Err.Error()))
		}
	}
	return "echomq: append batch failed"
}

// Unwrap returns every record's error.
func (e *BatchError) Unwrap() []error {
	var errs []error
	for _, r := range e.Results {
		if r.Err != nil {
			errs = append(errs, r.Err)
		}
	}
	return errs
}

// AppendBatch appends records in one pipeline and returns their receipts in
// order. Every record is validated first: one bad payload fails the call
// with nothing written. An empty batch does nothing. Records that lost the
// race for the stream top to another writer are minted again and re-sent
// (with Append's retry budget); a record that still fails leaves a zero id
// in its slot and the call returns a [*BatchError] naming it, with every
// other record appended. Without concurrent writers the records land
// contiguously in batch order.
func (s *Stream) AppendBatch(ctx context.Context, records []Fields) ([]ID, error) {
	if err := s.ready(ctx); err != nil {
		return nil, opError("append batch", s.key, err)
	}
	for i, f := range records {
		if err := s.c.checkFields(f); err != nil {
			return nil, opError("append batch", s.key, fmt.Errorf("record %d: %w", i, err))
		}
	}
	if len(records) == 0 {
		return nil, nil
	}
	ids := make([]ID, len(records))
	errs := make([]error, len(records))
	todo := make([]int, len(records))
	for i := range todo {
		todo[i] = i
	}
	for attempt := 0; len(todo) > 0; attempt++ {
		entryIDs := make([]string, len(todo))
		receipts := make([]string, len(todo))
		pairs := make([][]string, len(todo))
		// One buffer holds every receipt and entry id of the round; the
		// strings are slices of it, two allocations instead of two per record.
		buf := make([]byte, 0, len(todo)*(IDLen+41))
		ends := make([]int, len(todo)) // where each record's entry id ends in buf
		for j, i := range todo {
			ids[i] = s.c.minter.NextID(BrandEvent)
			buf = ids[i].appendTo(buf)
			buf = ids[i].EntryID().AppendTo(buf)
			ends[j] = len(buf)
			pairs[j] = records[i]
		}
		all := string(buf)
		start := 0
		for j := range todo {
			receipts[j] = all[start : start+IDLen]
			entryIDs[j] = all[start+IDLen : ends[j]]
			start = ends[j]
		}
		var retry []int
		for j, err := range s.c.conn.XAddReceipts(ctx, s.key, entryIDs, receipts, pairs) {
			i := todo[j]
			errs[i] = err
			if err != nil && errors.Is(err, ErrNonMonotonic) && attempt < s.c.cfg.AppendRetries {
				retry = append(retry, i)
			}
		}
		if len(retry) > 0 {
			if err := s.advancePastTop(ctx); err != nil {
				for _, i := range retry {
					errs[i] = err
				}
				retry = nil
			}
		}
		todo = retry
	}
	var failed int
	results := make([]AppendResult, len(records))
	for i := range records {
		if errs[i] != nil {
			failed++
			ids[i] = ID{}
			results[i] = AppendResult{Err: opError("append", s.key, errs[i])}
		} else {
			results[i] = AppendResult{ID: ids[i]}
		}
	}
	if failed > 0 {
		return ids, &BatchError{Results: results, Failed: failed}
	}
	return ids, nil
}
