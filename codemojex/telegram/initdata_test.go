package telegram_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/codemojex/telegram"
)

const token = "123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11"

var now = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// reference signs fields the way Telegram documents it, written out here
// independently of the package: data-check-string, secret key, hex HMAC.
func reference(fields map[string]string) string {
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	for i := range keys {
		for j := i + 1; j < len(keys); j++ {
			if keys[j] < keys[i] {
				keys[i], keys[j] = keys[j], keys[i]
			}
		}
	}
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(k + "=" + fields[k])
	}
	sk := hmac.New(sha256.New, []byte("WebAppData"))
	sk.Write([]byte(token))
	m := hmac.New(sha256.New, sk.Sum(nil))
	m.Write([]byte(b.String()))
	return hex.EncodeToString(m.Sum(nil))
}

func signed(fields map[string]string) string {
	v := url.Values{}
	for k, x := range fields {
		v.Set(k, x)
	}
	v.Set("hash", reference(fields))
	return v.Encode()
}

func fields(auth time.Time) map[string]string {
	return map[string]string{
		"query_id":  "AAHdF6IQAAAAAN0XohDhrOrc",
		"user":      `{"id":279058397,"first_name":"Vladislav","last_name":"Kibenko","username":"vdkfrost","language_code":"ru"}`,
		"auth_date": strconv.FormatInt(auth.Unix(), 10),
	}
}

func TestVerifyInitData(t *testing.T) {
	t.Parallel()
	d, err := telegram.VerifyInitData(signed(fields(now.Add(-time.Hour))), token, now, 0)
	require.NoError(t, err)
	require.Equal(t, int64(279058397), d.User.ID)
	require.Equal(t, "vdkfrost", d.User.Username)
	require.Equal(t, now.Add(-time.Hour).Unix(), d.AuthDate.Unix())

	tampered := fields(now.Add(-time.Hour))
	raw := signed(tampered)
	for _, tc := range []struct {
		name string
		raw  string
		tok  string
		want error
	}{
		{"tampered user", strings.Replace(raw, "Vladislav", "Mallory", 1), token, telegram.ErrSignature},
		{"tampered auth_date", strings.Replace(raw, "auth_date="+tampered["auth_date"], "auth_date="+strconv.FormatInt(now.Unix(), 10), 1), token, telegram.ErrSignature},
		{"added field", raw + "&chat_type=private", token, telegram.ErrSignature},
		{"repeated field", raw + "&user=" + url.QueryEscape(`{"id":1,"first_name":"Mallory"}`), token, telegram.ErrMalformed},
		{"repeated hash", raw + "&hash=" + reference(tampered), token, telegram.ErrMalformed},
		{"wrong hash", strings.Replace(raw, "hash="+reference(tampered), "hash="+strings.Repeat("0", 64), 1), token, telegram.ErrSignature},
		{"another bot's token", raw, "654321:other", telegram.ErrSignature},
		{"no hash", strings.Replace(raw, "hash="+reference(tampered), "", 1), token, telegram.ErrMalformed},
		{"short hash", strings.Replace(raw, "hash="+reference(tampered), "hash=abcd", 1), token, telegram.ErrMalformed},
		{"not a query", "%zz", token, telegram.ErrMalformed},
		{"expired", signed(fields(now.Add(-25 * time.Hour))), token, telegram.ErrExpired},
		{"from the future", signed(fields(now.Add(time.Hour))), token, telegram.ErrExpired},
		{"no user", signed(map[string]string{"auth_date": strconv.FormatInt(now.Unix(), 10)}), token, telegram.ErrMalformed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := telegram.VerifyInitData(tc.raw, tc.tok, now, 0)
			require.ErrorIs(t, err, tc.want)
			var ie *telegram.InitDataError
			require.ErrorAs(t, err, &ie)
		})
	}
	// Exactly 24 h old is still fresh; a second more is not.
	_, err = telegram.VerifyInitData(signed(fields(now.Add(-telegram.MaxAge))), token, now, 0)
	require.NoError(t, err)
	_, err = telegram.VerifyInitData(signed(fields(now.Add(-telegram.MaxAge-time.Second))), token, now, 0)
	require.ErrorIs(t, err, telegram.ErrExpired)
}
