package dcb

import (
	"fmt"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/internal/keyspace"
	"github.com/echomq/echomq/internal/wire"
)

// Limits of a query and of a conditional append, checked before any I/O.
const (
	// MaxItems is the most items of a [Query].
	MaxItems = 16
	// MaxTypes is the most types of one [Item].
	MaxTypes = 32
	// MaxTags is the most tags of one [Item] or one event.
	MaxTags = keyspace.MaxTags
	// MaxEvents is the most events of one [Store.Append].
	MaxEvents = 256
)

// Item selects the events of one of Types (stream names of the queue; none
// means every stream holding tagged events) that carry every tag of Tags
// ("key=value"). An item needs at least one tag: untagged events have no
// position and are not indexed, so a query can only see tagged ones, and a
// tag is what bounds the scan.
type Item struct {
	Types []string
	Tags  []string
}

// Query selects the events matching any of its items. It needs at least
// one item.
type Query []Item

// Tags returns the tags key=value built from alternating keys and values:
//
//	dcb.Tags("game", "GAM1", "player", "PLR1") // "game=GAM1", "player=PLR1"
func Tags(kv ...string) []string {
	out := make([]string, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, kv[i]+"="+kv[i+1])
	}
	if len(kv)%2 == 1 {
		out = append(out, kv[len(kv)-1])
	}
	return out
}

// Validate checks the query: 1..MaxItems items, each with valid distinct
// types (at most MaxTypes) and 1..MaxTags valid tags. It returns an
// [*echomq.ArgumentError] (or the [*echomq.NameError] of a bad type).
func (q Query) Validate() error {
	_, err := q.wire()
	return err
}

// wire checks the query and returns it as the scripts take it (tags
// canonical, so that equal items scan equal sets).
func (q Query) wire() ([]wire.DCBItem, error) {
	if len(q) == 0 {
		return nil, &echomq.ArgumentError{Name: "query", Reason: "no items: a query needs at least one"}
	}
	if len(q) > MaxItems {
		return nil, &echomq.ArgumentError{Name: "query", Reason: fmt.Sprintf("%d items: at most %d", len(q), MaxItems)}
	}
	items := make([]wire.DCBItem, len(q))
	for i, it := range q {
		if len(it.Tags) == 0 {
			return nil, &echomq.ArgumentError{Name: "query", Reason: fmt.Sprintf("item %d has no tags: untagged events have no position, so every item names at least one tag", i)}
		}
		tags, _, err := keyspace.Tags(it.Tags)
		if err != nil {
			return nil, &echomq.ArgumentError{Name: "query", Reason: fmt.Sprintf("item %d: %v", i, err)}
		}
		if len(it.Types) > MaxTypes {
			return nil, &echomq.ArgumentError{Name: "query", Reason: fmt.Sprintf("item %d has %d types: at most %d", i, len(it.Types), MaxTypes)}
		}
		seen := make(map[string]bool, len(it.Types))
		types := make([]string, 0, len(it.Types))
		for _, t := range it.Types {
			if err := keyspace.Stream(t); err != nil {
				return nil, err
			}
			if !seen[t] {
				seen[t] = true
				types = append(types, t)
			}
		}
		items[i] = wire.DCBItem{Types: types, Tags: tags}
	}
	return items, nil
}
