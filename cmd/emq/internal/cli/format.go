package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/echomq/echomq"
)

// timeLayout is RFC3339 with milliseconds, the resolution of a mint instant.
const timeLayout = "2006-01-02T15:04:05.000Z07:00"

func fmtTime(t time.Time) string { return t.UTC().Format(timeLayout) }

// table returns a tabwriter for aligned columns; callers Flush it.
func table(w io.Writer) *tabwriter.Writer { return tabwriter.NewWriter(w, 0, 0, 2, ' ', 0) }

// writeJSON writes v as one compact JSON document and a newline.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// orderedFields marshals a payload as a JSON object whose keys keep the
// stored order (encoding/json would sort a map).
type orderedFields echomq.Fields

func (f orderedFields) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i := 0; i+1 < len(f); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		for j, s := range []string{f[i], f[i+1]} {
			q, err := json.Marshal(s)
			if err != nil {
				return nil, err
			}
			b.Write(q)
			if j == 0 {
				b.WriteByte(':')
			}
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// eventDoc is the JSON form of an event. ID is null for an entry written
// without a well-formed "id" field (by another program).
// A tagged event also has its queue position and its tags (absent when
// untagged, so an untagged event's document is unchanged).
type eventDoc struct {
	ID       *string       `json:"id"`
	Entry    string        `json:"entry"`
	Time     string        `json:"time"`
	Position uint64        `json:"position,omitempty"`
	Tags     []string      `json:"tags,omitempty"`
	Fields   orderedFields `json:"fields"`
}

func toEventDoc(ev echomq.Event) eventDoc {
	d := eventDoc{Entry: ev.Entry.String(), Time: fmtTime(ev.Time()), Position: ev.Position, Tags: ev.Tags, Fields: orderedFields(ev.Fields)}
	if !ev.ID.IsZero() {
		id := ev.ID.String()
		d.ID = &id
	}
	return d
}

func toEventDocs(evs []echomq.Event) []eventDoc {
	docs := make([]eventDoc, len(evs))
	for i, ev := range evs {
		docs[i] = toEventDoc(ev)
	}
	return docs
}

// Event rows have fixed-width columns so that a following tail, which cannot
// buffer a whole table, lines up with a bounded read.
const eventRowFormat = "%-14s  %-21s  %-24s  %s\n"

func writeEventHeader(w io.Writer) error {
	_, err := fmt.Fprintf(w, eventRowFormat, "ID", "ENTRY", "TIME", "FIELDS")
	return err
}

func writeEventRow(w io.Writer, ev echomq.Event) error {
	id := "-"
	if !ev.ID.IsZero() {
		id = ev.ID.String()
	}
	_, err := fmt.Fprintf(w, eventRowFormat, id, ev.Entry, fmtTime(ev.Time()), eventText(ev))
	return err
}

// eventText is the FIELDS column: a tagged event's position and tags
// first, as "@pos=N @tags=k=v,k=v" (names a payload cannot have, so a row
// stays unambiguous), then its payload.
func eventText(ev echomq.Event) string {
	if ev.Position == 0 && len(ev.Tags) == 0 {
		return fieldsText(ev.Fields)
	}
	tags := strings.Join(ev.Tags, ",") // a tag holds no space or ','
	if strings.ContainsAny(tags, `"\`) || strings.ContainsFunc(tags, func(r rune) bool { return r == unicode.ReplacementChar || !unicode.IsPrint(r) }) {
		tags = strconv.Quote(tags)
	}
	s := "@pos=" + strconv.FormatUint(ev.Position, 10) + " @tags=" + tags
	if len(ev.Fields) > 0 {
		s += " " + fieldsText(ev.Fields)
	}
	return s
}

func writeEvents(w io.Writer, evs []echomq.Event) error {
	if err := writeEventHeader(w); err != nil {
		return err
	}
	for _, ev := range evs {
		if err := writeEventRow(w, ev); err != nil {
			return err
		}
	}
	return nil
}

// fieldsText renders a payload as name=value pairs, quoting (Go syntax) a
// name or value that is empty or holds a space, quote, "=" or a byte that
// does not print, so a row stays one unambiguous line.
func fieldsText(f echomq.Fields) string {
	var sb strings.Builder
	for i := 0; i+1 < len(f); i += 2 {
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(quoteField(f[i]))
		sb.WriteByte('=')
		sb.WriteString(quoteField(f[i+1]))
	}
	return sb.String()
}

func quoteField(s string) string {
	if s == "" {
		return `""`
	}
	for _, r := range s {
		if r == ' ' || r == '"' || r == '=' || r == '\\' || r == unicode.ReplacementChar || !unicode.IsPrint(r) {
			return strconv.Quote(s)
		}
	}
	return s
}
