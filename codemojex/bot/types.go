package bot

// Update is one Bot API update; only the parts the bot reads are decoded.
type Update struct {
	UpdateID      int64          `json:"update_id"`
	Message       *Message       `json:"message,omitempty"`
	CallbackQuery *CallbackQuery `json:"callback_query,omitempty"`
}

// Message is a Bot API message.
type Message struct {
	MessageID int64  `json:"message_id"`
	Chat      Chat   `json:"chat"`
	From      *User  `json:"from,omitempty"`
	Text      string `json:"text,omitempty"`
}

// Chat is a Bot API chat.
type Chat struct {
	ID int64 `json:"id"`
}

// User is a Bot API user.
type User struct {
	ID        int64  `json:"id"`
	FirstName string `json:"first_name,omitempty"`
	Username  string `json:"username,omitempty"`
}

// CallbackQuery is a press of an inline button.
type CallbackQuery struct {
	ID      string   `json:"id"`
	From    User     `json:"from"`
	Message *Message `json:"message,omitempty"`
	Data    string   `json:"data,omitempty"`
}

// Button is an inline keyboard button carrying callback data.
type Button struct {
	Text         string `json:"text"`
	CallbackData string `json:"callback_data"`
}

// Markup is an inline keyboard.
type Markup struct {
	InlineKeyboard [][]Button `json:"inline_keyboard"`
}

// APIError is a Bot API call that failed: a non-ok answer, with the
// status, Telegram's description and, for 429, the retry_after it asked.
type APIError struct {
	Method      string
	Status      int
	Description string
	RetryAfter  int
}

// Error names the method and Telegram's description.
func (e *APIError) Error() string {
	return "bot: " + e.Method + ": " + e.Description
}

func (e *APIError) retryable() bool { return e.Status == 429 || e.Status >= 500 }
