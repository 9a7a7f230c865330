package echomq

import (
	"errors"

	"github.com/echomq/echomq/internal/keyspace"
	"github.com/echomq/echomq/internal/wire"
)

// AppendOpts are the options of [Stream.Append] and
// [Stream.AppendBatch]. The zero value is a plain append.
type AppendOpts struct {
	// Key is an idempotency key (1..256 bytes): a repeat of it on this
	// stream within Config.DedupeWindow returns the receipts of the first
	// append and writes nothing, across processes. Retrying an append whose
	// outcome is unknown (a timeout, a broken connection) with the same key
	// is safe; retrying without a key may append the event twice. For a
	// batch the key covers the whole batch. "" means no key.
	Key string

	// ExpectTop requires the stream's last entry to be this id; otherwise
	// the append fails with a [*ConflictError] carrying the actual top and
	// writes nothing. The zero ID means no requirement (see ExpectEmpty).
	ExpectTop ID

	// ExpectEmpty requires the stream to hold no entry (absent, or
	// trimmed to nothing), with the same failure as ExpectTop.
	ExpectEmpty bool

	// Tags, "key=value" each (such as "game=GAM1"), make the append a
	// tagged event of the queue: it gets the queue's next position, stores
	// the tags and the position in the entry ("@tags", "@pos") and enters
	// the queue's tag index in the same script, so that package dcb can
	// read and condition on it. For a batch every record carries them. A
	// key is [A-Za-z0-9._-]{1,64}, a value 1..128 bytes without control
	// bytes, spaces or ','; at most 16 tags. A bad tag is an
	// [*ArgumentError] before any I/O. Tags do not combine with Durable.
	// Nil means untagged: the append's path and bytes are those of an
	// untagged append.
	Tags []string

	// Durable, when Durable.Replicas > 0, acknowledges the append only
	// once that many replicas hold it (see [Durability]); fewer within its
	// timeout is a [*DurabilityError] (the append is written). Defaults to
	// the zero Durability: no wait.
	Durable Durability
}

func (o *AppendOpts) plain() bool {
	return o.Key == "" && o.ExpectTop.IsZero() && !o.ExpectEmpty && !o.Durable.on() && len(o.Tags) == 0
}

// validate checks the options before any I/O.
func (o *AppendOpts) validate() error {
	if err := o.Durable.validate(); err != nil {
		return err
	}
	if len(o.Tags) > 0 {
		if _, _, err := keyspace.Tags(o.Tags); err != nil {
			return &ArgumentError{Name: "tags", Reason: err.Error()}
		}
		if o.Durable.on() {
			return &ArgumentError{Name: "tags", Reason: "a tagged append does not combine with Durable"}
		}
	}
	if o.Key != "" {
		if err := keyspace.IdempotencyKey(o.Key); err != nil {
			reason := err.Error()
			if ne, ok := errors.AsType[*keyspace.NameError](err); ok {
				reason = ne.Reason
			}
			return &ArgumentError{Name: "idempotency key", Reason: reason}
		}
	}
	if !o.ExpectTop.IsZero() {
		if o.ExpectEmpty {
			return &ArgumentError{Name: "expected top", Reason: "ExpectTop and ExpectEmpty exclude each other"}
		}
		if !o.ExpectTop.isEvent() {
			return &KindError{Want: BrandEvent, Got: o.ExpectTop.Brand()}
		}
	}
	return nil
}

// expect is the script's encoding of the expected top.
func (o *AppendOpts) expect() string {
	switch {
	case o.ExpectEmpty:
		return wire.ExpectEmpty
	case !o.ExpectTop.IsZero():
		return o.ExpectTop.EntryID().String()
	}
	return ""
}
