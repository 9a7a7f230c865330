package telegram

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// MaxAge is how old an initData's auth_date may be before it is refused.
const MaxAge = 24 * time.Hour

// Sentinels of [VerifyInitData]; each failure is an [*InitDataError]
// matching one of them.
var (
	ErrMalformed = errors.New("telegram: malformed init data")
	ErrSignature = errors.New("telegram: init data signature mismatch")
	ErrExpired   = errors.New("telegram: init data expired")
)

// InitDataError says why initData was refused.
type InitDataError struct {
	Reason string
	err    error
}

func (e *InitDataError) Error() string { return e.err.Error() + ": " + e.Reason }

// Unwrap returns the sentinel.
func (e *InitDataError) Unwrap() error { return e.err }

// User is the Telegram user an initData names.
type User struct {
	ID        int64  `json:"id"`
	FirstName string `json:"first_name"`
	LastName  string `json:"last_name,omitempty"`
	Username  string `json:"username,omitempty"`
	Language  string `json:"language_code,omitempty"`
}

// InitData is a verified initData.
type InitData struct {
	User     User
	AuthDate time.Time
	QueryID  string
	// Fields holds every field as received, hash excluded.
	Fields url.Values
}

// VerifyInitData checks a Mini App's initData (the query string Telegram
// hands the page) against the bot token, per Telegram's documented
// algorithm: the data-check-string is every field but hash as key=value,
// sorted by key and joined by "\n"; the secret key is
// HMAC-SHA256(key "WebAppData", the bot token); the hash must equal the hex
// HMAC-SHA256 of the data-check-string under the secret key (compared in
// constant time). A field sent twice is refused. auth_date must be at
// most maxAge (0 means [MaxAge]) before now and not in the future beyond a
// minute of clock skew.
func VerifyInitData(raw, botToken string, now time.Time, maxAge time.Duration) (InitData, error) {
	if maxAge <= 0 {
		maxAge = MaxAge
	}
	vals, err := url.ParseQuery(raw)
	if err != nil {
		return InitData{}, &InitDataError{Reason: "not a query string", err: ErrMalformed}
	}
	// Telegram sends each field once. A repeated one would let a value the
	// hash does not cover ride along (Sign reads the first of each).
	for k, v := range vals {
		if len(v) != 1 {
			return InitData{}, &InitDataError{Reason: fmt.Sprintf("field %q appears %d times", k, len(v)), err: ErrMalformed}
		}
	}
	hashes := vals["hash"]
	if len(hashes) == 0 || len(hashes[0]) != sha256.Size*2 {
		return InitData{}, &InitDataError{Reason: "want one 64-hex-digit hash", err: ErrMalformed}
	}
	got, err := hex.DecodeString(hashes[0])
	if err != nil {
		return InitData{}, &InitDataError{Reason: "hash is not hex", err: ErrMalformed}
	}
	vals.Del("hash")
	if !hmac.Equal(got, Sign(vals, botToken)) {
		return InitData{}, &InitDataError{Reason: "hash does not match the fields", err: ErrSignature}
	}
	sec, err := strconv.ParseInt(vals.Get("auth_date"), 10, 64)
	if err != nil {
		return InitData{}, &InitDataError{Reason: "auth_date is not a Unix time", err: ErrMalformed}
	}
	auth := time.Unix(sec, 0)
	if age := now.Sub(auth); age > maxAge || age < -time.Minute {
		return InitData{}, &InitDataError{Reason: fmt.Sprintf("auth_date %s is outside the last %s", auth.UTC().Format(time.RFC3339), maxAge), err: ErrExpired}
	}
	d := InitData{AuthDate: auth, QueryID: vals.Get("query_id"), Fields: vals}
	if u := vals.Get("user"); u != "" {
		if err := json.Unmarshal([]byte(u), &d.User); err != nil || d.User.ID == 0 {
			return InitData{}, &InitDataError{Reason: "user is not a Telegram user object", err: ErrMalformed}
		}
	} else {
		return InitData{}, &InitDataError{Reason: "no user", err: ErrMalformed}
	}
	return d, nil
}

// Sign returns the HMAC Telegram computes over fields (hash excluded) for
// botToken. Tests and tools use it to build signed initData.
func Sign(fields url.Values, botToken string) []byte {
	keys := make([]string, 0, len(fields))
	for k := range fields {
		if k != "hash" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	lines := make([]string, 0, len(keys))
	for _, k := range keys {
		lines = append(lines, k+"="+fields.Get(k))
	}
	secret := hmac.New(sha256.New, []byte("WebAppData"))
	secret.Write([]byte(botToken))
	mac := hmac.New(sha256.New, secret.Sum(nil))
	mac.Write([]byte(strings.Join(lines, "\n")))
	return mac.Sum(nil)
}
