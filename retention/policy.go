package retention

import (
	"fmt"
	"strings"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/internal/keyspace"
)

// Policy declares the retention of one stream.
type Policy struct {
	Queue  string
	Stream string
	Rule   Rule
}

// Validate returns an [*echomq.NameError] for a bad queue or stream name
// and the rule's [*echomq.ArgumentError].
func (p Policy) Validate() error {
	if err := keyspace.Queue(p.Queue); err != nil {
		return err
	}
	if err := keyspace.Stream(p.Stream); err != nil {
		return err
	}
	return p.Rule.Validate()
}

// String renders the policy as [ParsePolicy] reads it:
// "cm/guess-scored maxlen 1000 exact".
func (p Policy) String() string { return p.Queue + "/" + p.Stream + " " + p.Rule.String() }

// ParsePolicy parses "<queue>/<stream> <rule>", the rule as [ParseRule]
// reads it. It returns an [*echomq.NameError] for a bad name and an
// [*echomq.ArgumentError] otherwise.
func ParsePolicy(s string) (Policy, error) {
	target, rule, ok := strings.Cut(strings.TrimSpace(s), " ")
	q, name, slash := strings.Cut(target, "/")
	if !ok || !slash {
		return Policy{}, &echomq.ArgumentError{Name: "retention policy", Reason: fmt.Sprintf("%q: want \"<queue>/<stream> <rule>\"", s)}
	}
	r, err := ParseRule(rule)
	if err != nil {
		return Policy{}, err
	}
	p := Policy{Queue: q, Stream: name, Rule: r}
	if err := p.Validate(); err != nil {
		return Policy{}, err
	}
	return p, nil
}
