package echomq

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
)

// VersionField is the payload field in which a versioned [Typed] view
// records the schema version of each entry it appends, as a decimal integer
// ("3"). It is written after the codec's fields and removed before the
// codec and the upcasters see them. The name is reserved for typed
// streams: a codec that produces it is refused (a [*FieldError] matching
// [ErrReservedField]), and the domain names its own fields otherwise.
const VersionField = "emq.v"

// maxVersion is the highest schema version a [Typed] view accepts.
const maxVersion = 1 << 20

// UpcastFunc turns the payload of one schema version into the next: it gets
// the stored fields (without "id" and [VersionField]) and returns the fields
// the next version would have stored. It may change f in place and return
// it. It must be deterministic and do no I/O: archived events are upcast
// again on every read, for ever.
type UpcastFunc func(f Fields) (Fields, error)

// ErrDecode matches every [*DecodeError]: an entry that a [Typed] view could
// not turn into a value.
var ErrDecode = errors.New("echomq: cannot decode event")

// DecodeError is an entry a [Typed] view could not decode: its version is
// unknown or newer than the view's, an upcaster failed, or the codec
// refused the (upcast) payload. Such an entry can never decode by being
// read again, so a typed consumer handler moves it to the dead letters at
// once, with this error's text as the reason.
type DecodeError struct {
	// Stream is the stream's key; Entry and ID name the entry.
	Stream string
	Entry  EntryID
	ID     ID
	// Version is the entry's schema version (0 when unversioned or
	// unreadable).
	Version int
	// Stage is where decoding failed: "version", "upcast v1→v2", "codec".
	Stage string
	// Err is the cause.
	Err error
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("echomq: decode %s entry %s (version %d) at %s: %v", e.Stream, e.Entry, e.Version, e.Stage, e.Err)
}

// Unwrap returns [ErrDecode], so errors.Is matches it, and the cause.
func (e *DecodeError) Unwrap() []error { return sentinelAnd(ErrDecode, e.Err) }

// upcaster is the version discipline of one view: the version it writes and
// the chain that brings older payloads up to it.
type upcaster struct {
	version int
	chain   []UpcastFunc
}

func newUpcaster(version int, chain []UpcastFunc) (upcaster, error) {
	switch {
	case version < 0 || version > maxVersion:
		return upcaster{}, &ArgumentError{Name: "version", Reason: fmt.Sprintf("%d is outside [0, %d]", version, maxVersion)}
	case version == 0 && len(chain) > 0:
		version = len(chain) + 1
	case version > 0 && len(chain) != version-1:
		return upcaster{}, &ArgumentError{Name: "upcasters", Reason: fmt.Sprintf("version %d needs %d upcasters (v1→v2 … v%d→v%d), got %d", version, version-1, version-1, version, len(chain))}
	}
	for i, fn := range chain {
		if fn == nil {
			return upcaster{}, &ArgumentError{Name: "upcasters", Reason: fmt.Sprintf("upcaster v%d→v%d is nil", i+1, i+2)}
		}
	}
	return upcaster{version: version, chain: chain}, nil
}

// stamp returns the fields to append: f, then the version field when the
// view is versioned.
func (u upcaster) stamp(f Fields) Fields {
	if u.version == 0 {
		return f
	}
	return append(f, VersionField, strconv.Itoa(u.version))
}

// lift removes the version field from f and runs the upcasters from the
// entry's version to the view's. An entry without the field is version 1.
// On an unversioned view an entry without the field is version 0. The
// returned error is the stage and cause; the caller makes the
// [*DecodeError].
func (u upcaster) lift(f Fields) (out Fields, version int, stage string, err error) {
	version = 1
	at := -1
	for i := 0; i+1 < len(f); i += 2 {
		if f[i] == VersionField {
			at = i
			break
		}
	}
	if at >= 0 {
		n, err := strconv.Atoi(f[at+1])
		if err != nil || n < 1 || n > maxVersion {
			return nil, 0, "version", fmt.Errorf("%s=%q is not a version", VersionField, f[at+1])
		}
		version = n
		g := make(Fields, 0, len(f)-2)
		f = append(append(g, f[:at]...), f[at+2:]...)
	}
	if u.version == 0 {
		if at < 0 {
			version = 0
		}
		return f, version, "", nil // unversioned view: take payloads as they are
	}
	if version > u.version {
		return nil, version, "version", fmt.Errorf("version %d is newer than this view's %d", version, u.version)
	}
	if at < 0 && version < u.version {
		f = slices.Clone(f) // upcasters may edit in place: never the stored event's fields
	}
	for v := version; v < u.version; v++ {
		if f, err = u.chain[v-1](f); err != nil {
			return nil, version, fmt.Sprintf("upcast v%d→v%d", v, v+1), err
		}
	}
	return f, version, "", nil
}
