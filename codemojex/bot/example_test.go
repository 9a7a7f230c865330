package bot_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/codemojex/bot"
)

// The webhook refuses a request whose secret token does not match.
func ExampleBot_Webhook() {
	ctx := context.Background()
	client, err := echomq.Connect(ctx, echomq.Config{Logger: quiet})
	if err != nil {
		panic(err)
	}
	defer client.Close()
	e, err := codemojex.New(client, codemojex.Config{Queue: "example-bot", Logger: quiet})
	if err != nil {
		panic(err)
	}
	b, err := bot.New(e, bot.Config{Token: "123:abc", WebhookSecret: "s3cret"})
	if err != nil {
		panic(err)
	}
	req := httptest.NewRequest(http.MethodPost, "/telegram", strings.NewReader(`{"update_id":1}`))
	req.Header.Set("X-Telegram-Bot-Api-Secret-Token", "guess")
	rec := httptest.NewRecorder()
	b.Webhook().ServeHTTP(rec, req)
	fmt.Println(rec.Code)
	// Output: 401
}
