package echomq

import (
	"context"
	"fmt"
	"strconv"

	"github.com/echomq/echomq/internal/keyspace"
)

// Fields of a dead-letter entry, after its own "id".
const (
	deadFieldOrigin   = "origin"   // the original's branded id (its entry id when it had none)
	deadFieldStream   = "stream"   // the original's stream name
	deadFieldGroup    = "group"    // the group that gave up on it
	deadFieldConsumer = "consumer" // the consumer that moved it
	deadFieldAttempts = "attempts" // its delivery count when it was moved
	deadFieldError    = "error"    // the last handler error
	deadFieldPayload  = "payload"  // the original's pairs, JSON-encoded (see DeadLetter.Payload)
)

// DeadLetter is an entry a consumer group gave up on, as stored in the
// dead-letter stream "emq:{q}:stream:<name>:dead": one EVT entry with the
// fields id, origin, stream, group, consumer, attempts, error, payload.
type DeadLetter struct {
	// ID and Entry are the dead letter's own branded and entry ids.
	ID    ID
	Entry EntryID
	// Origin is the original event's branded id, zero when the original
	// had none (another program appended it); OriginEntry is its entry id.
	Origin      ID
	OriginEntry EntryID
	Stream      string
	Group       string
	Consumer    string
	Attempts    int64
	Error       string
	// Payload is the original's payload in stored order. In the stream it
	// is the JSON array of its [name, value] pairs; a name or value that is
	// not valid UTF-8 is stored as {"base64": "…"}.
	Payload Fields
}

// DeadLetters is the dead-letter stream of one stream's consumer groups. A
// cheap handle, safe for concurrent use; a handle made from a bad name
// returns its [*NameError] from every verb before any I/O.
type DeadLetters struct {
	s    *Stream
	dead *Stream
}

// DeadLetters returns the stream's dead-letter handle.
func (s *Stream) DeadLetters() *DeadLetters { return &DeadLetters{s: s, dead: s.deadStream()} }

// deadStream is the internal handle of the dead-letter stream; it reuses
// the stream verbs on the registered key.
func (s *Stream) deadStream() *Stream {
	d := &Stream{c: s.c, queue: s.queue, name: s.name + ":dead", err: s.err}
	if s.err == nil {
		d.key = keyspace.DeadKey(s.queue, s.name)
	}
	return d
}

// Key returns the engine key of the dead-letter stream.
func (d *DeadLetters) Key() string { return d.dead.key }

// Len returns how many dead letters the stream holds. Errors: the handle's
// [*NameError] (before any I/O), [ErrWrongType], [ErrClosed], context
// errors, [*TransportError].
func (d *DeadLetters) Len(ctx context.Context) (int64, error) {
	if d.dead.err != nil {
		return 0, opError("dead letters", d.dead.key, d.dead.err)
	}
	n, err := d.s.c.conn.XLen(ctx, d.dead.key)
	return n, opError("dead letters", d.dead.key, err)
}

// List returns the dead letters in r, oldest first (or newest first with
// opts.Reverse). Errors: as [Stream.Read]; a dead-letter entry that cannot
// be decoded is an error naming it.
func (d *DeadLetters) List(ctx context.Context, r Range, opts *ReadOpts) ([]DeadLetter, error) {
	evs, err := d.dead.Read(ctx, r, opts)
	if err != nil {
		return nil, err
	}
	out := make([]DeadLetter, len(evs))
	for i, ev := range evs {
		if out[i], err = decodeDeadLetter(ev); err != nil {
			return nil, opError("dead letters", d.dead.key, err)
		}
	}
	return out, nil
}

// Get returns the dead letter with branded id. Errors: an [*IDError] for
// the zero id and a [*KindError] for a brand other than EVT (before any
// I/O); [ErrDeadLetterNotFound]; others as [DeadLetters.List].
func (d *DeadLetters) Get(ctx context.Context, id ID) (DeadLetter, error) {
	if err := checkEventID(id); err != nil {
		return DeadLetter{}, opError("dead letter", d.dead.key, err)
	}
	dls, err := d.List(ctx, Between(id, id), nil)
	if err != nil {
		return DeadLetter{}, err
	}
	if len(dls) == 0 || dls[0].ID != id {
		return DeadLetter{}, opError("dead letter", d.dead.key, fmt.Errorf("%w: %s", ErrDeadLetterNotFound, id))
	}
	return dls[0], nil
}

