package echomq

import (
	"context"
	"errors"
	"fmt"

	"github.com/echomq/echomq/internal/wire"
)

// Append mints an EVT id, appends the event with it and returns the id: the
// receipt. The entry is XADD <key> <entry id of the receipt> id <receipt>
// <fields…>, the id field first, then the payload in the caller's order.
//
// Several writers (up to 1023 nodes) may append to one stream, and the
// receipts keep the time law: stream order is id order, and no receipt's
// mint instant is more than a few milliseconds ahead of the engine's clock.
// An id minted here (under the node id the client holds in the queue,
// leased on the queue's first append) goes as a plain XADD while the
// client's reading of the engine's clock vouches for it; when another
// writer got above it, or the local clock disagrees with the engine's, the
// append script on the engine chooses the id under node 1023 (see
// docs/keyspace.md, "Ids under many writers"). Either way the receipt is
// never handed out twice within the queue.
//
// Errors: [*NameError] for a bad name and [*FieldError] for a bad payload
// (both before any I/O, nothing written); [*SkewError] when the stream's
// top lies more than Config.MaxSkew ahead of the engine's clock (Append
// refuses to follow it into the future); [ErrWrongType] when the key holds
// something else; [ErrClosed]; context errors; [*TransportError]. After a
// context or transport error the event may have been written: retry with an
// idempotency key ([AppendOpts].Key) to be safe.
//
// Options (nil: none): with an idempotency key, a repeat within
// Config.DedupeWindow returns the first append's receipt and writes nothing;
// with an expected top that does not hold it returns a [*ConflictError]
// (matching [ErrConflict]) and writes nothing. Both are checked and written
// atomically with the XADD, in one script on the stream's slot. Bad options
// are an [*ArgumentError] or a [*KindError] before any I/O.
func (s *Stream) Append(ctx context.Context, f Fields, opts *AppendOpts) (ID, error) {
	var o AppendOpts
	if opts != nil {
		o = *opts
	}
	return s.appendOpts(ctx, f, o)
}

// appendOpts is Append with the options by value, so the common call
// allocates none.
func (s *Stream) appendOpts(ctx context.Context, f Fields, opts AppendOpts) (ID, error) {
	if s.c.hooks.appends() {
		id, err := s.appendObserved(ctx, f, opts)
		return id, s.c.withMemory(err)
	}
	id, err := s.appendWith(ctx, f, opts)
	return id, s.c.withMemory(err)
}

