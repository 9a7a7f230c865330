package telegram_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/echomq/echomq/codemojex/telegram"
)

// A Mini App's initData signed the way Telegram documents it, then
// verified: the data-check-string is every field but hash as key=value,
// sorted by key, joined by "\n"; the secret key is HMAC-SHA256 of the bot
// token under the key "WebAppData"; the hash is the hex HMAC-SHA256 of the
// data-check-string under the secret key.
func ExampleVerifyInitData() {
	const botToken = "123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11"
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	fields := url.Values{}
	fields.Set("auth_date", strconv.FormatInt(now.Add(-time.Minute).Unix(), 10))
	fields.Set("query_id", "AAHdF6IQAAAAAN0XohDhrOrc")
	fields.Set("user", `{"id":279058397,"first_name":"Vladislav","username":"vdkfrost"}`)

	keys := slices.Sorted(maps.Keys(fields))
	lines := make([]string, len(keys))
	for i, k := range keys {
		lines[i] = k + "=" + fields.Get(k)
	}
	secret := hmac.New(sha256.New, []byte("WebAppData"))
	secret.Write([]byte(botToken))
	mac := hmac.New(sha256.New, secret.Sum(nil))
	mac.Write([]byte(strings.Join(lines, "\n")))
	fields.Set("hash", hex.EncodeToString(mac.Sum(nil)))
	initData := fields.Encode() // what the page posts

	d, err := telegram.VerifyInitData(initData, botToken, now, 0)
	if err != nil {
		panic(err)
	}
	fmt.Println(d.User.ID, d.User.Username)

	// A day and a minute later the same initData is stale.
	_, err = telegram.VerifyInitData(initData, botToken, now.Add(telegram.MaxAge), 0)
	fmt.Println(errors.Is(err, telegram.ErrExpired))
	// Output:
	// 279058397 vdkfrost
	// true
}
