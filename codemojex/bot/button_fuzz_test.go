package bot

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestParseButton(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		data string
		kind buttonKind
		arg  string
	}{
		{"j:ROM0000000001x", buttonJoin, "ROM0000000001x"},
		{"p:0100", buttonPick, "0100"},
		{"u", buttonUndo, ""},
		{"c", buttonClear, ""},
		{"s", buttonSubmit, ""},
		{"j:", buttonUnknown, ""},
		{"p:", buttonUnknown, ""},
		{"p:" + strings.Repeat("1", maxButtonArg+1), buttonUnknown, ""},
		{"p:a b", buttonUnknown, ""},
		{"p:\x00", buttonUnknown, ""},
		{"p:é", buttonUnknown, ""},
		{"x", buttonUnknown, ""},
		{"", buttonUnknown, ""},
		{"uu", buttonUnknown, ""},
	} {
		kind, arg := parseButton(tc.data)
		if kind != tc.kind || arg != tc.arg {
			t.Errorf("parseButton(%q) = %v %q, want %v %q", tc.data, kind, arg, tc.kind, tc.arg)
		}
	}
}

// FuzzParseButton: callback data from anyone never panics, and what is
// accepted is a short printable argument of one of the bot's buttons.
func FuzzParseButton(f *testing.F) {
	for _, s := range []string{"j:ROM0000000001x", "p:0100", "u", "c", "s", "p:", "j:\xff", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		kind, arg := parseButton(data)
		switch kind {
		case buttonJoin, buttonPick:
			if arg == "" || len(arg) > maxButtonArg || !strings.HasSuffix(data, arg) {
				t.Fatalf("parseButton(%q) accepted %q", data, arg)
			}
		case buttonUnknown, buttonUndo, buttonClear, buttonSubmit:
			if arg != "" {
				t.Fatalf("parseButton(%q): argument %q on a bare button", data, arg)
			}
		}
	})
}

// FuzzDecodeUpdate: any webhook body decodes to an update or an error,
// never a panic; the command parser and the dispatch's checks hold on
// whatever is accepted.
func FuzzDecodeUpdate(f *testing.F) {
	seeds := []string{
		`{"update_id":1,"message":{"message_id":2,"from":{"id":3,"first_name":"Ann"},"chat":{"id":3,"type":"private"},"text":"/rooms@bot x"}}`,
		`{"update_id":1,"callback_query":{"id":"q","from":{"id":3,"first_name":"Ann"},"message":{"message_id":2,"chat":{"id":3,"type":"private"},"date":1},"data":"p:0100"}}`,
		`{"update_id":1,"callback_query":{"id":"q","from":{"id":3},"message":{"message_id":2,"chat":{"id":3},"date":0},"data":"s"}}`,
		`{}`, `{"update_id":1} {"update_id":2}`, `[]`, `null`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		u, err := decodeUpdate(bytes.NewReader(body))
		if err != nil {
			return
		}
		if u.Message != nil {
			cmd := parseCommand(u.Message.Text)
			if strings.ContainsAny(cmd, " @") {
				t.Fatalf("command %q keeps a space or a mention", cmd)
			}
		}
		if q := u.CallbackQuery; q != nil && q.Message.Message != nil {
			if kind, _ := parseButton(q.Data); kind == buttonUnknown && q.Data == "u" {
				t.Fatalf("the undo button %q parsed as unknown", q.Data)
			}
		}
		if _, err := json.Marshal(u); err != nil {
			t.Fatalf("an accepted update does not re-encode: %v", err)
		}
	})
}