func (s *Stream) appendWith(ctx context.Context, f Fields, opts AppendOpts) (ID, error) {
	if err := s.ready(ctx); err != nil {
		return ID{}, opError("append", s.key, err)
	}
	if err := s.c.checkFields(f); err != nil {
		return ID{}, opError("append", s.key, err)
	}
	if err := opts.validate(); err != nil {
		return ID{}, opError("append", s.key, err)
	}
	if err := s.c.budgets.check(s.key); err != nil {
		return ID{}, opError("append", s.key, err)
	}
	if len(opts.Tags) > 0 {
		ids, err := s.tagged(ctx, []Fields{f}, &opts)
		if err != nil {
			return ID{}, opError("append", s.key, err)
		}
		return ids[0], nil
	}
	if opts.Durable.on() {
		ids, err := s.appendDurable(ctx, []Fields{f}, &opts)
		if len(ids) == 1 {
			return ids[0], opError("append", s.key, err)
		}
		return ID{}, opError("append", s.key, err)
	}
	c := s.c
	id, err := c.mint(ctx, s.queue, BrandEvent)
	if err != nil {
		return ID{}, opError("append", s.key, err)
	}
	if opts.plain() && c.eclock.fast(s.key, id) {
		c.eclock.noteSent(s.key, id)
		err := s.add(ctx, id, f)
		// Usually one of this client's own later ids reached the engine
		// first (goroutines mint and send in different orders), and the
		// minter is already past it: try again, a few times while it is
		// such an own race and the stream is not contended, before the
		// script takes the append (an id the script chose would sort above
		// every append of this client still in flight in its millisecond,
		// and have them refused in turn). One retry is always made.
		for try := 0; err != nil && errors.Is(err, ErrNonMonotonic); try++ {
			c.astats.refused.Add(1)
			if try == ownRetries || try > 0 && !c.eclock.ownRace(s.key, id) {
				break
			}
			next, merr := c.mint(ctx, s.queue, BrandEvent)
			if merr != nil {
				return ID{}, opError("append", s.key, merr)
			}
			if id = next; !c.eclock.fast(s.key, id) {
				break
			}
			c.eclock.noteSent(s.key, id)
			err = s.add(ctx, id, f)
		}
		if err == nil {
			c.astats.records.Add(1)
			c.astats.plain.Add(1)
			return id, nil
		}
		if !errors.Is(err, ErrNonMonotonic) {
			return ID{}, opError("append", s.key, err)
		}
		// Refused (counted above): the script arbitrates this append, and
		// says whether another writer is above us (then the stream turns
		// hot).
	}
	if opts.Key != "" && opts.ExpectTop.IsZero() && !opts.ExpectEmpty && c.eclock.fast(s.key, id) {
		got, done, err := s.keyed(ctx, id, f, opts.Key)
		if err != nil {
			return ID{}, opError("append", s.key, err)
		}
		if done {
			c.astats.records.Add(1)
			return got, nil
		}
		// Above us already (usually one of this client's own appends):
		// the arbitrating script takes it from here, the key still free.
		if id, err = c.mint(ctx, s.queue, BrandEvent); err != nil {
			return ID{}, opError("append", s.key, err)
		}
	}
	ids, err := s.scripted(ctx, []ID{id}, []Fields{f}, &opts)
	if err != nil {
		return ID{}, opError("append", s.key, err)
	}
	c.astats.records.Add(1)
	return ids[0], nil
}

// AppendID appends the event under a caller-supplied EVT id. An id of another
// brand returns a [*KindError] and the zero ID an [*IDError], before any I/O;
// an id not above the stream's last id returns [ErrNonMonotonic] (never
// retried: the caller chose the id); an id more than Config.MaxSkew ahead of
// the engine's clock returns a [*SkewError], and nothing is written. Other
// errors as [Stream.Append].
func (s *Stream) AppendID(ctx context.Context, id ID, f Fields) error {
	if s.c.hooks.appends() {
		return s.c.withMemory(s.appendIDObserved(ctx, id, f))
	}
	return s.c.withMemory(s.appendID(ctx, id, f))
}

func (s *Stream) appendID(ctx context.Context, id ID, f Fields) error {
	if err := s.ready(ctx); err != nil {
		return opError("append", s.key, err)
	}
	if id.IsZero() {
		return opError("append", s.key, &IDError{Reason: "zero id"})
	}
	if !id.isEvent() {
		return opError("append", s.key, &KindError{Want: BrandEvent, Got: id.Brand()})
	}
	if err := s.c.checkFields(f); err != nil {
		return opError("append", s.key, err)
	}
	if err := s.c.budgets.check(s.key); err != nil {
		return opError("append", s.key, err)
	}
	c := s.c
	// Well inside the skew door by the client's fresh reading: a plain XADD
	// (the engine's own refusal text reaches the caller). Near or past the
	// door, the script decides by the engine's clock itself.
	if now, fresh := c.eclock.nowMs(c.eclock.since()); fresh && id.snow.unixMilli() <= now+c.cfg.MaxSkew.Milliseconds()/2 {
		return opError("append", s.key, s.add(ctx, id, f))
	}
	_, err := s.script(ctx, wire.ModeExact, []ID{id}, []Fields{f}, &AppendOpts{})
	return opError("append", s.key, err)
}

func (s *Stream) add(ctx context.Context, id ID, f Fields) error {
	return s.c.conn.XAdd(ctx, s.key, id.EntryID().String(), id.String(), f)
}