func checkEventID(id ID) error {
	if id.IsZero() {
		return &IDError{Reason: "zero id"}
	}
	if !id.isEvent() {
		return &KindError{Want: BrandEvent, Got: id.Brand()}
	}
	return nil
}

func decodeDeadLetter(ev Event) (DeadLetter, error) {
	f := ev.Fields
	dl := DeadLetter{
		ID: ev.ID, Entry: ev.Entry,
		Stream: f.Value(deadFieldStream), Group: f.Value(deadFieldGroup), Consumer: f.Value(deadFieldConsumer),
		Error: f.Value(deadFieldError),
	}
	origin := f.Value(deadFieldOrigin)
	if id, err := ParseID(origin); err == nil {
		dl.Origin, dl.OriginEntry = id, id.EntryID()
	} else if dl.OriginEntry, err = ParseEntryID(origin); err != nil {
		return DeadLetter{}, fmt.Errorf("dead letter %s: origin %q: %w", ev.Entry, origin, err)
	}
	var err error
	if dl.Attempts, err = strconv.ParseInt(f.Value(deadFieldAttempts), 10, 64); err != nil {
		return DeadLetter{}, fmt.Errorf("dead letter %s: attempts: %w", ev.Entry, err)
	}
	if dl.Payload, err = decodePayload(f.Value(deadFieldPayload)); err != nil {
		return DeadLetter{}, fmt.Errorf("dead letter %s: %w", ev.Entry, err)
	}
	return dl, nil
}

// Replay appends the dead letter's payload to its origin stream as a new
// event (a new EVT id, which it returns) and deletes the dead letter, in one
// atomic step: replaying the same dead letter twice appends once, the
// second call returns [ErrDeadLetterNotFound]. The group then delivers the
// new event like any other.
//
// Errors: as [DeadLetters.Get]; a [*FieldError] when the payload cannot be
// appended (an original from another program with a field named "id");
// [ErrContention] as [Stream.Append].
func (d *DeadLetters) Replay(ctx context.Context, id ID) (ID, error) {
	dl, err := d.Get(ctx, id)
	if err != nil {
		return ID{}, err
	}
	if err := d.s.c.checkFields(dl.Payload); err != nil {
		return ID{}, opError("replay", d.dead.key, err)
	}
	var found bool
	nid, err := d.s.c.retryAbove(ctx, d.s.queue, d.s.key, func(nid ID) error {
		ok, err := d.s.c.conn.Replay(ctx, d.s.key, d.dead.key, dl.Entry.String(), nid.EntryID().String(), entryPairs(nid, dl.Payload))
		found = ok
		return err
	})
	switch {
	case err != nil:
		return ID{}, opError("replay", d.s.key, err)
	case !found:
		return ID{}, opError("replay", d.dead.key, fmt.Errorf("%w: %s", ErrDeadLetterNotFound, id))
	}
	return nid, nil
}

// Purge deletes the dead letters with the given ids and returns how many
// existed. Errors: an [*IDError] or [*KindError] for a zero or non-EVT id
// (before any I/O, nothing deleted); [ErrWrongType]; [ErrClosed]; context
// errors; [*TransportError].
func (d *DeadLetters) Purge(ctx context.Context, ids ...ID) (int64, error) {
	if d.dead.err != nil {
		return 0, opError("purge", d.dead.key, d.dead.err)
	}
	entries := make([]string, len(ids))
	for i, id := range ids {
		if err := checkEventID(id); err != nil {
			return 0, opError("purge", d.dead.key, err)
		}
		entries[i] = id.EntryID().String()
	}
	n, err := d.s.c.conn.XDel(ctx, d.dead.key, entries...)
	return n, opError("purge", d.dead.key, err)
}

// PurgeAll deletes every dead letter of the stream and returns how many
// there were. Errors: as [DeadLetters.Purge].
func (d *DeadLetters) PurgeAll(ctx context.Context) (int64, error) {
	if d.dead.err != nil {
		return 0, opError("purge", d.dead.key, d.dead.err)
	}
	n, err := d.s.c.conn.XTrim(ctx, d.dead.key, "MAXLEN", true, "0")
	return n, opError("purge", d.dead.key, err)
}
