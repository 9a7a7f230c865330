// Package telegram holds codemojex's Telegram pieces that need no network:
// the verification of a Mini App's initData, which signs a player in on the
// web app when it is opened inside Telegram.
package telegram
