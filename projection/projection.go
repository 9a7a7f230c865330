package projection

import (
	"encoding/json"
)

// Projection is the definition of a fold: an initial state and a function
// that applies one event to it, in mint order. It is a plain value; build
// one literally or take a ready-made one ([Count], [Sum], [CountPer],
// [Latest], [Top], [Distinct], …).
//
// Apply may update the state in place and return it (maps, pointers), or
// return a new value; the fold keeps what it returns. It must be
// deterministic and do no I/O: a projection is recomputed from the log and
// must reach the same state every time.
type Projection[S any] struct {
	// Name names the projection in errors and in its snapshots. Defaults
	// to "": fine for one-shot folds.
	Name string

	// Version identifies the definition: bump it whenever Init, Apply or the
	// state's encoding change meaning. A snapshot saved under another
	// version is never resumed; the projection is rebuilt from the log.
	// Defaults to 0.
	Version int

	// Init returns a fresh initial state. Defaults to nil: the zero S.
	Init func() S

	// Apply folds one event into the state and returns the new state.
	// Required: a nil Apply is refused with an [*echomq.ArgumentError].
	Apply func(state S, ev Event) S

	// Codec encodes the state into snapshots and decodes it back. Defaults
	// to nil: [JSON].
	Codec Codec[S]

	err error // set by ready-made constructors given bad arguments
}

// Validate returns the error a fold or a live projection would refuse p
// with: an [*echomq.ArgumentError] for a nil Apply or for bad arguments given
// to a ready-made constructor.
func (p Projection[S]) Validate() error {
	if p.err != nil {
		return p.err
	}
	if p.Apply == nil {
		return argError("projection", quote(p.Name)+" has a nil Apply function")
	}
	return nil
}

func (p Projection[S]) init() S {
	if p.Init == nil {
		var zero S
		return zero
	}
	return p.Init()
}

func (p Projection[S]) codec() Codec[S] {
	if p.Codec == nil {
		return JSON[S]()
	}
	return p.Codec
}

func (p Projection[S]) encode(s S) ([]byte, error) {
	b, err := p.codec().Encode(s)
	if err != nil {
		return nil, &CodecError{Projection: p.Name, Op: "encode", Err: err}
	}
	return b, nil
}

func (p Projection[S]) decode(b []byte) (S, error) {
	s, err := p.codec().Decode(b)
	if err != nil {
		var zero S
		return zero, &CodecError{Projection: p.Name, Op: "decode", Err: err}
	}
	return s, nil
}

// clone returns a private copy of s made through the codec, for readers
// that must not share a state the fold goes on mutating.
func (p Projection[S]) clone(s S) (S, error) {
	b, err := p.encode(s)
	if err != nil {
		var zero S
		return zero, err
	}
	return p.decode(b)
}

// Codec turns a projection's state into bytes and back, for snapshots.
// Decode(Encode(s)) must fold on exactly as s would.
type Codec[S any] interface {
	Encode(state S) ([]byte, error)
	Decode(data []byte) (S, error)
}

// JSON returns the codec that stores the state as JSON with encoding/json:
// the default. Exported fields (and maps, slices) round-trip; a state with
// unexported fields, channels, functions or non-finite floats needs a codec
// of its own.
func JSON[S any]() Codec[S] { return jsonCodec[S]{} }

type jsonCodec[S any] struct{}

func (jsonCodec[S]) Encode(s S) ([]byte, error) { return json.Marshal(s) }

func (jsonCodec[S]) Decode(b []byte) (S, error) {
	var s S
	err := json.Unmarshal(b, &s)
	return s, err
}

// CodecFunc adapts two functions into a [Codec].
type CodecFunc[S any] struct {
	EncodeFunc func(S) ([]byte, error)
	DecodeFunc func([]byte) (S, error)
}

// Encode calls EncodeFunc.
func (c CodecFunc[S]) Encode(s S) ([]byte, error) { return c.EncodeFunc(s) }

// Decode calls DecodeFunc.
func (c CodecFunc[S]) Decode(b []byte) (S, error) { return c.DecodeFunc(b) }
