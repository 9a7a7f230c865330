package bot

import (
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/go-telegram/bot/models"
)

// buttonKind is what an inline button does.
type buttonKind int

const (
	buttonUnknown buttonKind = iota
	buttonJoin               // "j:<room>"
	buttonPick               // "p:<code>"
	buttonUndo               // "u"
	buttonClear              // "c"
	buttonSubmit             // "s"
)

// maxButtonArg bounds a button's argument: the bot's own room ids and
// codes are far shorter, and Telegram caps callback data at 64 bytes, so
// anything longer is not one of our buttons.
const maxButtonArg = 48

// parseButton reads a button's callback data. Data the bot never sends
// (another client's, or forged) is buttonUnknown: an empty or oversized
// argument, or a byte outside printable ASCII.
func parseButton(data string) (buttonKind, string) {
	switch data {
	case "u":
		return buttonUndo, ""
	case "c":
		return buttonClear, ""
	case "s":
		return buttonSubmit, ""
	}
	kind := buttonUnknown
	arg, ok := strings.CutPrefix(data, "j:")
	if ok {
		kind = buttonJoin
	} else if arg, ok = strings.CutPrefix(data, "p:"); ok {
		kind = buttonPick
	}
	if kind == buttonUnknown || arg == "" || len(arg) > maxButtonArg {
		return buttonUnknown, ""
	}
	for i := range len(arg) {
		if c := arg[i]; c <= ' ' || c > '~' {
			return buttonUnknown, ""
		}
	}
	return kind, arg
}

// maxUpdateBytes bounds one webhook update; Telegram's are a few KiB.
const maxUpdateBytes = 1 << 20

// decodeUpdate reads one webhook update of at most maxUpdateBytes: a larger
// body, trailing data or a body that is not one JSON object is an error.
func decodeUpdate(r io.Reader) (*models.Update, error) {
	dec := json.NewDecoder(io.LimitReader(r, maxUpdateBytes+1))
	var u models.Update
	if err := dec.Decode(&u); err != nil {
		return nil, err
	}
	if dec.InputOffset() > maxUpdateBytes {
		return nil, errors.New("update too large")
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("trailing data after the update")
	}
	return &u, nil
}

// parseCommand returns the command of a message text ("/rooms@bot x" is
// "/rooms").
func parseCommand(text string) string {
	cmd, _, _ := strings.Cut(strings.TrimSpace(text), " ")
	cmd, _, _ = strings.Cut(cmd, "@")
	return cmd
}
