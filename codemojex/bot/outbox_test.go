package bot

import (
	"encoding/json"
	"testing"

	"github.com/go-telegram/bot/models"
	"github.com/stretchr/testify/require"
)

// FuzzMessageCodec: an outbox payload decodes without a panic, and what
// decodes encodes back to an equal message.
func FuzzMessageCodec(f *testing.F) {
	seed, _ := json.Marshal(message{
		Chat: -100123, Text: "🎯 hi", Notice: "EVT000xY9Wvvcd.PLR0KHTOWnGLuC",
		Keyboard: &models.InlineKeyboardMarkup{InlineKeyboard: [][]models.InlineKeyboardButton{{{Text: "a", CallbackData: "p:0001"}}}},
	})
	for _, s := range [][]byte{seed, []byte(`{"chat":1,"text":"x","compose":true}`), []byte(`{}`), []byte(`null`), []byte(`{"chat":"x"}`)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var m message
		if json.Unmarshal(raw, &m) != nil {
			return
		}
		again, err := json.Marshal(m)
		require.NoError(t, err)
		var back message
		require.NoError(t, json.Unmarshal(again, &back))
		require.Equal(t, m, back)
	})
}
