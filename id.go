package echomq

import (
	"fmt"
	"time"
)

// Brand lengths and the fixed width of a branded id.
const (
	brandLen   = 3
	base62Len  = 11
	idLen      = brandLen + base62Len // 14 bytes on the wire
	base62Max  = "AzL8n0Y58m7"        // base62(2^63-1): the byte-wise range guard
	base62Alph = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
)

// BrandEvent is the brand of stream records. A stream admits exactly this
// one brand, because byte order equals mint order only within one brand.
//
// Any three uppercase ASCII letters are a valid brand: a program names its
// own ([NewID], [Minter.NextID], [Client.MintID]) with no registration, and
// keeps its brands next to the code that mints them (package lanes has
// lanes.BrandJob; an application its own, "PLR", "ROM", …). The library
// checks only the form.
const BrandEvent = "EVT"

// base62Index maps a byte to its digit value, or 0xFF when it is not in the
// alphabet. Built once so decoding is a table lookup per byte.
var base62Index = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xFF
	}
	for i := range len(base62Alph) {
		t[base62Alph[i]] = byte(i)
	}
	return t
}()

// ID is a branded, time-ordered id: a 3-letter uppercase brand and a
// snowflake, written as 14 bytes (brand + 11 base62 characters). The zero ID
// is not a valid id; [ID.IsZero] reports it. IDs are comparable and usable as
// map keys.
type ID struct {
	brand [brandLen]byte
	snow  Snowflake
}

// NewID brands a snowflake. It returns an [*IDError] (matching [ErrMalformedID])
// when the brand is not three uppercase ASCII letters or the snowflake is
// negative.
func NewID(brand string, s Snowflake) (ID, error) {
	if err := checkBrand(brand); err != nil {
		return ID{}, err
	}
	if s < 0 {
		return ID{}, &IDError{Input: brand, Reason: "negative snowflake"}
	}
	var id ID
	copy(id.brand[:], brand)
	id.snow = s
	return id, nil
}

// MustID is [NewID] for constants in tests and examples; it panics on error.
func MustID(brand string, s Snowflake) ID {
	id, err := NewID(brand, s)
	if err != nil {
		panic(err)
	}
	return id
}

func checkBrand(brand string) error {
	if len(brand) != brandLen {
		return &IDError{Input: brand, Reason: "brand must be 3 uppercase letters"}
	}
	for i := range brandLen {
		if brand[i] < 'A' || brand[i] > 'Z' {
			return &IDError{Input: brand, Reason: "brand must be 3 uppercase letters"}
		}
	}
	return nil
}

// ParseID parses a 14-byte branded id. It returns an [*IDError] (matching
// [ErrMalformedID]) for the wrong length, a brand that is not three uppercase
// letters, a byte outside the base62 alphabet, or a value above 2^63-1.
func ParseID(s string) (ID, error) {
	if len(s) != idLen {
		return ID{}, &IDError{Input: s, Reason: fmt.Sprintf("length %d, want %d", len(s), idLen)}
	}
	if err := checkBrand(s[:brandLen]); err != nil {
		return ID{}, &IDError{Input: s, Reason: "brand must be 3 uppercase letters"}
	}
	n, err := decodeBase62(s[brandLen:])
	if err != nil {
		err.Input = s
		return ID{}, err
	}
	var id ID
	copy(id.brand[:], s)
	id.snow = Snowflake(n)
	return id, nil
}

// ParseEventID parses a branded id and checks that its brand is
// [BrandEvent]. A well-formed id of another brand returns a [*KindError]
// (matching [ErrWrongKind]).
func ParseEventID(s string) (ID, error) {
	id, err := ParseID(s)
	if err != nil {
		return ID{}, err
	}
	if !id.isEvent() {
		return ID{}, &KindError{Want: BrandEvent, Got: id.Brand()}
	}
	return id, nil
}

// Brand returns the 3-letter brand ("" for the zero ID).
func (id ID) Brand() string {
	if id.IsZero() {
		return ""
	}
	return string(id.brand[:])
}

// isEvent reports whether the id carries the [BrandEvent] brand.
func (id ID) isEvent() bool { return string(id.brand[:]) == BrandEvent }

// Snowflake returns the id's snowflake.
func (id ID) Snowflake() Snowflake { return id.snow }

// Time returns the mint instant in UTC, to the millisecond.
func (id ID) Time() time.Time { return id.snow.Time() }

// EntryID returns the XADD entry id the id maps to (mapping A1).
func (id ID) EntryID() EntryID { return id.snow.EntryID() }

// IsZero reports whether id is the zero ID.
func (id ID) IsZero() bool { return id.brand == [brandLen]byte{} }

// Compare orders ids by brand, then snowflake: the same order as their
// 14-byte text. Within one brand it is mint order.
func (id ID) Compare(o ID) int {
	for i := range id.brand {
		if id.brand[i] != o.brand[i] {
			if id.brand[i] < o.brand[i] {
				return -1
			}
			return 1
		}
	}
	switch {
	case id.snow < o.snow:
		return -1
	case id.snow > o.snow:
		return 1
	}
	return 0
}

// String returns the 14-byte text form, or "" for the zero ID.
func (id ID) String() string {
	if id.IsZero() {
		return ""
	}
	var b [idLen]byte
	return string(id.appendTo(b[:0]))
}

// AppendText appends the 14-byte text form to b.
func (id ID) AppendText(b []byte) ([]byte, error) { return id.appendTo(b), nil }

// MarshalText returns the 14-byte text form.
func (id ID) MarshalText() ([]byte, error) { return id.appendTo(make([]byte, 0, idLen)), nil }

// UnmarshalText parses the 14-byte text form; see [ParseID].
func (id *ID) UnmarshalText(b []byte) error {
	p, err := ParseID(string(b))
	if err != nil {
		return err
	}
	*id = p
	return nil
}

func (id ID) appendTo(b []byte) []byte {
	b = append(b, id.brand[:]...)
	return appendBase62(b, uint64(id.snow))
}

// appendBase62 appends n as 11 fixed-width base62 digits.
func appendBase62(b []byte, n uint64) []byte {
	var d [base62Len]byte
	for i := base62Len - 1; i >= 0; i-- {
		d[i] = base62Alph[n%62]
		n /= 62
	}
	return append(b, d[:]...)
}

// decodeBase62 decodes exactly 11 base62 digits into a value <= 2^63-1.
func decodeBase62(s string) (int64, *IDError) {
	if len(s) != base62Len {
		return 0, &IDError{Input: s, Reason: fmt.Sprintf("base62 length %d, want %d", len(s), base62Len)}
	}
	var n uint64
	for i := range base62Len {
		v := base62Index[s[i]]
		if v == 0xFF {
			return 0, &IDError{Input: s, Reason: fmt.Sprintf("byte %q at %d is not base62", s[i], i)}
		}
		n = n*62 + uint64(v)
	}
	// 62^11 > 2^64, so the sum may wrap; the byte-wise guard against
	// base62(2^63-1) is exact because fixed-width base62 sorts as its value.
	if s > base62Max {
		return 0, &IDError{Input: s, Reason: "value above 2^63-1"}
	}
	return int64(n), nil
}
