package bot_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/echomq/echomq/echomqtest"
)

// call is one Bot API request the fake server saw.
type call struct {
	Method string
	Params map[string]any
	At     time.Time
	MsgID  int64 // the message a sendMessage created
}

// Text returns the call's text parameter.
func (c call) Text() string { s, _ := c.Params["text"].(string); return s }

// Chat returns the call's chat_id parameter.
func (c call) Chat() int64 { f, _ := c.Params["chat_id"].(float64); return int64(f) }

// fakeAPI is a Bot API server on loopback, speaking the multipart form
// requests the library sends: it records every call, feeds queued updates
// to getUpdates, and can be told to fail calls first.
type fakeAPI struct {
	srv *httptest.Server

	mu      sync.Mutex
	calls   []call
	updates []map[string]any
	fail    map[string][]int // method -> statuses to answer first
	nextMsg int64
	nextUpd int64
	wake    chan struct{}
	called  chan struct{} // closed at each call recorded, then made anew
	reply   func(call)    // runs before a call that succeeds is answered
}

func newFakeAPI(t *testing.T) *fakeAPI {
	f := &fakeAPI{fail: map[string][]int{}, nextMsg: 100, wake: make(chan struct{}, 1), called: make(chan struct{})}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// push queues an update (update_id is filled in) for getUpdates.
func (f *fakeAPI) push(u map[string]any) {
	f.mu.Lock()
	f.nextUpd++
	u["update_id"] = f.nextUpd
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

// beforeReply runs fn on every call that succeeds, before it is answered:
// the call has happened, the caller has not heard so yet.
func (f *fakeAPI) beforeReply(fn func(call)) {
	f.mu.Lock()
	f.reply = fn
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

// nextCall returns a channel closed when the server records its next call.
func (f *fakeAPI) nextCall() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.called
}

// until waits until cond holds, looking again at each call the server
// records; when cond does not hold within d, it fails t with failure().
func (f *fakeAPI) until(t *testing.T, d time.Duration, cond func() bool, failure func() string) {
	t.Helper()
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		next := f.nextCall() // before cond: a call made while cond runs is not missed
		if cond() {
			return
		}
		select {
		case <-next:
		case <-timer.C:
			t.Fatal(failure())
		}
	}
}

// to returns the calls of method to chat whose text holds substr.
func (f *fakeAPI) to(method string, chat int64, substr string) []call {
	var out []call
	for _, c := range f.recorded(method) {
		if c.Chat() == chat && strings.Contains(c.Text(), substr) {
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

// jsonParams are the form fields holding numbers or JSON objects.
var jsonParams = map[string]bool{"chat_id": true, "message_id": true, "offset": true, "timeout": true, "reply_markup": true, "allowed_updates": true}

// params decodes a request's form (multipart, as the library sends, or
// urlencoded).
func params(r *http.Request) map[string]any {
	out := map[string]any{}
	if err := r.ParseMultipartForm(1 << 20); err != nil {
		_ = r.ParseForm()
	}
	for k, vs := range r.Form {
		if len(vs) == 0 {
			continue
		}
		var v any = vs[0]
		if jsonParams[k] {
			var j any
			if json.Unmarshal([]byte(vs[0]), &j) == nil {
				v = j
			}
		}
		out[k] = v
	}
	return out
}

func (f *fakeAPI) serve(w http.ResponseWriter, r *http.Request) {
	_, method, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/bot"), "/")
	p := params(r)
	f.mu.Lock()
	c := call{Method: method, Params: p, At: time.Now()}
	st := f.fail[method]
	if len(st) == 0 && method == "sendMessage" {
		// The message's id is part of the record before anyone waiting on
		// the call wakes: a test that finds the call can press its keyboard.
		f.nextMsg++
		c.MsgID = f.nextMsg
	}
	f.calls = append(f.calls, c)
	close(f.called)
	f.called = make(chan struct{})
	if len(st) > 0 {
		f.fail[method] = st[1:]
		f.mu.Unlock()
		ans := map[string]any{"ok": false, "error_code": st[0], "description": http.StatusText(st[0])}
		if st[0] == http.StatusTooManyRequests {
			ans["parameters"] = map[string]any{"retry_after": 1}
			ans["description"] = "Too Many Requests: retry after 1"
		}
		write(w, st[0], ans)
		return
	}
	reply := f.reply
	f.mu.Unlock()
	if reply != nil {
		reply(c)
	}
	switch method {
	case "getMe":
		write(w, 200, map[string]any{"ok": true, "result": map[string]any{"id": 1, "is_bot": true, "first_name": "codemojex"}})
	case "getUpdates":
		offset, _ := p["offset"].(float64)
		for {
			f.mu.Lock()
			var ups []map[string]any
			for _, u := range f.updates {
				if float64(u["update_id"].(int64)) >= offset {
					ups = append(ups, u)
				}
			}
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
		write(w, 200, map[string]any{"ok": true, "result": map[string]any{
			"message_id": c.MsgID, "date": 1,
			"chat": map[string]any{"id": p["chat_id"], "type": "private"}, "text": p["text"],
		}})
	case "editMessageText":
		write(w, 200, map[string]any{"ok": true, "result": map[string]any{
			"message_id": p["message_id"], "date": 1,
			"chat": map[string]any{"id": p["chat_id"], "type": "private"}, "text": p["text"],
		}})
	case "answerCallbackQuery", "setWebhook", "deleteWebhook":
		write(w, 200, map[string]any{"ok": true, "result": true})
	default:
		write(w, 404, map[string]any{"ok": false, "error_code": 404, "description": "Not Found"})
	}
}

// await blocks until a call of method to chat whose text holds substr
// has been made, and returns the latest such call; after 30s it fails the
// test, showing the calls of method that were made.
func (f *fakeAPI) await(t *testing.T, method string, chat int64, substr string) call {
	t.Helper()
	var last call
	f.until(t, 30*time.Second, func() bool {
		cs := f.to(method, chat, substr)
		if len(cs) == 0 {
			return false
		}
		last = cs[len(cs)-1]
		return true
	}, func() string {
		var seen []string
		for _, c := range f.recorded(method) {
			seen = append(seen, itoa(c.Chat())+": "+c.Text())
		}
		return fmt.Sprintf("no %s to chat %d holding %q after 30s; saw:\n%s", method, chat, substr, strings.Join(seen, "\n"))
	})
	return last
}

// waitPoll blocks until a getUpdates acknowledged updates before offset.
func (f *fakeAPI) waitPoll(t *testing.T, offset float64) {
	t.Helper()
	echomqtest.WaitFor(t, 30*time.Second, fmt.Sprintf("a getUpdates at offset %v", offset), func() bool {
		for _, c := range f.recorded("getUpdates") {
			if c.Params["offset"] == offset {
				return true
			}
		}
		return false
	})
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
