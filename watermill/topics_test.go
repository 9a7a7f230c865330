package watermill_test

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	emqwm "github.com/echomq/echomq/watermill"
)

var nameGrammar = regexp.MustCompile(`^[A-Za-z0-9._-]{1,128}$`)

func TestEscapeName(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 128)
	cases := []struct{ in, want string }{
		{"orders.created", "orders.created"},
		{"topic-1f0c_x", "topic-1f0c_x"},
		{long, long},
		{"orders/created", "_orders_2Fcreated"},
		{"_tmp", "__5Ftmp"},
		{"a b", "_a_20b"},
		{"a_b c", "_a_5Fb_20c"},
		{"{tag}", "__7Btag_7D"},
		{"", "_"},
		{"é", "__C3_A9"},
	}
	for _, c := range cases {
		if got := emqwm.EscapeName(c.in); got != c.want {
			t.Errorf("EscapeName(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	// Too long after escaping (or before): hashed, 128 bytes, distinct.
	a, b := emqwm.EscapeName(long+"a"), emqwm.EscapeName(long+"b")
	if len(a) != 128 || len(b) != 128 || a == b || !strings.Contains(a, "_h") {
		t.Errorf("hashed names %q %q", a, b)
	}
	if got := emqwm.EscapeQueue("emq"); got != "_emq" {
		t.Errorf(`EscapeQueue("emq") = %q`, got)
	}
	if got := emqwm.EscapeQueue("orders"); got != "orders" {
		t.Errorf(`EscapeQueue("orders") = %q`, got)
	}
}

func TestTopics(t *testing.T) {
	t.Parallel()
	one := emqwm.OneQueue("wm")
	fam := emqwm.QueuePerFamily("./")
	cases := []struct {
		name   string
		topics emqwm.Topics
		topic  string
		want   emqwm.Location
		err    bool
	}{
		{"one queue", one, "orders.created", emqwm.Location{Queue: "wm", Stream: "orders.created"}, false},
		{"one queue escaped", one, "orders created", emqwm.Location{Queue: "wm", Stream: "_orders_20created"}, false},
		{"one queue empty", one, "", emqwm.Location{}, true},
		{"family dot", fam, "orders.created", emqwm.Location{Queue: "orders", Stream: "orders.created"}, false},
		{"family slash", fam, "users/joined", emqwm.Location{Queue: "users", Stream: "_users_2Fjoined"}, false},
		{"family whole topic", fam, "audit", emqwm.Location{Queue: "audit", Stream: "audit"}, false},
		{"family emq", fam, "emq.x", emqwm.Location{Queue: "_emq", Stream: "emq.x"}, false},
		{"family empty", fam, ".x", emqwm.Location{}, true},
		{"family empty topic", fam, "", emqwm.Location{}, true},
	}
	for _, c := range cases {
		got, err := c.topics(c.topic)
		if c.err {
			var te *emqwm.TopicError
			if !errors.As(err, &te) || !errors.Is(err, emqwm.ErrInvalidTopic) || te.Topic != c.topic {
				t.Errorf("%s: err = %v, want a *TopicError for %q", c.name, err, c.topic)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s: %q → %+v, %v; want %+v", c.name, c.topic, got, err, c.want)
		}
	}
}

// FuzzEscapeName checks that every string maps into the grammar, that the
// mapping is injective on the short forms, and that names already in the
// grammar (not starting with "_") are kept.
func FuzzEscapeName(f *testing.F) {
	for _, s := range []string{"", "a", "_", "__", "_5F", "a/b", "a_2Fb", strings.Repeat("é", 80), "emq", "{q}:x"} {
		f.Add(s, s+"x")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		ea, eb := emqwm.EscapeName(a), emqwm.EscapeName(b)
		if !nameGrammar.MatchString(ea) {
			t.Fatalf("EscapeName(%q) = %q is outside the grammar", a, ea)
		}
		if a != b && ea == eb {
			t.Fatalf("EscapeName(%q) = EscapeName(%q) = %q", a, b, ea)
		}
		if nameGrammar.MatchString(a) && a[0] != '_' && ea != a {
			t.Fatalf("EscapeName(%q) = %q, want it verbatim", a, ea)
		}
		if q := emqwm.EscapeQueue(a); q == "emq" || !nameGrammar.MatchString(q) {
			t.Fatalf("EscapeQueue(%q) = %q", a, q)
		}
	})
}
