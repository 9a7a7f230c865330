package telegram_test

import (
	"crypto/hmac"
	"encoding/hex"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/echomq/echomq/codemojex/telegram"
)

// FuzzVerifyInitData feeds VerifyInitData arbitrary query strings. It must
// never panic, and whatever it accepts must be what Telegram would have
// signed: every field once, a hash equal (by the independent reference
// signer) to the HMAC of all the other fields, a fresh auth_date, a user
// with an id, and the verified fields exactly the received ones.
func FuzzVerifyInitData(f *testing.F) {
	fresh := fields(now.Add(-time.Hour))
	raw := signed(fresh)
	for _, seed := range []string{
		raw,
		signed(fields(now)),
		signed(fields(now.Add(-25 * time.Hour))),
		signed(map[string]string{"auth_date": strconv.FormatInt(now.Unix(), 10), "user": `{"id":7,"first_name":"Zoë 🦊"}`, "chat_type": "private", "start_param": "room=RM1"}),
		signed(map[string]string{"auth_date": strconv.FormatInt(now.Unix(), 10), "user": `{"id":0}`}),
		signed(map[string]string{"auth_date": "soon", "user": `{"id":1}`}),
		strings.Replace(raw, "Vladislav", "Mallory", 1),
		raw + "&user=" + url.QueryEscape(`{"id":1}`),
		raw + "&hash=" + strings.Repeat("0", 64),
		strings.ToUpper(raw),
		"hash=00&user=%7B%7D",
		"hash=" + strings.Repeat("zz", 32),
		"%zz",
		"a;b",
		"",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		d, err := telegram.VerifyInitData(raw, token, now, 0)
		if err != nil {
			return
		}
		vals, perr := url.ParseQuery(raw)
		if perr != nil {
			t.Fatalf("accepted %q, which is not a query string: %v", raw, perr)
		}
		signedFields := map[string]string{}
		for k, v := range vals {
			if len(v) != 1 {
				t.Fatalf("accepted %q with field %q repeated", raw, k)
			}
			if k != "hash" {
				signedFields[k] = v[0]
			}
		}
		want, _ := hex.DecodeString(reference(signedFields))
		got, herr := hex.DecodeString(vals.Get("hash"))
		if herr != nil || !hmac.Equal(got, want) {
			t.Fatalf("accepted %q without a valid hash", raw)
		}
		if age := now.Sub(d.AuthDate); age > telegram.MaxAge || age < -time.Minute {
			t.Fatalf("accepted %q with auth_date %s", raw, d.AuthDate)
		}
		if d.User.ID == 0 {
			t.Fatalf("accepted %q without a user", raw)
		}
		if len(d.Fields) != len(signedFields) || d.Fields.Has("hash") {
			t.Fatalf("accepted %q but reports fields %v", raw, d.Fields)
		}
		for k, v := range signedFields {
			if d.Fields.Get(k) != v {
				t.Fatalf("accepted %q but reports %s=%q", raw, k, d.Fields.Get(k))
			}
		}
	})
}