// entryPairs returns "id", <receipt>, then the payload pairs.
func entryPairs(id ID, f Fields) []string {
	pairs := make([]string, 0, 2+len(f))
	pairs = append(pairs, reservedField, id.String())
	return append(pairs, f...)
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

// AppendBatch appends records in one round trip and returns their receipts
// in order. Every record is validated first: one bad payload fails the call
// with nothing written. An empty batch does nothing.
//
// While the client's clock reading vouches for its ids and no other writer
// is above them, the records go as one pipeline of plain XADDs; records
// another writer got ahead of are appended again through the append script
// (one more round trip), after the rest. Otherwise the whole batch is one
// script: atomic, contiguous and in batch order. A record that fails leaves
// a zero id in its slot and the call returns a [*BatchError] naming it.
//
// Options (nil: none) apply to the batch as a whole and atomically with it
// (one script): an idempotency key whose repeat returns the first batch's
// receipts, and an expected top the stream must have before the batch
// ([*ConflictError] otherwise); all or nothing. An error of the script fails
// every record ([*BatchError]).
func (s *Stream) AppendBatch(ctx context.Context, records []Fields, opts *AppendOpts) ([]ID, error) {
	var o AppendOpts
	if opts != nil {
		o = *opts
	}
	return s.appendBatchOpts(ctx, records, o)
}

// appendBatchOpts is AppendBatch with the options by value.
func (s *Stream) appendBatchOpts(ctx context.Context, records []Fields, opts AppendOpts) ([]ID, error) {
	if s.c.hooks.appends() {
		ids, err := s.appendBatchObserved(ctx, records, opts)
		return ids, s.c.withMemory(err)
	}
	ids, err := s.appendBatchWith(ctx, records, opts)
	return ids, s.c.withMemory(err)
}

func (s *Stream) appendBatchWith(ctx context.Context, records []Fields, opts AppendOpts) ([]ID, error) {
	if err := s.ready(ctx); err != nil {
		return nil, opError("append batch", s.key, err)
	}
	for i, f := range records {
		if err := s.c.checkFields(f); err != nil {
			return nil, opError("append batch", s.key, fmt.Errorf("record %d: %w", i, err))
		}
	}
	if err := opts.validate(); err != nil {
		return nil, opError("append batch", s.key, err)
	}
	if len(records) == 0 {
		return nil, nil
	}
	if err := s.c.budgets.check(s.key); err != nil {
		return nil, opError("append batch", s.key, err)
	}
	if len(opts.Tags) > 0 {
		ids, err := s.tagged(ctx, records, &opts)
		return ids, opError("append batch", s.key, err)
	}
	if opts.Durable.on() {
		ids, err := s.appendDurable(ctx, records, &opts)
		return ids, opError("append batch", s.key, err)
	}
	c := s.c
	ids := make([]ID, len(records))
	for i := range ids {
		var err error
		if ids[i], err = c.mint(ctx, s.queue, BrandEvent); err != nil {
			return nil, opError("append batch", s.key, err)
		}
	}
	errs := make([]error, len(records))
	todo := allIndexes(len(records))
	if opts.plain() && c.eclock.fast(s.key, ids[len(ids)-1]) {
		todo = s.pipeline(ctx, ids, records, errs)
		// Usually another goroutine of this client minted after this
		// batch and reached the engine first; the minter is past it
		// already: mint the refused records again and send them plain
		// once more, as Append does, a few times while the stream is not
		// contended, before the script takes them. (An id the script
		// chose would sort above every batch of this client still in
		// flight in its millisecond and have them refused in turn.)
		for try := 0; len(todo) > 0; try++ {
			c.astats.refused.Add(int64(len(todo)))
			if try == batchOwnRetries || try > 0 && !c.eclock.ownRace(s.key, ids[todo[0]]) {
				break
			}
			still, sent, err := s.again(ctx, todo, ids, records, errs)
			if err != nil {
				return nil, opError("append batch", s.key, err)
			}
			todo = still
			if !sent {
				break
			}
		}
	}
	if len(todo) > 0 {
		sub, subRecs := make([]ID, len(todo)), make([]Fields, len(todo))
		for j, i := range todo {
			sub[j], subRecs[j] = ids[i], records[i]
		}
		got, err := s.scripted(ctx, sub, subRecs, &opts)
		for j, i := range todo {
			if err != nil {
				errs[i] = err
			} else {
				ids[i], errs[i] = got[j], nil
			}
		}
		if err != nil && !opts.plain() {
			// A refused precondition is the batch's answer, not each record's.
			var ce *ConflictError
			var ae *ArgumentError
			if errors.As(err, &ce) || errors.As(err, &ae) {
				return nil, opError("append batch", s.key, err)
			}
		}
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
	c.astats.records.Add(int64(len(records) - failed))
	if failed > 0 {
		return ids, &BatchError{Results: results, Failed: failed}
	}
	return ids, nil
}

// scripted appends records (one or a batch) through a script: the
// contended one when the stream is hot and the append plain, else (or when
// it hands the append back) the arbitrating one.
func (s *Stream) scripted(ctx context.Context, ids []ID, records []Fields, opts *AppendOpts) ([]ID, error) {
	mode := s.c.eclock.mode(s.key)
	if mode == wire.ModeContended && opts.plain() {
		got, done, err := s.contended(ctx, ids, records)
		if done || err != nil {
			return got, err
		}
	}
	return s.script(ctx, mode, ids, records, opts)
}

func allIndexes(n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return idx
}

// ownRetries is how many times an append (batchOwnRetries: a batch's
// records) refused by the engine is minted again and re-sent plain, while
// the stream is not contended, before the script takes it.
const (
	ownRetries      = 3
	batchOwnRetries = 3
)

// again mints new ids for the records at todo and sends them as one more
// pipeline of plain XADDs while the clock reading vouches for them and the
// stream is not contended; it returns the indexes still refused (all of
// todo when it sent nothing, sent false).
func (s *Stream) again(ctx context.Context, todo []int, ids []ID, records []Fields, errs []error) ([]int, bool, error) {
	sub, subRecs := make([]ID, len(todo)), make([]Fields, len(todo))
	for j, i := range todo {
		id, err := s.c.mint(ctx, s.queue, BrandEvent)
		if err != nil {
			return nil, false, err
		}
		sub[j], subRecs[j] = id, records[i]
	}
	if !s.c.eclock.fast(s.key, sub[len(sub)-1]) {
		for j, i := range todo {
			ids[i] = sub[j]
		}
		return todo, false, nil
	}
	subErrs := make([]error, len(todo))
	refused := s.pipeline(ctx, sub, subRecs, subErrs)
	still := make([]int, 0, len(refused))
	for _, j := range refused {
		still = append(still, todo[j])
	}
	for j, i := range todo {
		ids[i], errs[i] = sub[j], subErrs[j]
	}
	return still, true, nil
}

// pipeline sends the records as plain XADDs in one pipeline, records each
// outcome in errs and returns the indexes refused as not above the top.
func (s *Stream) pipeline(ctx context.Context, ids []ID, records []Fields, errs []error) []int {
	entryIDs := make([]string, len(ids))
	receipts := make([]string, len(ids))
	pairs := make([][]string, len(ids))
	// One buffer holds every receipt and entry id; the strings are slices
	// of it, two allocations instead of two per record.
	buf := make([]byte, 0, len(ids)*(idLen+41))
	ends := make([]int, len(ids))
	for i, id := range ids {
		buf = id.appendTo(buf)
		buf = id.EntryID().appendTo(buf)
		ends[i] = len(buf)
		pairs[i] = records[i]
	}
	all := string(buf)
	start := 0
	for i := range ids {
		receipts[i] = all[start : start+idLen]
		entryIDs[i] = all[start+idLen : ends[i]]
		start = ends[i]
	}
	s.c.eclock.noteSent(s.key, ids[len(ids)-1])
	var refused []int
	for i, err := range s.c.conn.XAddReceipts(ctx, s.key, entryIDs, receipts, pairs) {
		if err != nil && errors.Is(err, ErrNonMonotonic) {
			refused = append(refused, i)
			continue
		}
		errs[i] = err
		if err == nil {
			s.c.astats.plain.Add(1)
		}
	}
	return refused
}
