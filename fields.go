package echomq

// Fields is an event's payload: field names and values, flat and in order
// (name, value, name, value, …). Values are binary-safe. The name "id" is
// reserved for the record's branded id, and names beginning with "@" for
// the fields the library writes (a tagged event's "@pos" and "@tags").
type Fields []string

// F builds [Fields] from alternating names and values:
//
//	echomq.F("room", room, "player", player)
//
// An odd count is reported by the verb that receives the Fields, as a
// [*FieldError] matching [ErrInvalidFields].
func F(kv ...string) Fields { return Fields(kv) }

// reservedField is the payload field that holds the record's branded id.
const reservedField = "id"

// reservedPrefix begins the names of the payload fields the library owns:
// a tagged event (AppendOpts.Tags) stores its queue position as "@pos" and
// its tags as "@tags", right after "id". A payload may not name a field
// with it; reads return those fields as [Event.Position] and [Event.Tags],
// not in [Event.Fields].
const reservedPrefix = "@"

// Get returns the value of the first field named name.
func (f Fields) Get(name string) (string, bool) {
	for i := 0; i+1 < len(f); i += 2 {
		if f[i] == name {
			return f[i+1], true
		}
	}
	return "", false
}

// Value returns the value of the first field named name, or "".
func (f Fields) Value(name string) string {
	v, _ := f.Get(name)
	return v
}

// Map returns the pairs as a map; for a repeated name the first value wins.
func (f Fields) Map() map[string]string {
	m := make(map[string]string, len(f)/2)
	for i := 0; i+1 < len(f); i += 2 {
		if _, ok := m[f[i]]; !ok {
			m[f[i]] = f[i+1]
		}
	}
	return m
}

// Validate checks that f can be appended: an even number of strings, no
// field named "id" and none beginning with "@". It returns a [*FieldError].
func (f Fields) Validate() error {
	if len(f)%2 != 0 {
		return &FieldError{Reason: "odd number of strings: want name/value pairs", err: ErrInvalidFields}
	}
	for i := 0; i < len(f); i += 2 {
		if f[i] == reservedField {
			return &FieldError{Field: reservedField, Reason: "reserved for the record id; name the domain's identifier (room, game, player, …)", err: ErrReservedField}
		}
		if len(f[i]) > 0 && f[i][0] == reservedPrefix[0] {
			return &FieldError{Field: f[i], Reason: `names beginning with "@" are reserved for the library's fields (a tagged event's "@pos", "@tags")`, err: ErrReservedField}
		}
	}
	return nil
}
