package emqotel

import (
	"github.com/echomq/echomq"
)

// The opt-in metadata fields. They are ordinary payload fields under names
// a domain does not pick ("emq." prefix, registered in docs/keyspace.md):
// written only when asked for, read by every EchoMQ tracer.
const (
	// TraceParentField holds the W3C traceparent of the span that appended
	// the entry ([Config.Inject]).
	TraceParentField = "emq.traceparent"
	// TraceStateField holds the W3C tracestate, when there is one.
	TraceStateField = "emq.tracestate"
	// CorrelationField holds the correlation id: the id of the first event
	// of a chain of events caused by one another ([Caused]).
	CorrelationField = "emq.correlation"
	// CausationField holds the causation id: the id of the event this one
	// was written in reaction to ([Caused]).
	CausationField = "emq.causation"
)

// Caused returns a copy of f with the correlation and causation ids of an
// event written in reaction to d: the causation id is d's record key (its
// branded id), the correlation id is d's own correlation id, or d's key
// when d starts the chain. f itself is not modified.
func Caused(d echomq.Delivery, f echomq.Fields) echomq.Fields {
	corr := Correlation(d.Fields)
	if corr == "" {
		corr = d.Key()
	}
	out := make(echomq.Fields, 0, len(f)+4)
	out = append(out, f...)
	return append(out, CorrelationField, corr, CausationField, d.Key())
}

// Correlation returns the correlation id of an event's fields, "" when it
// has none.
func Correlation(f echomq.Fields) string { return f.Value(CorrelationField) }

// Causation returns the causation id of an event's fields, "" when it has
// none.
func Causation(f echomq.Fields) string { return f.Value(CausationField) }

// carrier reads and writes the trace fields of an entry for a propagator.
type carrier struct{ f *echomq.Fields }

var carried = map[string]string{"traceparent": TraceParentField, "tracestate": TraceStateField}

func (c carrier) Get(key string) string {
	if name, ok := carried[key]; ok {
		return c.f.Value(name)
	}
	return ""
}

func (c carrier) Set(key, value string) {
	if name, ok := carried[key]; ok {
		*c.f = append(*c.f, name, value)
	}
}

func (c carrier) Keys() []string { return []string{"traceparent", "tracestate"} }
