package echomq

// The edits below are what an [UpcastFunc] usually does to an old payload:
// rename a field, give a new one its default, drop one. Each returns the
// edited fields and may reuse f's storage.

// Rename renames the first field named from to to; f is returned as it is
// when no field is named from.
func (f Fields) Rename(from, to string) Fields {
	for i := 0; i+1 < len(f); i += 2 {
		if f[i] == from {
			f[i] = to
			return f
		}
	}
	return f
}

// Set gives the first field named name the value v, or appends the pair
// when there is none.
func (f Fields) Set(name, v string) Fields {
	for i := 0; i+1 < len(f); i += 2 {
		if f[i] == name {
			f[i+1] = v
			return f
		}
	}
	return append(f, name, v)
}

// Default appends the pair name=v when no field is named name.
func (f Fields) Default(name, v string) Fields {
	if _, ok := f.Get(name); ok {
		return f
	}
	return append(f, name, v)
}

// Delete removes every field named name.
func (f Fields) Delete(name string) Fields {
	out := f[:0]
	for i := 0; i+1 < len(f); i += 2 {
		if f[i] != name {
			out = append(out, f[i], f[i+1])
		}
	}
	return out
}
