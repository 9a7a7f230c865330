package web

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/codemojex/telegram"
)

// telegramSignIn verifies a Mini App's initData with the bot token and
// signs its user in: {"init_data": "…"} → {"token", "player"}. A bad or
// stale initData is a 401; a missing bot token a 404.
func (h *Handler) telegramSignIn(w http.ResponseWriter, r *http.Request) {
	if h.cfg.BotToken == "" {
		writeJSON(w, http.StatusNotFound, errBody("not_found", "telegram sign-in is not configured"))
		return
	}
	var in struct {
		InitData string `json:"init_data"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 16<<10)).Decode(&in); err != nil || in.InitData == "" {
		writeJSON(w, http.StatusBadRequest, errBody("bad_request", "body must be {\"init_data\": \"…\"}"))
		return
	}
	d, err := telegram.VerifyInitData(in.InitData, h.cfg.BotToken, h.e.Now(), h.cfg.MaxAge)
	if err != nil {
		writeJSON(w, http.StatusUnauthorized, errBody("unauthorized", "initData refused"))
		return
	}
	name := strings.TrimSpace(d.User.FirstName + " " + d.User.LastName)
	if d.User.Username != "" {
		name = d.User.Username
	}
	if len([]rune(name)) > 32 {
		name = string([]rune(name)[:32])
	}
	p, token, err := h.e.SignIn(r.Context(), codemojex.Identity{Provider: "telegram", Subject: strconv.FormatInt(d.User.ID, 10), Name: name})
	if err != nil && name != "" {
		// A name the engine refuses (characters it does not print): the
		// user id stands in for it.
		p, token, err = h.e.SignIn(r.Context(), codemojex.Identity{Provider: "telegram", Subject: strconv.FormatInt(d.User.ID, 10)})
	}
	if err != nil {
		h.log.Error("web: telegram sign-in", "err", err)
		writeJSON(w, http.StatusInternalServerError, errBody("internal", "sign-in failed"))
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"token": token, "player": p})
}

func errBody(code, msg string) map[string]any {
	return map[string]any{"error": map[string]string{"code": code, "message": msg}}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
