package bot_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/codemojex/bot"
	"github.com/echomq/echomq/embedded"
)

// The webhook refuses a request whose secret token does not match, before
// reading it.
func ExampleBot_Webhook() {
	ctx := context.Background()
	client, err := echomq.Connect(ctx, &echomq.Config{URL: embedded.URL, Logger: quiet, Notice: io.Discard})
	if err != nil {
		panic(err)
	}
	defer client.Close()
	e, err := codemojex.New(client, &codemojex.Config{Queue: "example-bot", Logger: quiet})
	if err != nil {
		panic(err)
	}
	b, err := bot.New(e, &bot.Config{Token: "123:abc", WebhookSecret: "s3cret"})
	if err != nil {
		panic(err)
	}
	for _, token := range []string{"guess", ""} {
		req := httptest.NewRequest(http.MethodPost, "/telegram", strings.NewReader(`{"update_id":1}`))
		req.Header.Set("X-Telegram-Bot-Api-Secret-Token", token)
		rec := httptest.NewRecorder()
		b.Webhook().ServeHTTP(rec, req)
		fmt.Println(rec.Code)
	}
	fmt.Println(b.Config().Queue, b.Config().GlobalRate, b.Config().ChatRate)
	// Output:
	// 401
	// 401
	// example-bot-tg 30 1
}
