package bot_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/echomq/echomq/codemojex/bot"
)

// call is one Bot API request the fake server saw.
type call struct {
	Method string
	Params map[string]any
	MsgID  int64 // the message a sendMessage created
}

// fakeAPI is a Bot API server on loopback: it records every call, feeds
// queued updates to getUpdates, and can be told to fail calls first.
type fakeAPI struct {
	srv *httptest.Server

	mu      sync.Mutex
	calls   []call
	updates []bot.Update
	fail    map[string][]int // method -> statuses to answer first
	nextMsg int64
	wake    chan struct{}
}

func newFakeAPI(t *testing.T) *fakeAPI {
	f := &fakeAPI{fail: map[string][]int{}, nextMsg: 100, wake: make(chan struct{}, 1)}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeAPI) push(u bot.Update) {
	f.mu.Lock()
	f.updates = append(f.updates, u)
	f.mu.Unlock()
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

func (f *fakeAPI) failNext(method string, statuses ...int) {
	f.mu.Lock()
	f.fail[method] = append(f.fail[method], statuses...)
	f.mu.Unlock()
}

func (f *fakeAPI) recorded(method string) []call {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []call
	for _, c := range f.calls {
		if c.Method == method {
			out = append(out, c)
		}
	}
	return out
}

func write(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (f *fakeAPI) serve(w http.ResponseWriter, r *http.Request) {
	_, method, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/bot"), "/")
	var params map[string]any
	_ = json.NewDecoder(r.Body).Decode(&params)
	f.mu.Lock()
	f.calls = append(f.calls, call{Method: method, Params: params})
	if st := f.fail[method]; len(st) > 0 {
		f.fail[method] = st[1:]
		f.mu.Unlock()
		ans := map[string]any{"ok": false, "error_code": st[0], "description": http.StatusText(st[0])}
		if st[0] == http.StatusTooManyRequests {
			ans["parameters"] = map[string]any{"retry_after": 1}
		}
		write(w, st[0], ans)
		return
	}
	f.mu.Unlock()
	switch method {
	case "getMe":
		write(w, 200, map[string]any{"ok": true, "result": map[string]any{"id": 1, "is_bot": true, "first_name": "codemojex"}})
	case "getUpdates":
		for {
			f.mu.Lock()
			ups := f.updates
			f.updates = nil
			f.mu.Unlock()
			if len(ups) > 0 {
				write(w, 200, map[string]any{"ok": true, "result": ups})
				return
			}
			select {
			case <-f.wake:
			case <-r.Context().Done():
				return
			case <-time.After(time.Second):
				write(w, 200, map[string]any{"ok": true, "result": []any{}})
				return
			}
		}
	case "sendMessage":
		f.mu.Lock()
		f.nextMsg++
		id := f.nextMsg
		f.calls[len(f.calls)-1].MsgID = id
		f.mu.Unlock()
		write(w, 200, map[string]any{"ok": true, "result": map[string]any{"message_id": id, "chat": map[string]any{"id": params["chat_id"]}, "text": params["text"]}})
	case "editMessageText", "editMessageReplyMarkup", "answerCallbackQuery", "setWebhook", "deleteWebhook":
		write(w, 200, map[string]any{"ok": true, "result": true})
	default:
		write(w, 404, map[string]any{"ok": false, "error_code": 404, "description": "Not Found"})
	}
}

// waitCalls blocks until method has been called n times (the test's own
// deadline bounds it).
func (f *fakeAPI) waitCalls(t *testing.T, method string, n int) {
	t.Helper()
	for len(f.recorded(method)) < n {
		time.Sleep(5 * time.Millisecond)
	}
}

// waitPoll blocks until a getUpdates acknowledges updates before offset.
func (f *fakeAPI) waitPoll(t *testing.T, offset float64) {
	t.Helper()
	for {
		for _, c := range f.recorded("getUpdates") {
			if c.Params["offset"] == offset {
				return
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
}
